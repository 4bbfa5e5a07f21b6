"""Names shown to people: modules, and the guild word of R8.2 — one function, `words`, gives
every text of a campaign its guild and mission-alliance words.

Polish declines nouns, so a text may need "kartelu" where English says "cartel": each word
comes in every case, one and many, each case a gettext message with the case as its context
("genitive", "accusative" …; English has none, so every form is the word), and texts name the
form they need (`%(guild_of)s`, `%(Guilds)s`, `%(guild_acc)s` …; see CASES).

Polish adjectives and pronouns also agree with the word's gender ("inna gildia", "inny
kartel", "inne bractwo"; "rozwiąż ją / go / je"): each word's gender in a language is the
message with the context "gender" ("m", "f" or "n"), and a message whose words depend on it
is translated once per gender, with the context "guild:f" (or "alliance:m" …) — looked up
first, the plain message being the fallback (`gendered`, `contexts`).
"""

from __future__ import annotations

from collections.abc import Mapping
from gettext import NullTranslations
from types import MappingProxyType

from app.core.errors import N_, DomainError

MODULE_NAMES = {
    "guilds": N_("%(Guilds)s"),
    "mission_alliances": N_("%(Alliances)s"),
    "letters": N_("Messages"),
    "gold_transfers": N_("Gold transfers"),
    "multi_band_battles": N_("Multi-band battles"),
    "paths": N_("Paths between places"),
    "movement": N_("Warband movement"),
}
GUILD_TERMS = ("guild", "consortium", "group", "brotherhood", "cartel", "alliance")
# term -> (one, many); the forms "of one" and "of many" are the same English words with a context.
GUILD_WORDS = {
    "guild": (N_("guild"), N_("guilds")),
    "consortium": (N_("consortium"), N_("consortia")),
    "group": (N_("group"), N_("groups")),
    "brotherhood": (N_("brotherhood"), N_("brotherhoods")),
    "cartel": (N_("cartel"), N_("cartels")),
    "alliance": (N_("alliance"), N_("alliances")),
}
MISSION_WORDS = (N_("mission alliance"), N_("mission alliances"))
PACT_WORDS = (N_("pact"), N_("pacts"))
OF = "genitive"  # the msgctxt of the "of one" / "of many" forms
# The suffix of a form's name -> the msgctxt of that case: `guild_acc` is "accusative" of
# "guild", `guilds_in` the locative of "guilds"; the bare name is the nominative.
CASES = {"of": OF, "to": "dative", "acc": "accusative", "with": "instrumental", "in": "locative"}
GENDER = "gender"  # the msgctxt of a word's grammatical gender in a language: "m", "f" or "n"
GENDERS = ("m", "f", "n")


def _case(translations, case: str, word: str, nominative: str) -> str:
    found = translations.pgettext(case, word)
    return nominative if found == word else found  # a language without the case: the word itself


def _forms(prefix: str, one: str, many: str, translations) -> dict[str, str]:
    gettext = translations.gettext
    forms = {prefix: gettext(one), f"{prefix}s": gettext(many)}
    for suffix, case in CASES.items():
        forms[f"{prefix}_{suffix}"] = _case(translations, case, one, forms[prefix])
        forms[f"{prefix}s_{suffix}"] = _case(translations, case, many, forms[f"{prefix}s"])
    forms.update({k[:1].upper() + k[1:]: v[:1].upper() + v[1:] for k, v in list(forms.items())})
    return forms


def _terms(term: str | None) -> tuple[tuple[str, str], tuple[str, str]]:
    """(the guild word, the mission-alliance word), each as (one, many)."""
    term = term if term in GUILD_WORDS else "guild"
    return GUILD_WORDS[term], PACT_WORDS if term == "alliance" else MISSION_WORDS


# `words` of a (term, catalog): the same every time, and every campaign page asks for them
# (some 40 catalog lookups, 30 µs a page: issue 37). Keyed by the catalog object itself, as
# app/core/templating.py keeps its said messages; a handful of terms times five languages.
_WORDS: dict[tuple[str, object], Mapping[str, str]] = {}


def words(term: str | None, translations) -> Mapping[str, str]:
    """The guild word (R8.2) and the mission-alliance word ("pact" with "alliance") in every
    form, for `text % words(...)` in the reader's language (read-only: shared by every page)."""
    (one, many), (mission_one, mission_many) = _terms(term)
    key = (one, translations)  # a term's word in one form: the words themselves follow from it
    found = _WORDS.get(key)
    if found is None:
        made = {**_forms("guild", one, many, translations), **_forms("alliance", mission_one, mission_many, translations)}
        found = _WORDS[key] = MappingProxyType(made)
    return found


def gender(word: str, translations) -> str | None:
    """The word's grammatical gender in the reader's language, None where it has none."""
    found = translations.pgettext(GENDER, word)
    return found if found in GENDERS else None


def contexts(term: str | None, translations) -> tuple[str, ...]:
    """The message contexts of this campaign's words' genders, to look a message up in first:
    ("guild:m", "alliance:m") for a cartel in Polish, () in English."""
    (one, _many), (mission_one, _mission_many) = _terms(term)
    found = (("guild", gender(one, translations)), ("alliance", gender(mission_one, translations)))
    return tuple(f"{name}:{g}" for name, g in found if g)


def gendered(translations, message: str, message_contexts) -> str:
    """`message` in the reader's language, in the form for the genders of `message_contexts`
    where it has one (a message whose adjectives or pronouns agree with a word)."""
    for context in message_contexts:
        found = translations.pgettext(context, message)
        if found != message:
            return found
    return translations.gettext(message)


def campaign_text(message: str, term: str | None, translations) -> str:
    """A message that may name guilds or mission alliances, in this campaign's words."""
    return gendered(translations, message, contexts(term, translations)) % words(term, translations)


# What a `gettext` that is no catalog's method translates with (English, the messages as they
# are): one object, so that `words` keeps one entry for it, not one a call.
_UNTRANSLATED = NullTranslations()


def _translations_of(gettext):
    """The catalog behind a bound `gettext` (the genitive forms need its `pgettext`)."""
    return getattr(gettext, "__self__", None) or _UNTRANSLATED


def term_of(campaign) -> str:
    guild = getattr(campaign, "guild", None) or {}
    return guild.get("term", "guild") if isinstance(guild, dict) else "guild"


def campaign_words(campaign, gettext) -> Mapping[str, str]:
    """This campaign's words in the language of `gettext` (a bound catalog method)."""
    return words(term_of(campaign), _translations_of(gettext))


class Word:
    """A refusal's parameter that is the campaign's guild or mission-alliance word in one
    form, said in the reader's language when the message is (core.errors.message_for)."""

    def __init__(self, term: str, form: str):
        self.term, self.form = term, form

    def text(self, gettext) -> str:
        return words(self.term, _translations_of(gettext))[self.form]

    def contexts(self, gettext) -> tuple[str, ...]:
        """The contexts the refusal's message is looked up in first (core.errors.message_for)."""
        return contexts(self.term, _translations_of(gettext))

    def __str__(self) -> str:
        return self.text(lambda m: m)


class CampaignMsg(Word):
    """A refusal's parameter that is itself a message naming the campaign's words (the
    "settings locked" refusal names "%(Guild)s settings")."""

    def __init__(self, term: str, message: str):
        super().__init__(term, message)

    def text(self, gettext) -> str:
        return campaign_text(self.form, self.term, _translations_of(gettext))


class ModuleName(Word):
    """A module's name (R9.6 refusals) in the campaign's words."""

    def text(self, gettext) -> str:
        translations = _translations_of(gettext)
        return translations.gettext(MODULE_NAMES[self.form]) % words(self.term, translations)


def require_module(campaign, module: str) -> None:
    """R9.6: with a module off, its pages, actions and API calls are refused with a clear error."""
    if not (campaign.modules or {}).get(module):
        raise DomainError("module_disabled", module=ModuleName(term_of(campaign), module))


FORMS = tuple(
    f"{p}{n}{c}"
    for base in ("guild", "alliance")
    for p in (base, base.capitalize())
    for n in ("", "s")
    for c in ("", *(f"_{suffix}" for suffix in CASES))
)


def word_params(campaign) -> dict[str, Word]:
    """Every form of the campaign's words, for a refusal whose message names them."""
    term = term_of(campaign)
    return {form: Word(term, form) for form in FORMS}


def template_words(context: dict) -> dict:
    """Template hook: pages of a campaign get its words as `words`."""
    campaign = context.get("campaign")
    guild = getattr(campaign, "guild", None) or {}
    return {"words": words(guild.get("term") if isinstance(guild, dict) else None, context["translations"])}


def term_names(translations) -> dict[str, str]:
    """The wizard's choice of guild word, each named in the reader's language."""
    return {term: words(term, translations)["Guild"] for term in GUILD_TERMS}


def NP_(context: str, message: str) -> str:
    """Marks a message with a context for extraction (babel.cfg: `NP_:1c,2`)."""
    return message


# Every case of every word, and each word's gender, listed for the extractor; `words` and
# `gender` look them up by context.
CASE_FORMS = (
    NP_("genitive", "guild"),
    NP_("genitive", "guilds"),
    NP_("genitive", "consortium"),
    NP_("genitive", "consortia"),
    NP_("genitive", "group"),
    NP_("genitive", "groups"),
    NP_("genitive", "brotherhood"),
    NP_("genitive", "brotherhoods"),
    NP_("genitive", "cartel"),
    NP_("genitive", "cartels"),
    NP_("genitive", "alliance"),
    NP_("genitive", "alliances"),
    NP_("genitive", "mission alliance"),
    NP_("genitive", "mission alliances"),
    NP_("genitive", "pact"),
    NP_("genitive", "pacts"),
    NP_("dative", "guild"),
    NP_("dative", "guilds"),
    NP_("dative", "consortium"),
    NP_("dative", "consortia"),
    NP_("dative", "group"),
    NP_("dative", "groups"),
    NP_("dative", "brotherhood"),
    NP_("dative", "brotherhoods"),
    NP_("dative", "cartel"),
    NP_("dative", "cartels"),
    NP_("dative", "alliance"),
    NP_("dative", "alliances"),
    NP_("dative", "mission alliance"),
    NP_("dative", "mission alliances"),
    NP_("dative", "pact"),
    NP_("dative", "pacts"),
    NP_("accusative", "guild"),
    NP_("accusative", "guilds"),
    NP_("accusative", "consortium"),
    NP_("accusative", "consortia"),
    NP_("accusative", "group"),
    NP_("accusative", "groups"),
    NP_("accusative", "brotherhood"),
    NP_("accusative", "brotherhoods"),
    NP_("accusative", "cartel"),
    NP_("accusative", "cartels"),
    NP_("accusative", "alliance"),
    NP_("accusative", "alliances"),
    NP_("accusative", "mission alliance"),
    NP_("accusative", "mission alliances"),
    NP_("accusative", "pact"),
    NP_("accusative", "pacts"),
    NP_("instrumental", "guild"),
    NP_("instrumental", "guilds"),
    NP_("instrumental", "consortium"),
    NP_("instrumental", "consortia"),
    NP_("instrumental", "group"),
    NP_("instrumental", "groups"),
    NP_("instrumental", "brotherhood"),
    NP_("instrumental", "brotherhoods"),
    NP_("instrumental", "cartel"),
    NP_("instrumental", "cartels"),
    NP_("instrumental", "alliance"),
    NP_("instrumental", "alliances"),
    NP_("instrumental", "mission alliance"),
    NP_("instrumental", "mission alliances"),
    NP_("instrumental", "pact"),
    NP_("instrumental", "pacts"),
    NP_("locative", "guild"),
    NP_("locative", "guilds"),
    NP_("locative", "consortium"),
    NP_("locative", "consortia"),
    NP_("locative", "group"),
    NP_("locative", "groups"),
    NP_("locative", "brotherhood"),
    NP_("locative", "brotherhoods"),
    NP_("locative", "cartel"),
    NP_("locative", "cartels"),
    NP_("locative", "alliance"),
    NP_("locative", "alliances"),
    NP_("locative", "mission alliance"),
    NP_("locative", "mission alliances"),
    NP_("locative", "pact"),
    NP_("locative", "pacts"),
)
WORD_GENDERS = (
    NP_("gender", "guild"),
    NP_("gender", "consortium"),
    NP_("gender", "group"),
    NP_("gender", "brotherhood"),
    NP_("gender", "cartel"),
    NP_("gender", "alliance"),
    NP_("gender", "mission alliance"),
    NP_("gender", "pact"),
)

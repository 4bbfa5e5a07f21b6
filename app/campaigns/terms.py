"""Names shown to people: modules, and the guild word of R8.2 — one function, `words`, gives
every text of a campaign its guild and mission-alliance words.

Polish declines nouns, so a text may need "kartelu" where English says "cartel": the words
come in four forms (one, of one, many, of many), each a gettext message with a grammatical
context, and texts name the form they need (`%(guild_of)s`, `%(Guilds)s` …).
"""
from __future__ import annotations

from app.core.errors import N_

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


def _forms(prefix: str, one: str, many: str, translations) -> dict[str, str]:
    gettext = translations.gettext
    forms = {
        prefix: gettext(one),
        f"{prefix}_of": translations.pgettext(OF, one),
        f"{prefix}s": gettext(many),
        f"{prefix}s_of": translations.pgettext(OF, many),
    }
    forms.update({k[:1].upper() + k[1:]: v[:1].upper() + v[1:] for k, v in list(forms.items())})
    return forms


def words(term: str | None, translations) -> dict[str, str]:
    """The guild word (R8.2) and the mission-alliance word ("pact" with "alliance") in every
    form, for `text % words(...)` in the reader's language."""
    term = term if term in GUILD_WORDS else "guild"
    one, many = GUILD_WORDS[term]
    mission_one, mission_many = PACT_WORDS if term == "alliance" else MISSION_WORDS
    return {**_forms("guild", one, many, translations), **_forms("alliance", mission_one, mission_many, translations)}


def campaign_text(message: str, term: str | None, translations) -> str:
    """A message that may name guilds or mission alliances, in this campaign's words."""
    return translations.gettext(message) % words(term, translations)


def _translations_of(gettext):
    """The catalog behind a bound `gettext` (the genitive forms need its `pgettext`)."""
    from gettext import NullTranslations

    return getattr(gettext, "__self__", None) or NullTranslations()


def term_of(campaign) -> str:
    guild = getattr(campaign, "guild", None) or {}
    return guild.get("term", "guild") if isinstance(guild, dict) else "guild"


def campaign_words(campaign, gettext) -> dict[str, str]:
    """This campaign's words in the language of `gettext` (a bound catalog method)."""
    return words(term_of(campaign), _translations_of(gettext))


class Word:
    """A refusal's parameter that is the campaign's guild or mission-alliance word in one
    form, said in the reader's language when the message is (core.errors.message_for)."""

    def __init__(self, term: str, form: str):
        self.term, self.form = term, form

    def text(self, gettext) -> str:
        return words(self.term, _translations_of(gettext))[self.form]

    def __str__(self) -> str:
        return self.text(lambda m: m)


class ModuleName(Word):
    """A module's name (R9.6 refusals) in the campaign's words."""

    def text(self, gettext) -> str:
        translations = _translations_of(gettext)
        return translations.gettext(MODULE_NAMES[self.form]) % words(self.term, translations)


def require_module(campaign, module: str) -> None:
    """R9.6: with a module off, its pages, actions and API calls are refused with a clear error."""
    from app.core.errors import DomainError

    if not (campaign.modules or {}).get(module):
        raise DomainError("module_disabled", module=ModuleName(term_of(campaign), module))


FORMS = tuple(f"{p}{s}" for base in ("guild", "alliance") for p in (base, base.capitalize()) for s in ("", "_of", "s", "s_of"))


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


# The "of one" / "of many" forms, listed for the extractor; `words` looks them up by context.
GENITIVES = (
    NP_("genitive", "guild"), NP_("genitive", "guilds"), NP_("genitive", "consortium"), NP_("genitive", "consortia"),
    NP_("genitive", "group"), NP_("genitive", "groups"), NP_("genitive", "brotherhood"), NP_("genitive", "brotherhoods"),
    NP_("genitive", "cartel"), NP_("genitive", "cartels"), NP_("genitive", "alliance"), NP_("genitive", "alliances"),
    NP_("genitive", "mission alliance"), NP_("genitive", "mission alliances"), NP_("genitive", "pact"), NP_("genitive", "pacts"),
)

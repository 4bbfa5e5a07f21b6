"""SPEC R11.3: the Polish manual keeps Vanguard's English game terms — the model types
(Command, Grunt, Warrior …), the rarities (Common, Rare, Unique) and the scenario names (King
of the Hill, Light the Beacon …) — and so does the Polish catalog: a term said alone is not
translated, a text naming one names it in English, and a scenario has one name, never a
Polish one beside it. Every other listed language does the same (issue 34)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from app.catalog.catalog import STARTER_DIR, read_file
from app.catalog.names import RARITY_NAMES, TYPE_NAMES
from app.core.i18n import DEFAULT_LOCALE, LOCALES, TRANSLATIONS_DIR, translations

LANGUAGES = [code for code in LOCALES if code != DEFAULT_LOCALE]
ROOT = Path(__file__).resolve().parents[2]  # the checkout

TERMS = sorted({*TYPE_NAMES, *RARITY_NAMES})
SCENARIOS = [s["name"] for s in json.loads((ROOT / "app/catalog/data/starter.json").read_text())["scenarios"]]
# What the catalog once said in place of the terms. The manual may explain a term in Polish
# ("dowódca (Command)") but never names a type, a rarity or a scenario in Polish.
POLISH_NAMES = re.compile(
    r"\b(typu|model\w*) (Dowódca|Szeregowy|Wojownik|Czarownik|Wsparcie|Duży)\b"
    r"|\bprzedmioty (pospolite|rzadkie|unikatowe)\b|^(Dowódca|Szeregowy|Pospolity|Rzadki|Unikatowy)$"
    r"|zapal sygnał|król wzgórza|patrol w kanionie",
    re.IGNORECASE,
)


def _messages(locale: str = "pl"):
    with (TRANSLATIONS_DIR / locale / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        for message in read_po(fh, locale=locale):
            if message.id:
                ids = message.id if isinstance(message.id, tuple) else (message.id,)
                strings = message.string if isinstance(message.string, tuple) else (message.string,)
                yield ids[0], strings


def test_R11_3_the_terms_and_the_manual_agree():
    """The terms this test guards are the ones the manual keeps in English."""
    manual = ROOT.parent / "shared/seeds/004_b53aa34a8f278d96.txt"
    if manual.exists():  # the seed texts sit beside the checkout, not in it
        text = manual.read_text()
        for term in ("Command", "Grunt", "Warrior", "Common", "Rare", "Unique", "King of the Hill", "Light the Beacon"):
            assert term in text, term
    assert {"Command", "Grunt", "Warrior", "Common", "Rare", "Unique"} <= set(TERMS)
    assert {"King of the Hill", "Light the Beacon"} <= set(SCENARIOS)


@pytest.mark.parametrize("locale", LANGUAGES)
def test_R11_3_a_term_said_alone_stays_english(locale):
    catalog = translations(locale)
    assert {term: catalog.gettext(term) for term in TERMS} == {term: term for term in TERMS}


@pytest.mark.parametrize("locale", LANGUAGES)
def test_R11_3_texts_name_the_terms_and_scenarios_in_english_once(locale):
    wrong = []
    for msgid, strings in _messages(locale):
        for term in TERMS:
            if re.search(rf"\b{term}\b", msgid):
                wrong += [(msgid, term, s) for s in strings if not re.search(rf"\b{term}\b", s)]
        for name in SCENARIOS:
            if name in msgid:  # the same name as often as in English: not "Polish name (English name)"
                wrong += [(msgid, name, s) for s in strings if s.count(name) != msgid.count(name)]
        if locale == "pl":  # what the Polish catalog once said instead
            wrong += [(msgid, s) for s in strings if POLISH_NAMES.search(s)]
    assert wrong == []


@pytest.mark.parametrize("locale", LANGUAGES)
def test_R11_3_a_scenario_keeps_its_english_name_and_says_its_notes_in_every_language(locale):
    """Issues 34 and 27: the starter scenarios' names are the manual's English ones in every
    language, Polish too (no "Król wzgórza"); their notes are said in each language."""
    others = [code for code in LANGUAGES if code != locale]
    for s in read_file(STARTER_DIR / "starter.json").scenarios:
        assert s.name_in(locale) == s.name, s.key
        assert s.notes_in(locale) not in {s.notes, "", *(s.notes_in(code) for code in others)}, s.key

"""R11.3: every page text and every error message exists in English and in every other
language Hideout lists (Polish, Italian, French, Russian), with each language's plural forms;
the language is negotiated from Accept-Language by Babel."""

import re

import pytest
from babel.messages.frontend import CommandLineInterface
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from app.campaigns.terms import CASES
from app.chronicle.texts import TEXTS
from app.core.errors import ERRORS
from app.core.i18n import DEFAULT_LOCALE, LOCALE_NAMES, LOCALES, TRANSLATIONS_DIR, choose_locale, negotiate, translations
from app.maps.ready.service import ready_maps

PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
LANGUAGES = [code for code in LOCALES if code != DEFAULT_LOCALE]
EVERY = ("en", "pl", "it", "fr", "ru")  # what the negotiation is tested against, listed or not yet


def _catalog(locale: str):
    with (TRANSLATIONS_DIR / locale / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        return read_po(fh, locale=locale)


def test_r11_3_polish_is_listed_and_every_language_is_named_in_its_own():
    assert LOCALES[0] == "en" and "pl" in LOCALES and set(LOCALES) <= set(EVERY)
    assert LOCALE_NAMES == {"en": "English", "pl": "Polski", "it": "Italiano", "fr": "Français", "ru": "Русский"}


@pytest.mark.parametrize("locale", LANGUAGES)
def test_r11_3_catalog_has_no_missing_or_fuzzy_entry(locale):
    problems = []
    for message in _catalog(locale):
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            problems.append(message.id)
    assert problems == []


@pytest.mark.parametrize("locale", LANGUAGES)
def test_r11_3_catalog_has_the_languages_plural_forms(locale):
    """Russian says 1 рубль, 2 рубля, 5 рублей: three forms, in the header and in every plural message."""
    catalog = _catalog(locale)
    assert catalog.num_plurals == get_plural(locale).num_plurals
    if locale in ("ru", "pl"):
        assert catalog.num_plurals == 3
    wrong = [m.id for m in catalog if m.id and isinstance(m.id, tuple) and len(m.string) != catalog.num_plurals]
    assert wrong == []


@pytest.mark.parametrize("locale", LANGUAGES)
def test_r11_3_catalog_covers_every_extracted_message(locale):
    with (TRANSLATIONS_DIR / "messages.pot").open("rb") as fh:
        template = read_po(fh)
    catalog = _catalog(locale)
    missing = [m.id for m in template if m.id and m.id not in catalog]
    assert missing == [], "run `make i18n` and translate"


def _word_family(names: set[str]) -> set[str]:
    """Some languages decline the guild and mission-alliance words (R8.2), so a translation
    may use another form of the same word: %(guild_of)s or %(guild_acc)s for %(Guild)s, say."""
    return {
        re.sub(r"(_(?:%s))$" % "|".join(CASES), "", n.lower()).removesuffix("s")
        if n.lower().startswith(("guild", "alliance"))
        else n
        for n in names
    }


@pytest.mark.parametrize("locale", LANGUAGES)
def test_r11_3_placeholders_match_english(locale):
    wrong = []
    for message in _catalog(locale):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        expected = _word_family(set(PLACEHOLDER.findall(ids[0])))
        for s in strings:
            found = _word_family(set(PLACEHOLDER.findall(s)))
            if found - expected or (len(ids) == 1 and found != expected):
                wrong.append(message.id)
    assert wrong == []


@pytest.mark.parametrize("locale", LANGUAGES)
def test_r11_3_r11_5_every_error_code_and_chronicle_text_is_translated(locale):
    catalog = translations(locale)
    untranslated = [msg for _status, msg in ERRORS.values() if catalog.gettext(msg) == msg]
    untranslated += [msg for msg in TEXTS.values() if catalog.gettext(msg) == msg]
    assert untranslated == []


def test_r11_3_language_choice_order():
    """The account's language, then the cookie's, then the browser's, then English."""
    assert choose_locale("pl", "en", "en-US") == "pl"
    assert choose_locale(None, "pl", "en-US") == "pl"
    assert choose_locale(None, None, "pl-PL,pl;q=0.9,en;q=0.8") == "pl"
    assert choose_locale(None, None, "de-DE, en;q=0.5") == "en"
    assert choose_locale(None, "xx", None) == "en"
    assert choose_locale("xx", None, "de") == "en"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("fr-CH, it;q=0.5", "fr"),
        ("it;q=0.5, fr-CH", "fr"),  # by weight, not by order
        ("ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru"),
        ("de", None),
        ("de-DE, it-IT;q=0.3", "it"),
        ("en;q=0.1, pl;q=0.9", "pl"),
        ("pl;q=0, fr", "fr"),  # q=0: not this one
        ("PL-pl", "pl"),
        ("*", None),
        ("garbage;q=abc", None),
        ("", None),
    ],
)
def test_r11_3_accept_language_is_negotiated_by_babel(header, expected):
    assert negotiate(header, EVERY) == expected


def test_r11_3_only_listed_languages_are_negotiated():
    """German asks for nothing Hideout speaks: English; a language whose catalog is not complete
    is not offered, whatever the browser asks."""
    assert choose_locale(None, None, "de") == "en"
    assert negotiate("fr-CH, it;q=0.5", ("en", "pl")) is None
    for code in LOCALES:
        assert choose_locale(None, None, f"{code}-XX, de;q=0.5") == code


@pytest.mark.parametrize("locale", EVERY)
def test_r11_3_ready_maps_are_named_in_every_language(locale):
    """The wizard's ready maps (R12.13): their names, summaries and places in every language."""
    for ready in ready_maps().values():
        assert ready.names.get(locale) and ready.summary.get(locale), (ready.key, locale)
        names = [place["name"].get(locale) for place in ready.places]
        assert all(names) and len(set(names)) == len(names), (ready.key, locale)
        if locale != "en":
            assert ready.name(locale) != ready.name("en") and ready.describe(locale) != ready.describe("en")


def test_r11_3_the_template_holds_every_message_of_the_code(tmp_path, monkeypatch):
    """The catalogs are checked against messages.pot: it must be what the code says today
    (`make i18n` writes it), or a new message could go untranslated unseen."""
    root = TRANSLATIONS_DIR.parents[1]
    monkeypatch.chdir(root)
    fresh = tmp_path / "fresh.pot"
    CommandLineInterface().run(["pybabel", "-q", "extract", "-F", "babel.cfg", "--no-location", "-o", str(fresh), "."])
    with fresh.open("rb") as fh:
        extracted = {m.id for m in read_po(fh) if m.id}
    with (TRANSLATIONS_DIR / "messages.pot").open("rb") as fh:
        committed = {m.id for m in read_po(fh) if m.id}
    assert extracted - committed == set(), (
        "run `make i18n` (the template, then what each language lacks: tools/update_catalogs.py)"
    )

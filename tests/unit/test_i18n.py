"""R11.3: every page text and every error message exists in English and Polish."""
import re

from babel.messages.pofile import read_po

from app.chronicle.texts import TEXTS
from app.core.errors import ERRORS
from app.core.i18n import TRANSLATIONS_DIR, choose_locale, parse_accept_language, translations

PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def _catalog():
    with (TRANSLATIONS_DIR / "pl" / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        return read_po(fh, locale="pl")


def test_r11_3_polish_catalog_has_no_missing_or_fuzzy_entry():
    problems = []
    for message in _catalog():
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            problems.append(message.id)
    assert problems == []


def test_r11_3_polish_catalog_covers_every_extracted_message():
    with (TRANSLATIONS_DIR / "messages.pot").open("rb") as fh:
        template = read_po(fh)
    catalog = _catalog()
    missing = [m.id for m in template if m.id and m.id not in catalog]
    assert missing == [], "run `make i18n` and translate"


def _word_family(names: set[str]) -> set[str]:
    """Polish declines the guild and mission-alliance words (R8.2), so a translation may use
    another form of the same word: %(guild_of)s for %(Guild)s, say."""
    return {n.lower().removesuffix("_of").removesuffix("s") if n.lower().startswith(("guild", "alliance")) else n for n in names}


def test_r11_3_polish_placeholders_match_english():
    wrong = []
    for message in _catalog():
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


def test_r11_3_r11_5_every_error_code_and_chronicle_text_is_translated():
    pl = translations("pl")
    untranslated = [msg for _status, msg in ERRORS.values() if pl.gettext(msg) == msg]
    untranslated += [msg for msg in TEXTS.values() if pl.gettext(msg) == msg]
    assert untranslated == []


def test_r11_3_language_choice_order():
    assert choose_locale("pl", "en", "en-US") == "pl"
    assert choose_locale(None, "pl", "en-US") == "pl"
    assert choose_locale(None, None, "pl-PL,pl;q=0.9,en;q=0.8") == "pl"
    assert choose_locale(None, None, "de-DE, en;q=0.5") == "en"
    assert choose_locale(None, "xx", None) == "en"
    assert parse_accept_language("en;q=0.1, pl;q=0.9") == "pl"
    assert parse_accept_language("garbage;q=abc") is None

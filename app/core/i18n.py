"""Translations (Babel catalogs) and the choice of a request's language."""
from __future__ import annotations

from functools import lru_cache
from io import BytesIO

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from app.core.settings import ROOT

LOCALES = ("en", "pl")
DEFAULT_LOCALE = "en"
LOCALE_NAMES = {"en": "English", "pl": "Polski"}
TRANSLATIONS_DIR = ROOT / "translations"


@lru_cache
def translations(locale: str) -> NullTranslations:
    """Catalogs are compiled in memory from the .po files, so no build step is needed."""
    po = TRANSLATIONS_DIR / locale / "LC_MESSAGES" / "messages.po"
    if locale == DEFAULT_LOCALE or not po.exists():
        return NullTranslations()
    with po.open("rb") as fh:
        catalog = read_po(fh, locale=locale)
    buf = BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return Translations(fp=buf)


def parse_accept_language(header: str | None) -> str | None:
    if not header:
        return None
    choices = []
    for part in header.split(","):
        piece = part.strip().split(";")
        tag = piece[0].strip().lower()
        q = 1.0
        for param in piece[1:]:
            if param.strip().startswith("q="):
                try:
                    q = float(param.strip()[2:])
                except ValueError:
                    q = 0.0
        choices.append((q, tag))
    for _q, tag in sorted(choices, key=lambda c: -c[0]):
        base = tag.split("-")[0]
        if base in LOCALES:
            return base
    return None


def choose_locale(user_locale: str | None, cookie: str | None, accept_language: str | None) -> str:
    for candidate in (user_locale, cookie, parse_accept_language(accept_language)):
        if candidate in LOCALES:
            return candidate
    return DEFAULT_LOCALE

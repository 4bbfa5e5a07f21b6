"""Translations (Babel catalogs) and the choice of a request's language."""

from __future__ import annotations

from functools import lru_cache
from io import BytesIO
from typing import Literal

from babel.core import negotiate_locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from app.core.settings import PACKAGE

# Every language Hideout speaks (SPEC R11.3), each named in its own language.
Locale = Literal["en", "pl", "it", "fr", "ru"]
LOCALE_NAMES = {"en": "English", "pl": "Polski", "it": "Italiano", "fr": "Français", "ru": "Русский"}
# The languages offered: one line each, listed once its catalog is complete (no missing or
# fuzzy message: tests/unit/test_i18n.py checks every listed language).
LOCALES: tuple[str, ...] = (
    "en",
    "pl",
    "it",
    "fr",
    "ru",
)
DEFAULT_LOCALE = "en"
TRANSLATIONS_DIR = PACKAGE / "translations"


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


def _preferred(header: str) -> list[str]:
    """The header's language tags, most wanted first (q=0 means "not this one")."""
    tags = []
    for part in header.split(","):
        tag, _sep, params = part.partition(";")
        q = params.strip()
        try:
            weight = float(q[2:]) if q.startswith("q=") else 1.0
        except ValueError:
            weight = 0.0
        if tag.strip() and weight > 0:
            tags.append((weight, tag.strip().lower()))
    return [tag for _weight, tag in sorted(tags, key=lambda t: -t[0])]


def negotiate(accept_language: str | None, available: tuple[str, ...] = LOCALES) -> str | None:
    """The listed language an Accept-Language header asks for (Babel's negotiation: "fr-CH"
    is French), None when it asks for none of them."""
    if not accept_language:
        return None
    return negotiate_locale(_preferred(accept_language), available, sep="-")


def choose_locale(user_locale: str | None, cookie: str | None, accept_language: str | None) -> str:
    for candidate in (user_locale, cookie, negotiate(accept_language)):
        if candidate in LOCALES:
            return candidate
    return DEFAULT_LOCALE

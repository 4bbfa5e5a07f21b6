"""Issue 34 item 5 (SPEC R11.3): logged out, the browser's language and the language menu.
The main pages in every language at 390x844 — dashboard, map, battles, a battle, company,
orders, chronicle, and the account menu — are checked and saved (lang-<code>-<page>.png) by the
player's walk in test_accessibility.py, which already visits them in each language."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.core.i18n import LOCALE_NAMES, LOCALES
from tests.e2e.campaign_setup import fits_a_phone, language_button, shot


@pytest.mark.parametrize("locale", LOCALES)
def test_e2e_r11_3_logged_out_the_browsers_language_and_the_language_menu(new_page, screenshot, locale):
    """A stranger's browser asks for its language (Accept-Language, negotiated by Babel): the
    login page comes in it, with the language menu listing every other language."""
    page = new_page(
        f"stranger-{locale}", locale={"en": "en-GB", "pl": "pl-PL", "it": "it-CH", "fr": "fr-CA", "ru": "ru-RU"}[locale]
    )
    page.goto("/login")
    expect(page.locator("html")).to_have_attribute("lang", locale)
    others = [code for code in LOCALES if code != locale]
    for code in others:
        expect(language_button(page, LOCALE_NAMES[code])).to_be_visible()
    shot(screenshot, page, f"lang-{locale}-logged-out-menu")
    fits_a_phone(page, f"the logged-out language menu in {locale}")
    page.locator("header.top").get_by_role("button", name=LOCALE_NAMES[others[0]]).click()
    expect(page.locator("html")).to_have_attribute("lang", others[0])
    fits_a_phone(page, f"the login page in {others[0]}")

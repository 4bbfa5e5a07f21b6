"""Issue 34 item 5 (SPEC R11.3): the main pages in every listed language at 390x844 —
dashboard, map, battles, a battle, company, orders, chronicle — saved to test-artifacts/
(lang-<code>-<page>.png) and checked in the browser: no button, link, label, badge or table
cell whose text runs out of its box sideways, and no page that scrolls sideways. Russian and
French run longest."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from app.core.i18n import LOCALES
from tests.e2e.campaign_setup import api, language_button, login, no_horizontal_overflow, running_campaign, shot

NAMES = {"en": "English", "pl": "Polski", "it": "Italiano", "fr": "Français", "ru": "Русский"}

# Every visible element whose text could be cut: a block's content wider than its box, or an
# inline one reaching past the page's right edge. A scrolling container (a table wrapper) is
# meant to scroll, and text only screen readers hear (.sr-only, 1 px) has no box to fit.
OVERFLOWING = """
() => {
  const found = [];
  const page = document.documentElement.clientWidth;
  const sel = "button, a.button, nav a, label, td, th, .badge, summary, h1, h2, h3, .tabs a, .flash p";
  for (const el of document.querySelectorAll(sel)) {
    const box = el.getBoundingClientRect();
    if (box.width <= 2 || box.height <= 2 || el.closest(".sr-only") || el.closest("[hidden], dialog:not([open]), details:not([open]) > :not(summary)")) continue;
    const style = getComputedStyle(el);
    if (["auto", "scroll"].includes(style.overflowX)) continue;
    if (el.closest("[data-scroll], .table-scroll, .scroll-x")) continue;
    const text = (el.innerText || el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 60);
    if (style.display === "inline") {
      if (box.right > page + 1) found.push(`${el.tagName.toLowerCase()} "${text}" ends at ${Math.round(box.right)} > ${page}`);
    } else if (el.scrollWidth > el.clientWidth + 1) {
      found.push(`${el.tagName.toLowerCase()} "${text}" is ${el.scrollWidth} wide in ${el.clientWidth}`);
    }
  }
  return found;
}
"""


def _urls(base: str, battle_id: int) -> dict[str, str]:
    return {
        "dashboard": base,
        "map": f"{base}/map",
        "battles": f"{base}/battles",
        "battle": f"{base}/battles/{battle_id}",
        "company": f"{base}/company",
        "orders": f"{base}/orders",
        "chronicle": f"{base}/chronicle",
    }


def _check(page: Page, where: str) -> None:
    no_horizontal_overflow(page, where)
    cut = page.evaluate(OVERFLOWING)
    assert cut == [], f"{where}: text overflows its box:\n" + "\n".join(cut)


@pytest.mark.parametrize("locale", LOCALES)
def test_e2e_r11_3_the_main_pages_in_each_language_fit_a_phone(new_page, screenshot, locale):
    page = new_page(f"lang-{locale}")
    setup = running_campaign(page, f"l{locale}", phase="battles")
    ork = setup.players[0]
    battles = api(page, setup.tokens[ork], "GET", f"/campaigns/{setup.cid}/battles")
    battle_id = (battles["items"] if isinstance(battles, dict) else battles)[0]["id"]
    login(page, ork)
    if locale != "en":  # the picker in the account menu saves the language on the account
        language_button(page, NAMES[locale]).click()
    expect(page.locator("html")).to_have_attribute("lang", locale)
    assert api(page, setup.tokens[ork], "GET", "/me")["locale"] == (None if locale == "en" else locale)
    for name, url in _urls(setup.base, battle_id).items():
        page.goto(url)
        expect(page.locator("html")).to_have_attribute("lang", locale)
        page.wait_for_load_state("networkidle")
        shot(screenshot, page, f"lang-{locale}-{name}")
        _check(page, f"{name} in {locale}")
    # The account menu open over the page: every language named in its own, none cut.
    page.goto(setup.base)
    language_button(page, "English" if locale != "en" else "Polski")
    shot(screenshot, page, f"lang-{locale}-account-menu")
    _check(page, f"the account menu in {locale}")


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
        expect(language_button(page, NAMES[code])).to_be_visible()
    shot(screenshot, page, f"lang-{locale}-logged-out-menu")
    _check(page, f"the logged-out language menu in {locale}")
    page.locator("header.top").get_by_role("button", name=NAMES[others[0]]).click()
    expect(page.locator("html")).to_have_attribute("lang", others[0])
    _check(page, f"the login page in {others[0]}")

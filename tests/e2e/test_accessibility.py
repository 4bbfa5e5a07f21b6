"""Accessibility with axe-core (vendored for tests only in tests/e2e/vendor): the main pages,
anonymous, as the game master and as a player, in every language (light; dark too in English and Polish),
have no serious or critical violations (WCAG 2.1 A/AA: contrast, names, labels...).

The player's walk in the light scheme also checks that the main pages fit a phone in each
language (issue 34 item 5, SPEC R11.3): no sideways scroll, no text cut, each saved to
test-artifacts/ as lang-<code>-<page>.png — one walk, not a second one over the same pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.core.i18n import LOCALE_NAMES, LOCALES
from tests.e2e.campaign_setup import Setup, api, fits_a_phone, language_button, running_campaign, shot
from tests.e2e.campaign_setup import login as _login
from tests.e2e.conftest import PHONE

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
BAD = ("serious", "critical")
BACKGROUND = "getComputedStyle(document.body).backgroundColor"


@pytest.fixture(scope="module")
def campaign(browser, live_server) -> Setup:
    """A running campaign in Battles (a battle, orders made public, an event), built once."""
    context = browser.new_context(viewport=PHONE, base_url=live_server)
    try:
        return running_campaign(context.new_page(), "ally", phase="battles")
    finally:
        context.close()


def _audited(page: Page) -> Page:
    """axe in every document the page opens, as the browser's own init script: not an inline
    <script>, so the page's Content-Security-Policy (script-src 'self') stays on and untouched.
    Sent once, not with every page (evaluating its 500 KB took a quarter of a second a page)."""
    page.context.add_init_script(path=str(AXE))
    return page


def _axe_once(page: Page, where: str) -> list[str]:
    results = page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']},
                                           resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 240))}));
    }""")
    return [
        f"{where}: [{v['impact']}] {v['id']} – {v['help']}\n      " + "\n      ".join(v["nodes"])
        for v in results
        if v["impact"] in BAD
    ]


def _axe(page: Page, where: str, dark: bool) -> list[str]:
    """axe in the light scheme and, with `dark`, again in the dark one on the same document:
    the scheme is a media query, so switching it restyles the page without loading it again."""
    problems = _axe_once(page, where)
    if dark:
        light = page.evaluate(BACKGROUND)
        page.emulate_media(color_scheme="dark")
        assert page.evaluate(BACKGROUND) != light, f"{where}: the page did not turn dark"
        problems += _axe_once(page, f"{where} [dark]")
        page.emulate_media(color_scheme="light")
    return problems


def _ensure_lang(page: Page, lang: str) -> None:
    if page.locator("html").get_attribute("lang") != lang:
        # In the account menu (issue 29), or logged out the language menu; each language named in its own (issue 34).
        language_button(page, LOCALE_NAMES[lang]).click()
        expect(page.locator("html")).to_have_attribute("lang", lang)


# Every language in the light scheme; the dark scheme's colours are the same in every language,
# so English and Polish are audited in it too, page by page in the same walk (issue 31: a walk
# of its own, with its logins, cost each of them ten seconds of the browser suite).
DARK_TOO = ("en", "pl")


@pytest.mark.parametrize("lang", LOCALES)
def test_e2e_r11_3_main_pages_have_no_serious_axe_violations(new_page, screenshot, campaign, lang):
    problems: list[str] = []
    base = campaign.base
    dark = lang in DARK_TOO

    anonymous = _audited(new_page(f"anon-{lang}", color_scheme="light"))
    anonymous.goto("/login")
    _ensure_lang(anonymous, lang)
    for path in ("/", "/login", "/register"):
        anonymous.goto(path)
        problems += _axe(anonymous, f"{path} (anonymous)", dark)

    gm = _audited(new_page(f"gm-{lang}", color_scheme="light"))
    _login(gm, campaign.gm)
    _ensure_lang(gm, lang)
    for path in (
        "/",
        base,
        f"{base}/map",
        f"{base}/orders",
        f"{base}/battles",
        f"{base}/players",
        f"{base}/rules",
        f"{base}/chronicle",
        f"{base}/events",
        f"{base}/companies",
    ):
        gm.goto(path)
        problems += _axe(gm, f"{path} (game master)", dark)

    player = _audited(new_page(f"player-{lang}", color_scheme="light"))
    ork = campaign.players[0]
    _login(player, ork)
    _ensure_lang(player, lang)
    # The picker in the account menu saved the language on the account (or it was saved before).
    assert api(player, campaign.tokens[ork], "GET", "/me")["locale"] in ({None, "en"} if lang == "en" else {lang})

    def fit(name: str) -> None:
        # The page is loaded (goto waits for it) and uses no web font; waiting for the
        # network to be idle only added half a second a page (issue 31).
        player.evaluate("document.fonts.ready.then(() => true)")
        shot(screenshot, player, f"lang-{lang}-{name}")
        fits_a_phone(player, f"{name} in {lang}")

    for path, name in (
        (base, "dashboard"),
        (f"{base}/map", "map"),
        (f"{base}/company", "company"),
        (f"{base}/shop", None),
        (f"{base}/warbands", None),
        (f"{base}/warbands/new", None),
        (f"{base}/warbands/{campaign.warband_id}/edit", None),
        (f"{base}/orders", "orders"),
        (f"{base}/battles", "battles"),
        (f"{base}/rules", None),
        (f"{base}/chronicle", "chronicle"),
    ):
        player.goto(path)
        assert player.locator("html").get_attribute("lang") == lang
        problems += _axe(player, f"{path} (player)", dark)
        if name:
            fit(name)
    player.goto(f"{base}/battles")
    battle = player.locator("main a.battle-card").first
    expect(battle).to_be_visible()
    battle.click()
    # The click does not wait for the battle page: axe must not run in the list's unloading document.
    player.wait_for_url(re.compile(r"/battles/\d+$"))
    problems += _axe(player, f"{player.url} (player's battle)", dark)
    fit("battle")
    # The account menu open over the page: every language named in its own, none cut.
    player.goto(base)
    language_button(player, "English" if lang != "en" else "Polski")
    shot(screenshot, player, f"lang-{lang}-account-menu")
    fits_a_phone(player, f"the account menu in {lang}")

    assert not problems, f"{len(problems)} serious or critical axe violations ({lang}):\n" + "\n".join(problems)

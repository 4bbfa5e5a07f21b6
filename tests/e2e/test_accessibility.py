"""Accessibility with axe-core (vendored for tests only in tests/e2e/vendor): the main pages,
anonymous, as the game master and as a player, in every language (light; dark in English and Polish),
have no serious or critical violations (WCAG 2.1 A/AA: contrast, names, labels...)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.core.i18n import LOCALE_NAMES, LOCALES
from tests.e2e.campaign_setup import Setup, language_button, running_campaign
from tests.e2e.campaign_setup import login as _login
from tests.e2e.conftest import PHONE

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
BAD = ("serious", "critical")


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


def _axe(page: Page, where: str) -> list[str]:
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


def _ensure_lang(page: Page, lang: str) -> None:
    if page.locator("html").get_attribute("lang") != lang:
        # In the account menu (issue 29), or logged out the language menu; each language named in its own (issue 34).
        language_button(page, LOCALE_NAMES[lang]).click()
        expect(page.locator("html")).to_have_attribute("lang", lang)


# Every language in the light scheme; the dark scheme's colours are the same in every language,
# so it runs in English and Polish (each run is about a minute of the browser suite).
SCHEMES = [(lang, "light") for lang in LOCALES] + [("en", "dark"), ("pl", "dark")]


@pytest.mark.parametrize(("lang", "scheme"), SCHEMES, ids=[f"{lang}-{scheme}" for lang, scheme in SCHEMES])
def test_e2e_r11_3_main_pages_have_no_serious_axe_violations(new_page, campaign, lang, scheme):
    problems: list[str] = []
    base = campaign.base

    anonymous = _audited(new_page(f"anon-{lang}-{scheme}", color_scheme=scheme))
    anonymous.goto("/login")
    _ensure_lang(anonymous, lang)
    for path in ("/", "/login", "/register"):
        anonymous.goto(path)
        problems += _axe(anonymous, f"{path} (anonymous)")

    gm = _audited(new_page(f"gm-{lang}-{scheme}", color_scheme=scheme))
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
        problems += _axe(gm, f"{path} (game master)")

    player = _audited(new_page(f"player-{lang}-{scheme}", color_scheme=scheme))
    _login(player, campaign.players[0])
    _ensure_lang(player, lang)
    for path in (
        base,
        f"{base}/map",
        f"{base}/company",
        f"{base}/shop",
        f"{base}/warbands",
        f"{base}/warbands/new",
        f"{base}/warbands/{campaign.warband_id}/edit",
        f"{base}/orders",
        f"{base}/battles",
        f"{base}/rules",
        f"{base}/chronicle",
    ):
        player.goto(path)
        assert player.locator("html").get_attribute("lang") == lang
        problems += _axe(player, f"{path} (player)")
    battle = player.locator("main a.battle-card").first
    if battle.count():
        battle.click()
        problems += _axe(player, f"{player.url} (player's battle)")

    assert not problems, f"{len(problems)} serious or critical axe violations ({lang}, {scheme}):\n" + "\n".join(problems)

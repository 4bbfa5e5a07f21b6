"""The dashboard's phase bar shows every phase name whole at 360 and 390 px, in English
and Polish („Przygotowanie”, „Zmierzch” – no "Prepar…"), and long result buttons wrap
inside the screen with padding (R2.1, R6.8)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import (
    language_button,
    running_campaign,
)
from tests.e2e.campaign_setup import (
    login as _login,
)
from tests.e2e.campaign_setup import (
    no_horizontal_overflow as _no_horizontal_overflow,
)
from tests.e2e.conftest import ARTIFACTS

PHASES = {
    "en": ["Preparation", "Orders", "Battles", "Settlement", "Twilight"],
    "pl": ["Przygotowanie", "Rozkazy", "Bitwy", "Rozliczenie", "Zmierzch"],
}


def _check_bar(page: Page, lang: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    bar = page.locator(".phase-bar")
    expect(bar.locator("span")).to_have_text(PHASES[lang])
    clipped = bar.evaluate("""bar => {
        const box = bar.parentElement.getBoundingClientRect();
        return [...bar.children].filter(s => {
            const r = s.getBoundingClientRect();
            return s.scrollWidth > s.clientWidth + 1 || r.left < box.left - 1 || r.right > box.right + 1;
        }).map(s => s.textContent);
    }""")
    assert not clipped, f"phase names cut at {width} px in {lang}: {clipped}"
    assert bar.evaluate("b => getComputedStyle(b.children[0]).textOverflow") != "ellipsis"
    _no_horizontal_overflow(page, f"the dashboard at {width} px ({lang})")


def _luminance(rgb: str) -> float:
    r, g, b = (int(n) / 255 for n in re.findall(r"\d+", rgb)[:3])
    f = lambda c: c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4  # noqa: E731
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _upcoming_contrast(page: Page) -> list[float]:
    """Text against background of the upcoming phases (their background is opaque)."""
    pairs = page.locator(".phase-bar span:not(.done):not(.current)").evaluate_all(
        "els => els.map(e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor])"
    )
    assert pairs and all(not bg.startswith("rgba") for _c, bg in pairs), pairs
    return [round(_contrast(c, bg), 2) for c, bg in pairs]


def _check_result_buttons(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    buttons = page.locator("ul.battle-todo a.button")
    expect(buttons).to_have_count(1)
    style = buttons.first.evaluate("""b => { const s = getComputedStyle(b), r = b.getBoundingClientRect();
        return {pad: parseFloat(s.paddingTop), over: b.scrollWidth > b.clientWidth + 1, right: r.right,
                vw: document.documentElement.clientWidth, h: r.height}; }""")
    assert style["pad"] >= 4 and not style["over"] and style["right"] <= style["vw"], style
    assert style["h"] >= 44, style


def test_e2e_r2_1_phase_bar_fits_at_360_px_in_english_and_polish(new_page):
    page = new_page("phases", has_touch=True)
    setup = running_campaign(page, "phb", phase="battles")
    player = setup.players[0]
    _login(page, player)
    page.goto(setup.base)
    expect(page.locator("#round-h")).to_have_text("Round 1 · Battles")
    expect(page.locator(".phase-bar span.done")).to_have_count(2)
    for width in (390, 360):
        _check_bar(page, "en", width)
        _check_result_buttons(page, width)

    page.set_viewport_size({"width": 390, "height": 844})
    language_button(page, re.compile("Polski")).click()
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.locator("#round-h")).to_have_text("Runda 1 · Bitwy")
    _check_bar(page, "pl", 390)
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / "phase-bar-pl.png"))
    _check_result_buttons(page, 390)
    _check_bar(page, "pl", 360)
    _check_result_buttons(page, 360)
    page.screenshot(path=str(ARTIFACTS / "phase-bar-pl-360.png"))

    # Upcoming phases reach 4.5:1 in the light and the dark scheme (WCAG 1.4.3).
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        ratios = _upcoming_contrast(page)
        assert len(ratios) == 2 and min(ratios) >= 4.5, (scheme, ratios)

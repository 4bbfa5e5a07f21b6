"""The GM's map editor at 390x844 in Chromium: „Mapa miejsca” makes a place's own map and
goes inside it (three levels at most), Add place mode stays on after each place, the path
hint and the way back to the wizard, and tap targets of 44 px or more (R1.2, R1.3, R9.7)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import (
    api,
)
from tests.e2e.campaign_setup import (
    api_player as _api_player,
)
from tests.e2e.campaign_setup import (
    crumbs as _crumbs,
)
from tests.e2e.campaign_setup import (
    login as _login,
)
from tests.e2e.campaign_setup import (
    marker as _marker,
)
from tests.e2e.campaign_setup import (
    mode as _mode,
)
from tests.e2e.campaign_setup import (
    no_horizontal_overflow as _no_horizontal_overflow,
)
from tests.e2e.campaign_setup import (
    open_sheet as _open_sheet,
)
from tests.e2e.campaign_setup import (
    shot as _shot,
)
from tests.e2e.campaign_setup import (
    svg as _svg,
)
from tests.e2e.campaign_setup import (
    tap as _tap,
)

GM = "edgm"


def _tap_map(page: Page, fx: float, fy: float) -> None:
    svg = _svg(page)
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    _tap(page, box["x"] + fx * box["width"], box["y"] + fy * box["height"])


def _add(page: Page, fx: float, fy: float, name: str) -> None:
    """One tap in Add place mode (already on), the sheet's name, Add place."""
    _tap_map(page, fx, fy)
    sheet = page.locator("#sheet")
    expect(sheet.get_by_role("heading", name="New place")).to_be_visible()
    sheet.get_by_label("Name").fill(name)
    with page.expect_navigation():
        sheet.get_by_role("button", name="Add place", exact=True).click()
    expect(_marker(page, name)).to_have_count(1)
    expect(page.get_by_role("alert")).to_have_count(0)


def _place_map(page: Page, name: str) -> None:
    sheet = _open_sheet(page, name)
    expect(sheet.get_by_role("link", name="Enter inside")).to_have_count(0)
    with page.expect_navigation():
        sheet.get_by_role("button", name="Place map", exact=True).click()
    expect(page.locator("nav.crumbs a[aria-current=page]")).to_have_text(name)
    expect(page.get_by_role("alert")).to_have_count(0)


def _heights(page: Page, selector: str) -> list[tuple[str, float]]:
    return page.eval_on_selector_all(selector, "els => els.map(e => [e.textContent.trim(), e.getBoundingClientRect().height])")


def test_e2e_r1_2_r1_3_r9_7_place_map_button_add_mode_and_tap_targets(new_page, screenshot):
    gm = new_page("editor", has_touch=True)
    token = _api_player(gm, GM)
    cid = api(gm, token, "POST", "/campaigns", {"name": "Editor Marches", "modules": {"paths": True}}, status=201)["id"]
    base = f"/campaigns/{cid}"
    _login(gm, GM)
    gm.goto(f"{base}/map")
    expect(_svg(gm)).to_be_visible()
    # Setup is unfinished: a way back to the wizard's Map step; the paths module: how to draw one.
    back = gm.get_by_role("link", name="Back to setup")
    expect(back).to_have_attribute("href", f"{base}/setup/3")
    expect(gm.locator("#path-how")).to_have_text(
        "To draw a path, choose Draw path, tap the place where it starts, then the place where it leads."
    )

    # Add place mode stays on: three places, one tap each, the mode chosen once.
    _mode(gm, "Add place")
    for fx, fy, name in ((0.25, 0.3, "Greyhaven"), (0.75, 0.3, "Saltmarsh"), (0.5, 0.75, "Wolf Tor")):
        _add(gm, fx, fy, name)
        expect(gm.get_by_role("toolbar", name="Map tools").get_by_role("radio", name="Add place", exact=True)).to_be_checked()
        expect(gm.locator("#map-hint")).to_have_text("Tap the map where the new place lies.")
    expect(gm.locator("#map a.pl")).to_have_count(3)
    # Leaving the mode leaves it for good: a reload stays in View.
    _mode(gm, "View")
    gm.reload()
    expect(gm.get_by_role("toolbar", name="Map tools").get_by_role("radio", name="View", exact=True)).to_be_checked()

    # „Mapa miejsca”: Greyhaven gets its own map (no image: the built-in background) and
    # the editor goes inside it.
    _place_map(gm, "Greyhaven")
    greyhaven = re.search(r"of=(\d+)", gm.url).group(1)
    assert gm.url.endswith(f"{base}/map?of={greyhaven}"), gm.url
    expect(_crumbs(gm)).to_have_text(re.compile(r"^\s*Campaign map\s*›\s*Greyhaven\s*$"))
    expect(_svg(gm).locator("rect.bg")).to_have_count(1)
    _mode(gm, "Add place")
    _add(gm, 0.4, 0.4, "Harbour")
    _add(gm, 0.7, 0.6, "Temple Hill")
    _mode(gm, "View")
    _place_map(gm, "Harbour")
    expect(_crumbs(gm)).to_have_text(re.compile(r"^\s*Campaign map\s*›\s*Greyhaven\s*›\s*Harbour\s*$"))
    _mode(gm, "Add place")
    _add(gm, 0.5, 0.5, "Pier")
    # The third level: no button, and why.
    sheet = _open_sheet(gm, "Pier")
    expect(sheet.get_by_role("button", name="Place map")).to_have_count(0)
    expect(sheet).to_contain_text("Maps go three levels deep at most (land, city, district).")
    _no_horizontal_overflow(gm, "a district's sheet")

    # Tap targets: breadcrumbs, the place list's links and "Enter inside" are 44 px or taller.
    _crumbs(gm).get_by_role("link", name="Greyhaven").click()
    expect(_crumbs(gm)).to_have_text(re.compile(r"^\s*Campaign map\s*›\s*Greyhaven\s*$"))
    crumbs = _heights(gm, "nav.crumbs a")
    links = _heights(gm, "section:has(#list-h) li a")
    assert len(crumbs) == 2 and len(links) == 3, (crumbs, links)  # Harbour, Enter inside, Temple Hill
    assert any(text == "Enter inside" for text, _h in links), links
    small = [(t, h) for t, h in crumbs + links if h < 44]
    assert not small, f"tap targets under 44 px: {small}"
    sheet = _open_sheet(gm, "Harbour")
    enter = sheet.get_by_role("link", name="Enter inside")
    assert enter.bounding_box()["height"] >= 44
    _shot(screenshot, gm, "map-editor-place-map")

    # Back to the wizard's Map step.
    gm.get_by_role("link", name="Back to setup").click()
    expect(gm.get_by_role("heading", name=re.compile(r"^Step 3 of 6"))).to_be_visible()

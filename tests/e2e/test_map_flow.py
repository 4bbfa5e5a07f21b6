"""The GM builds nested maps with paths on the map page by tapping, at 390x844 in
Chromium; the players then see who holds which place."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import (
    api_player as _api_player,
)
from tests.e2e.campaign_setup import (
    centre as _centre,
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
    register as _register,
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
from tests.e2e.campaign_setup import (
    tap_marker as _tap_marker,
)

CAMPAIGN = "Ashes over Ravenhold"
GM, ANNA, BORYS = "mapgm", "mapanna", "mapborys"


# --- helpers -----------------------------------------------------------------------


def _touch(page: Page, *fingers: list[tuple[float, float]]) -> None:
    """Fingers moving together on the touchscreen: each finger is a list of points, the
    first where it touches down, the last where it lifts."""
    cdp = page.context.new_cdp_session(page)
    try:
        steps = max(len(f) for f in fingers)

        def points(i):
            return [{"x": f[min(i, len(f) - 1)][0], "y": f[min(i, len(f) - 1)][1], "id": n} for n, f in enumerate(fingers)]

        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": points(0)})
        for i in range(1, steps):
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": points(i)})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def _line(a: tuple[float, float], b: tuple[float, float], steps: int = 8) -> list[tuple[float, float]]:
    return [(a[0] + (b[0] - a[0]) * i / steps, a[1] + (b[1] - a[1]) * i / steps) for i in range(steps + 1)]


def _add_place_by_tap(
    page: Page, fx: float, fy: float, name: str, *, income: int = 0, hideout: bool = False, entry: bool = False
) -> None:
    """In Add place mode, taps the empty map at (fx, fy) of its box and fills the New place sheet."""
    _mode(page, "Add place")
    svg = _svg(page)
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    _tap(page, box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    sheet = page.locator("#sheet")
    expect(sheet.get_by_role("heading", name="New place")).to_be_visible()
    # The sheet has settled once its name field holds the focus (typing earlier may land elsewhere).
    expect(sheet.get_by_label("Name")).to_be_focused()
    # The sheet carries the tapped spot in percent of the map.
    x = float(sheet.get_by_label("Position x (%)").input_value())
    y = float(sheet.get_by_label("Position y (%)").input_value())
    assert abs(x - fx * 100) < 3 and abs(y - fy * 100) < 3, (name, x, y, fx, fy)
    sheet.get_by_label("Name").fill(name)
    sheet.get_by_label("Income per round").fill(str(income))
    if hideout:
        sheet.get_by_label("Hideout place").check()
    entry_box = sheet.get_by_label("Entry from the parent place")
    # Only a place's own map offers the entry mark (the paths module is on).
    expect(entry_box).to_have_count(1 if "of=" in page.url else 0)
    if entry:
        entry_box.check()
    with page.expect_navigation():
        sheet.get_by_role("button", name="Add place", exact=True).click()
    expect(_marker(page, name)).to_have_count(1)
    expect(page.get_by_role("alert")).to_have_count(0)


def _give_own_map(page: Page, name: str) -> None:
    sheet = _open_sheet(page, name)
    expect(sheet.get_by_role("link", name="Enter inside")).to_have_count(0)
    sheet.locator("summary", has_text=f"Edit {name}").click()
    sheet.get_by_label("Own map (places inside this place)").check()
    with page.expect_navigation():
        sheet.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("alert")).to_have_count(0)


def _enter_inside(page: Page, name: str) -> None:
    listing = page.locator("section", has=page.get_by_role("heading", name="Places on this map"))
    row = listing.locator("li").filter(has=page.get_by_role("link", name=name, exact=True))
    row.get_by_role("link", name="Enter inside").click()
    expect(page.locator("nav.crumbs a[aria-current=page]")).to_have_text(name)


def _view_box(page: Page) -> list[float]:
    return [float(n) for n in _svg(page).get_attribute("viewBox").split()]


# --- the test ----------------------------------------------------------------------


def test_e2e_r1_2_r1_3_r9_7_gm_builds_nested_maps_with_paths_and_players_see_owners(new_page, screenshot):
    """R1.2 (the GM places places on the map by tapping, flags hideout places ⚑ and
    moves them), R1.3 (a place gets its own map, three levels at most, with breadcrumbs
    back up; an entry point joins a map to its parent place) and R9.7 (paths drawn
    between places, two-way or one-way), all on the map page at 390x844 in Chromium;
    the players then see the places' owners on the map, the list and the sheet."""
    # Phones: taps are touchscreen taps (see _tap), drags and pinches touch events.
    gm, anna, borys = (new_page(name, has_touch=True) for name in ("gm", "anna", "borys"))
    tokens = {ANNA: _api_player(anna, ANNA), BORYS: _api_player(borys, BORYS)}

    # --- the GM and the wizard, straight through -------------------------------------
    _register(gm, GM)
    gm.get_by_role("link", name="New campaign").click()
    gm.get_by_label("Campaign name").fill(CAMPAIGN)
    gm.get_by_role("button", name="Save and continue").click()
    expect(gm.get_by_role("heading", name="Step 2 of 6: Players")).to_be_visible()
    cid = int(re.search(r"/campaigns/(\d+)/setup/2", gm.url).group(1))
    base = f"/campaigns/{cid}"
    gm.get_by_label("Number of players").fill("2")
    for step in (3, 4, 5, 6):
        gm.get_by_role("button", name="Save and continue").click()
        expect(gm.get_by_role("heading", name=re.compile(rf"^Step {step} of 6"))).to_be_visible()
    gm.get_by_label("Paths between places").check()
    gm.get_by_role("button", name="Finish setup").click()
    expect(gm.get_by_role("heading", name="What to do now")).to_be_visible()

    # --- the top map: three places by tapping (R1.2) ----------------------------------
    gm.get_by_role("navigation", name="Campaign").get_by_role("link", name="Map").click()
    expect(_svg(gm)).to_be_visible()
    expect(_crumbs(gm)).to_have_text(re.compile(r"^\s*Campaign map\s*$"))
    toolbar = gm.get_by_role("toolbar", name="Map tools")
    for mode in ("View", "Move", "Add place", "Draw path"):
        expect(toolbar.get_by_role("radio", name=mode, exact=True)).to_have_count(1)
    expect(gm.locator("#map a.pl")).to_have_count(0)
    _add_place_by_tap(gm, 0.2, 0.25, "Ravenhold", income=5, hideout=True)
    _add_place_by_tap(gm, 0.8, 0.3, "Ember Docks", income=4, hideout=True)
    _add_place_by_tap(gm, 0.5, 0.7, "Old Keep", income=3)
    expect(gm.locator("#map a.pl")).to_have_count(3)
    transforms = {n: _marker(gm, n).get_attribute("transform") for n in ("Ravenhold", "Ember Docks", "Old Keep")}
    assert len(set(transforms.values())) == 3, transforms
    expect(_marker(gm, "Ravenhold").locator("text.i")).to_have_text("⚑")
    expect(_marker(gm, "Ember Docks").locator("text.i")).to_have_text("⚑")
    expect(_marker(gm, "Old Keep").locator("text.i")).to_have_count(0)
    # Left to right as tapped.
    xs = {n: float(re.match(r"translate\(([\d.]+) ([\d.]+)\)", t).group(1)) for n, t in transforms.items()}
    assert xs["Ravenhold"] < xs["Old Keep"] < xs["Ember Docks"], xs

    # --- paths (R9.7): tap one place, then another --------------------------------
    for a, b in (("Ravenhold", "Old Keep"), ("Ember Docks", "Old Keep")):
        _mode(gm, "Draw path")
        expect(gm.locator("#map-hint")).to_have_text("Tap the place where the path starts.")
        _tap_marker(gm, a)
        expect(_marker(gm, a)).to_have_class(re.compile(r"\bsel\b"))
        expect(gm.locator("#map-hint")).to_have_text("Now tap the place where it leads.")
        with gm.expect_navigation():
            _tap_marker(gm, b)
    expect(gm.locator("#map line.w")).to_have_count(2)
    expect(gm.locator("#map line.w.o")).to_have_count(0)

    # Ember Docks -> Old Keep becomes one-way through Ember Docks' sheet.
    sheet = _open_sheet(gm, "Ember Docks")
    paths = sheet.locator("details", has=gm.locator("summary", has_text="Paths"))
    expect(paths).to_have_attribute("open", "")
    expect(paths.locator("li")).to_have_count(1)
    expect(paths.locator("li").first).to_contain_text("Ember Docks ↔ Old Keep")
    sheet.scroll_into_view_if_needed()
    _no_horizontal_overflow(gm, "map page with a place's sheet")
    _shot(screenshot, gm, "map-sheet")
    with gm.expect_navigation():
        paths.get_by_role("button", name="Make one-way").click()
    expect(gm.locator("#map line.w")).to_have_count(2)
    expect(gm.locator("#map line.w.o")).to_have_count(1)
    sheet = _open_sheet(gm, "Old Keep")
    expect(sheet.locator("details", has=gm.locator("summary", has_text="Paths")).locator("li")).to_have_text(
        [re.compile(r"Old Keep ↔ Ravenhold"), re.compile(r"Ember Docks → Old Keep")]
    )

    gm.reload()  # the sheet closed
    expect(gm.locator("#sheet")).to_be_empty()

    # --- nested maps (R1.3) --------------------------------------------------------
    _give_own_map(gm, "Old Keep")
    expect(_marker(gm, "Old Keep")).to_have_class(re.compile(r"\bm\b"))
    old_keep_id = _marker(gm, "Old Keep").get_attribute("id")[1:]
    sheet = _open_sheet(gm, "Old Keep")
    expect(sheet.get_by_role("link", name="Enter inside")).to_be_visible()
    sheet.get_by_role("link", name="Enter inside").click()
    expect(_crumbs(gm)).to_have_text(re.compile(r"^\s*Campaign map\s*›\s*Old Keep\s*$"))
    assert gm.url.endswith(f"{base}/map?of={old_keep_id}"), gm.url
    expect(gm.locator("#map a.pl")).to_have_count(0)
    _add_place_by_tap(gm, 0.3, 0.3, "Keep Gate", entry=True)
    _add_place_by_tap(gm, 0.7, 0.6, "Great Hall", income=2)
    expect(_marker(gm, "Keep Gate")).to_have_class(re.compile(r"\be\b"))
    expect(_marker(gm, "Keep Gate").locator("text.i")).to_have_text("⇧")
    sheet = _open_sheet(gm, "Keep Gate")
    expect(sheet).to_contain_text("entry from the parent place")
    _no_horizontal_overflow(gm, "Old Keep's map")
    _shot(screenshot, gm, "map-submap")

    _give_own_map(gm, "Great Hall")
    expect(_crumbs(gm)).to_have_text(re.compile(r"^\s*Campaign map\s*›\s*Old Keep\s*$"))
    _enter_inside(gm, "Great Hall")
    expect(_crumbs(gm)).to_have_text(re.compile(r"^\s*Campaign map\s*›\s*Old Keep\s*›\s*Great Hall\s*$"))
    _add_place_by_tap(gm, 0.5, 0.45, "Vault", income=1)

    # A third-level place cannot have a map of its own: the box is not offered (the API
    # refuses it too, see tests/api/test_map_api.py).
    sheet = _open_sheet(gm, "Vault")
    sheet.locator("summary", has_text="Edit Vault").click()
    expect(sheet.get_by_label("Name")).to_be_visible()
    expect(sheet.get_by_label("Own map (places inside this place)")).to_have_count(0)
    expect(_marker(gm, "Vault")).not_to_have_class(re.compile(r"\bm\b"))
    expect(gm.get_by_role("link", name="Enter inside")).to_have_count(0)

    # The breadcrumbs lead back up.
    _crumbs(gm).get_by_role("link", name="Old Keep").click()
    expect(_crumbs(gm)).to_have_text(re.compile(r"^\s*Campaign map\s*›\s*Old Keep\s*$"))
    expect(gm.locator("#map a.pl")).to_have_count(2)
    _crumbs(gm).get_by_role("link", name="Campaign map").click()
    expect(_crumbs(gm)).to_have_text(re.compile(r"^\s*Campaign map\s*$"))
    assert gm.url.endswith(f"{base}/map"), gm.url
    expect(gm.locator("#map a.pl")).to_have_count(3)
    expect(gm.locator("#map line.w")).to_have_count(2)

    # --- Move mode: drag Old Keep --------------------------------------------------
    before = _marker(gm, "Old Keep").get_attribute("transform")
    _mode(gm, "Move")
    _svg(gm).scroll_into_view_if_needed()
    x, y = _centre(_marker(gm, "Old Keep").locator("circle"))
    _touch(gm, _line((x, y), (x + 40, y - 20)))
    expect(gm.locator("#map-hint")).to_have_text("Saved.")
    gm.reload()
    after = _marker(gm, "Old Keep").get_attribute("transform")
    assert after != before, (before, after)
    (bx, by), (ax, ay) = (tuple(map(float, re.findall(r"[\d.]+", t))) for t in (before, after))
    assert ax > bx + 20 and ay < by - 10, (before, after)
    expect(gm.locator("#map line.w")).to_have_count(2)
    _no_horizontal_overflow(gm, "top map (GM)")
    _shot(screenshot, gm, "map-top-gm")

    # --- players join and claim hideouts ------------------------------------------------
    gm.get_by_role("navigation", name="Campaign").get_by_role("link", name="Players").click()
    for nickname in (ANNA, BORYS):
        gm.get_by_role("region", name="Invite a player").get_by_label("Nickname").fill(nickname)
        gm.get_by_role("button", name="Invite", exact=True).click()
        expect(gm.get_by_role("status")).to_have_text(f"{nickname} is invited.")
    for page, nickname in ((anna, ANNA), (borys, BORYS)):
        response = page.request.post(
            f"/api/v1/campaigns/{cid}/invitations/accept", headers={"Authorization": f"Bearer {tokens[nickname]}"}
        )
        assert response.status == 200, (response.status, response.text())
        _login(page, nickname)

    gm.goto(base)
    gm.get_by_role("button", name="Open hideout selection", exact=True).click()
    gm.get_by_role("dialog").get_by_role("button", name="Open hideout selection").click()  # asks first
    expect(gm.get_by_role("button", name="Start the campaign", exact=True)).to_be_visible()
    for page, place in ((anna, "Ravenhold"), (borys, "Ember Docks")):
        page.goto(base)
        section = page.locator("section", has=page.get_by_role("heading", name="Your hideout"))
        section.locator("li").filter(has_text=place).get_by_role("button", name="Claim").click()
        expect(section).to_contain_text(f"Your hideout is at {place}.")
    gm.goto(base)
    gm.get_by_role("button", name="Start the campaign", exact=True).click()
    gm.get_by_role("dialog").locator(".confirm-ok").click()  # a one-way step asks first (issue 29, R11.6)
    expect(gm.locator("#round-h")).to_have_text("Round 1 · Preparation")

    # --- a player's map ------------------------------------------------------------
    anna.goto(base)
    anna.get_by_role("navigation", name="Campaign").get_by_role("link", name="Map").click()
    expect(_svg(anna)).to_be_visible()
    expect(anna.get_by_role("radio")).to_have_count(0)
    expect(anna.get_by_text("Add place", exact=True)).to_have_count(0)
    expect(anna.locator("#map a.pl")).to_have_count(3)
    expect(anna.locator("#map line.w")).to_have_count(2)
    expect(anna.locator("#map line.w.o")).to_have_count(1)
    expect(_marker(anna, "Ravenhold")).to_have_class(re.compile(r"(^| )o0( |$)"))
    expect(_marker(anna, "Ember Docks")).to_have_class(re.compile(r"(^| )o1( |$)"))
    expect(_marker(anna, "Old Keep")).to_have_class(re.compile(r"(^| )u( |$)"))
    for name in ("Ravenhold", "Ember Docks"):
        expect(_marker(anna, name)).not_to_have_class(re.compile(r"(^| )u( |$)"))
        expect(_marker(anna, name).locator("text.i")).to_have_text("⌂")
    listing = anna.locator("section", has=anna.get_by_role("heading", name="Places on this map")).locator("li")
    expect(listing.filter(has_text="Ravenhold")).to_contain_text(ANNA)
    expect(listing.filter(has_text="Ember Docks")).to_contain_text(BORYS)
    expect(listing.filter(has_text="Old Keep")).not_to_contain_text(re.compile(f"{ANNA}|{BORYS}"))
    expect(listing.filter(has_text="Old Keep").get_by_role("link", name="Enter inside")).to_be_visible()

    sheet = _open_sheet(anna, "Ravenhold")
    expect(sheet).to_contain_text(f"held by {ANNA}")
    expect(sheet.locator("summary")).to_have_count(0)  # no editing for players
    sheet = _open_sheet(anna, "Ember Docks")
    expect(sheet).to_contain_text(f"held by {BORYS}")

    # Zoom: + narrows the view box, Fit restores the whole map; two fingers pinch.
    full = _view_box(anna)
    assert full[:3] == [0, 0, 1000], full
    _svg(anna).scroll_into_view_if_needed()
    cx, cy = _centre(_svg(anna))
    _touch(anna, _line((cx - 30, cy), (cx - 120, cy)), _line((cx + 30, cy), (cx + 120, cy)))
    pinched = _view_box(anna)
    assert pinched[2] < 600, (pinched, full)  # fingers 4x further apart: the map about 4x closer
    anna.get_by_role("button", name="Fit").click()
    assert _view_box(anna) == full, (_view_box(anna), full)
    anna.get_by_role("button", name="Zoom in").click()
    zoomed = _view_box(anna)
    assert zoomed[2] < 1000 and zoomed[3] < full[3], zoomed
    anna.get_by_role("button", name="Zoom out").click()
    assert _view_box(anna)[2] > zoomed[2]
    anna.get_by_role("button", name="Zoom in").click()
    anna.get_by_role("button", name="Fit").click()
    assert _view_box(anna) == full, (_view_box(anna), full)

    _no_horizontal_overflow(anna, "the player's map")
    _shot(screenshot, anna, "map-player")

    # The player can go inside Old Keep too, and back.
    listing.filter(has_text="Old Keep").get_by_role("link", name="Enter inside").click()
    expect(_crumbs(anna)).to_have_text(re.compile(r"^\s*Campaign map\s*›\s*Old Keep\s*$"))
    expect(anna.locator("#map a.pl")).to_have_count(2)
    _no_horizontal_overflow(anna, "the player's view of Old Keep")

    # --- after a drag, the place's edit form still saves -------------------------------
    # The drag stores the position with two decimals; the form's x/y inputs must accept
    # it, or the browser refuses to submit (found at 61.24 against step="0.1").
    gm.goto(f"{base}/map")
    sheet = _open_sheet(gm, "Old Keep")
    sheet.locator("summary", has_text="Edit Old Keep").click()
    form = sheet.locator("form", has=gm.get_by_role("button", name="Save", exact=True))
    invalid = form.evaluate(
        "f => [...f.elements].filter(e => e.willValidate && !e.checkValidity())"
        ".map(e => `${e.name}=${e.value}: ${e.validationMessage}`)"
    )
    assert not invalid, f"Old Keep's edit form cannot be submitted after a drag: {invalid}"
    sheet.get_by_label("Income per round").fill("6")
    with gm.expect_navigation():
        sheet.get_by_role("button", name="Save", exact=True).click()
    expect(gm.get_by_role("alert")).to_have_count(0)
    expect(_marker(gm, "Old Keep").locator("text.n")).to_have_text("Old Keep · 6")
    assert _marker(gm, "Old Keep").get_attribute("transform") == after


def test_e2e_r1_2_r9_7_mouse_clicks_open_the_sheet_and_draw_paths(new_page):
    """R1.2, R9.7 with a mouse (a desktop GM): a click on a marker opens its sheet, and
    two clicks in Draw path mode make a path."""
    gm = new_page("gm-mouse")
    _register(gm, "mousegm")
    cid = gm.request.post(
        "/api/v1/campaigns", headers={"X-CSRF-Token": _csrf(gm)}, data={"name": "Mouse", "modules": {"paths": True}}
    ).json()["id"]
    for name, x, y in (("North", 30, 30), ("South", 70, 70)):
        r = gm.request.post(
            f"/api/v1/campaigns/{cid}/places", headers={"X-CSRF-Token": _csrf(gm)}, data={"name": name, "x": x, "y": y}
        )
        assert r.status == 201, r.text()
    gm.goto(f"/campaigns/{cid}/map")
    _marker(gm, "North").click()
    expect(gm.locator("#sheet")).to_contain_text("North")
    expect(_marker(gm, "North")).to_have_class(re.compile(r"\bsel\b"))
    gm.locator("#sheet [data-close-sheet]").click()
    _mode(gm, "Draw path")
    _marker(gm, "North").click()
    with gm.expect_navigation():
        _marker(gm, "South").click()
    expect(gm.locator("#map line.w")).to_have_count(1)


def _csrf(page: Page) -> str:
    if "/campaigns" not in page.url and page.url[-1:] != "/":
        page.goto("/")
    return page.evaluate("JSON.parse(document.body.getAttribute('data-hx-headers'))['X-CSRF-Token']")

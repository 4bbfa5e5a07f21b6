"""Warband movement at 390x844 in Chromium (R9.8 with R9.7 paths): a player sends a warband
along a path from its hideout to a free place on the send page, the GM plays the round to its
end through the API (Battles, Settlement, Twilight, End round), and the map then shows the
warband at its new place — in English and in Polish."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import (
    BRIDGE,
    HOLD,
    KEEP,
    language_button,
    running_campaign,
)
from tests.e2e.campaign_setup import (
    api as _api,
)
from tests.e2e.campaign_setup import (
    login as _login,
)
from tests.e2e.campaign_setup import (
    marker as _marker,
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
    tab as _tab,
)

MARSH = "Black Marsh"


def _badge(page: Page, name: str):
    """The count of warbands drawn on a place's marker."""
    return _marker(page, name).locator("g.wb text")


def test_e2e_r9_8_r9_7_a_warband_moves_along_a_path_and_stands_at_its_new_place_after_the_round(new_page, screenshot):
    """R9.8 (a new warband gathers in its player's hideout; the send page offers only the moves
    from where it stands — with R9.7 paths, one path on; orders stay secret, so the map still
    shows it at home until the round ends; after End round it stands where it got to, a public
    position drawn on the map and listed on the place's sheet), at 390x844, English and Polish."""
    ork = new_page("ork", has_touch=True)
    setup = running_campaign(ork, "mv", modules={"movement": True, "paths": True})
    g, name = setup.tokens[setup.gm], setup.players[0]
    band = f"{name} band"
    cid, base = setup.cid, setup.base
    marsh = _api(
        ork,
        g,
        "POST",
        f"/campaigns/{cid}/places",
        {"name": MARSH, "x": 25, "y": 65, "income": 2, "hideout_slot": False},
        status=201,
    )["id"]
    _api(ork, g, "POST", f"/campaigns/{cid}/paths", {"from_id": setup.places[HOLD], "to_id": marsh}, status=201)
    _api(ork, g, "POST", f"/campaigns/{cid}/paths", {"from_id": setup.places[KEEP], "to_id": setup.places[BRIDGE]}, status=201)
    _api(ork, g, "POST", f"/campaigns/{cid}/phase", {"phase": "orders"})

    # --- the player sends the warband one path on ---------------------------------------------
    _login(ork, name)
    ork.goto(base)
    _tab(ork, "Warbands").tap()
    card = ork.locator(f"article#w{setup.warband_id}")
    expect(card.locator("p.where")).to_have_text(f"At {HOLD}")
    card.get_by_role("link", name="Send", exact=True).tap()
    expect(ork.get_by_role("heading", name=f"Send {band}")).to_be_visible()
    expect(ork.locator("p.where")).to_have_text(f"{band} sets out from {HOLD}.")
    expect(ork.get_by_text("a warband without an order defends the place where it stands")).to_be_visible()
    choices = ork.locator("input[name=target]:not([disabled])")
    expect(choices).to_have_count(1)  # Black Marsh only: no path leads from Skull Hold to the bridge
    expect(ork.get_by_text("Ambush at the Bridge")).to_have_count(0)
    _no_horizontal_overflow(ork, "the send page")
    _shot(screenshot, ork, "movement-send-page")
    ork.locator("label.pick-model").filter(has_text=MARSH).tap()
    ork.get_by_role("button", name="Send the warband").tap()
    ork.get_by_role("dialog").locator(".confirm-ok").tap()  # final for the round: asked first (issue 29, R11.6)
    expect(ork.locator("#flash")).to_contain_text(f"{band} sent to {MARSH}.")

    # Orders stay secret: the map still shows the warband at home.
    _tab(ork, "Map").tap()
    expect(_badge(ork, HOLD)).to_have_text("1")
    expect(_badge(ork, MARSH)).to_have_count(0)

    # --- the GM plays the round to its end through the API ------------------------------------
    for phase in ("battles", "settlement", "twilight"):
        _api(ork, g, "POST", f"/campaigns/{cid}/phase", {"phase": phase})
    assert _api(ork, g, "GET", f"/campaigns/{cid}/battles")["items"] == []  # nobody met the warband there
    _api(ork, g, "POST", f"/campaigns/{cid}/end-round", {"round": 1})
    positions = {p["warband_id"]: p["place_id"] for p in _api(ork, g, "GET", f"/campaigns/{cid}/map")["warband_positions"]}
    assert positions[setup.warband_id] == marsh, positions

    # --- the map shows it at its new place -------------------------------------------------------
    ork.goto(f"{base}/map")
    expect(_badge(ork, MARSH)).to_have_text("1")
    expect(_badge(ork, KEEP)).to_have_text("1")  # the other player's warband, at home
    expect(_badge(ork, HOLD)).to_have_count(0)
    sheet = _open_sheet(ork, MARSH)
    here = sheet.locator("section.warbands-here")
    expect(here.get_by_role("heading", name="Warbands here")).to_be_visible()
    expect(here.locator("li")).to_have_count(1)
    expect(here.locator("li")).to_contain_text(f"{band} · {name}")
    _no_horizontal_overflow(ork, "the map with positions")
    _shot(screenshot, ork, "movement-map")
    _tab(ork, "Warbands").tap()
    expect(ork.locator(f"article#w{setup.warband_id} p.where")).to_have_text(f"At {MARSH}")
    # Unopposed, it took the place in Twilight and set up a hideout there (R7.3): its roster may change.
    expect(ork.locator(f"article#w{setup.warband_id}")).not_to_contain_text("its roster changes only in a hideout")

    # --- in Polish ------------------------------------------------------------------------------------
    _tab(ork, "Map").tap()
    expect(ork.locator(".map-places")).to_be_visible()  # the map is drawn before its menu is opened
    language_button(ork, "Polski").click()
    expect(ork.locator("html")).to_have_attribute("lang", "pl")
    expect(ork.locator(".map-places")).to_contain_text(re.compile(r"1 banda"))
    sheet = _open_sheet(ork, MARSH)
    here = sheet.locator("section.warbands-here")
    expect(here.get_by_role("heading", name="Bandy w tym miejscu")).to_be_visible()
    expect(here.locator("li")).to_contain_text(f"{band} · {name}")
    _no_horizontal_overflow(ork, "the map with positions in Polish")
    _shot(screenshot, ork, "movement-map-pl")

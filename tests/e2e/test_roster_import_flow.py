"""R12.15 (issue 32): a player's company of ten models from a roster file in at most 5 taps, at
390x844 in Chromium: the file input and the file, Import, then the confirm step's one button.
The roster is built from the BSData Orcs catalogue in ../shared; this server's catalog has only
the starter Orcs, which the roster's catalogue is matched to by name."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.builders.rosters import roster_xml
from tests.e2e.campaign_setup import api, api_player, login, no_horizontal_overflow, shot

ANNA, GM = "rianna", "rigm"
TEN = [("Orclings", 3), ("Ax", 3), "Krusher", "Greatax", "Skulk", "Morax"]


def test_e2e_r12_15_ten_models_from_a_roster_file_in_four_taps(new_page, screenshot, tmp_path):
    gm, anna = new_page("gm"), new_page("anna")
    g, a = api_player(gm, GM), api_player(anna, ANNA)
    cid = api(gm, g, "POST", "/campaigns", {"name": "Roster night", "starting_gold": 500, "gold_per_point": 1}, status=201)["id"]
    api(gm, g, "POST", f"/campaigns/{cid}/invitations", {"nickname": ANNA}, status=201)
    api(anna, a, "POST", f"/campaigns/{cid}/invitations/accept")
    roster = tmp_path / "orcs.ros"
    roster.write_bytes(roster_xml("Orcs", TEN, unknown=("Homebrew Hero",)))
    login(anna, ANNA)
    anna.goto(f"/campaigns/{cid}/company")

    taps = 0
    section = anna.get_by_role("region", name="Import a roster file")
    section.get_by_label("Roster file").set_input_files(str(roster))
    taps += 2  # the file input, then the file in the phone's picker
    no_horizontal_overflow(anna, "the company page with its roster form")
    section.get_by_role("button", name="Import").click()
    taps += 1
    expect(anna.get_by_role("heading", name="Buy the roster's models?")).to_be_visible()
    total = 3 * 10 + 3 * 12 + 34 + 16 + 12 + 22  # the starter Orcs' points, 1 gold a point
    expect(anna.get_by_role("row", name=re.compile(r"Orclings 3 30"))).to_be_visible()
    expect(anna.locator("main")).to_contain_text(f"Your gold: 500 now, {500 - total} after.")
    expect(anna.locator("main")).to_contain_text("Not in the catalog, so not bought: Homebrew Hero.")
    no_horizontal_overflow(anna, "the roster's confirm step")
    shot(screenshot, anna, "r12_15_roster_confirm")
    anna.get_by_role("button", name=f"Buy for {total} gold").click()
    taps += 1

    expect(anna.locator("#flash")).to_contain_text(f"Bought from the roster for {total} gold: Orclings ×3, Ax ×3, Krusher")
    expect(anna.locator("#flash")).to_contain_text("Not in the catalog, so not bought: Homebrew Hero.")
    expect(anna.locator("main")).to_contain_text("10 models")
    expect(anna.locator("main .badge.gold").first).to_have_text(f"{500 - total} gold")
    shot(screenshot, anna, "r12_15_roster_bought")
    assert taps <= 5, taps
    company = api(anna, a, "GET", f"/campaigns/{cid}/company")
    assert company["faction"] == "orcs" and len(company["models"]) == 10

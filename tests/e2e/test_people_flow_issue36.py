"""Issue 36 at 390x844 in Chromium: the GM adds a co-GM in the Players tab's Game masters
section (R12.8), a player marks a round away and everyone sees the badge (R12.11), and the GM
reads the audit trail and undoes a place edit (R12.9). Screenshots of each, no horizontal
overflow."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.campaign_setup import BRIDGE, api, api_player, login, no_horizontal_overflow, running_campaign, shot, tab


def test_e2e_r12_8_r12_9_r12_11_game_masters_away_and_the_audit_trail(new_page, screenshot):
    gm_page, player_page = new_page("gm"), new_page("player")
    setup = running_campaign(gm_page, "pp", warband=False)
    ork, bas = setup.players
    api_player(gm_page, "ppco")
    # R12.11: a player marks round 1 away, from their own row to their seat's page.
    login(player_page, ork)
    player_page.goto(setup.base + "/players")
    row = player_page.locator("li").filter(has=player_page.locator("strong", has_text=re.compile(rf"^{ork}$")))
    row.get_by_role("link", name="I will be away").click()
    player_page.get_by_role("button", name="Save").click()
    expect(player_page.locator("#flash")).to_contain_text(f"{ork}: away in round 1.")
    # The GM adds a co-GM and sees the away badge.
    login(gm_page, setup.gm)
    gm_page.goto(setup.base)
    tab(gm_page, "Players").click()
    expect(gm_page.locator("li").filter(has_text=ork).locator(".badge.accent")).to_have_text("away in round 1")
    section = gm_page.locator("#game-masters")
    section.get_by_label("Nickname").fill("ppco")
    section.get_by_role("button", name="Add a game master").click()
    expect(gm_page.locator("#flash")).to_contain_text("ppco is now a game master.")
    expect(gm_page.locator("#game-masters")).to_contain_text("ppco")
    no_horizontal_overflow(gm_page, "players with game masters")
    shot(screenshot, gm_page, "r12_11_players_away_badge")
    gm_page.locator("#game-masters").scroll_into_view_if_needed()
    screenshot(gm_page, "r12_8_game_masters_section", full_page=False)
    # R12.9: a place edit, then the audit page undoes it.
    api(
        gm_page,
        setup.tokens[setup.gm],
        "PATCH",
        f"/campaigns/{setup.cid}/places/{setup.places[BRIDGE]}",
        {"name": "Broken Bridge"},
    )
    gm_page.locator("#game-masters").get_by_role("link", name="Audit trail").click()
    expect(gm_page.get_by_role("heading", name=re.compile("Audit trail"))).to_be_visible()
    item = gm_page.locator("#audit li").filter(has_text="Place edited").first
    expect(item).to_contain_text("Old Bridge → Broken Bridge")
    expect(gm_page.locator("#audit")).to_contain_text("Game master added")
    no_horizontal_overflow(gm_page, "audit trail")
    shot(screenshot, gm_page, "r12_9_audit_trail")
    item.get_by_role("button", name="Undo").click()
    dialog = gm_page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.locator("button:not(.secondary)").last.click()
    expect(gm_page.locator("#flash")).to_contain_text("Undone: Place edited.")
    shot(screenshot, gm_page, "r12_9_audit_trail_undone")

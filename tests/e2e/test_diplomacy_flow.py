"""Diplomacy at 390x844 in Chromium (issue 13): a player founds a guild from the Guilds tab,
invites the other from the Players tab, who joins from the dashboard; the founder upgrades.
In a second campaign a player makes a mission alliance at the event, the ally accepts it,
nobody else sees it, and at Battles it is revealed in the chronicle."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import BRIDGE, api, login, no_horizontal_overflow, running_campaign, shot, tab


def _confirm(page: Page, question: str | re.Pattern) -> None:
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".confirm-q")).to_have_text(question)
    dialog.locator("button:not(.secondary)").last.click()


def _flash(page: Page, text: str | re.Pattern) -> None:
    expect(page.locator("#flash")).to_contain_text(text)


def test_e2e_r8_1_r8_3_r8_4_found_invite_join_upgrade(new_page, screenshot):
    """R8.1 (found for the cost of level 1), R8.3 (invitation, entry fee on joining), R8.4
    (the founder upgrades for N × the level cost), R8.6 (the chronicle says so)."""
    founder, friend = new_page("founder"), new_page("friend")
    setup = running_campaign(founder, "dpg", warband=False)
    ork, bas = setup.players
    login(founder, ork)
    founder.goto(setup.base)
    tab(founder, "Guilds").click()
    founder.get_by_label("Name").fill("Iron Hand")
    founder.get_by_role("button", name=re.compile(r"^Found for \d+ gold$")).click()
    _confirm(founder, "Found the guild?")
    _flash(founder, "Iron Hand")
    expect(founder.get_by_role("heading", name="Guild Iron Hand")).to_be_visible()
    no_horizontal_overflow(founder, "guilds")
    shot(screenshot, founder, "guild-founded")

    tab(founder, "Players").click()
    founder.get_by_role("button", name="Invite to Iron Hand").click()
    _flash(founder, bas)
    expect(founder.get_by_text("invitation sent")).to_be_visible()

    login(friend, bas)
    friend.goto(setup.base)
    friend.get_by_role("button", name=re.compile(r"^Join for \d+ gold$")).click()
    _confirm(friend, "Join the guild Iron Hand?")
    _flash(friend, "Iron Hand")
    shot(screenshot, friend, "guild-joined-dashboard")

    founder.goto(f"{setup.base}/guilds")
    expect(founder.locator("#guild-1, section[id^=guild-]").first).to_contain_text(bas)
    founder.get_by_role("button", name=re.compile(r"^Upgrade to level 2 for \d+ gold$")).click()
    _confirm(founder, "Raise the guild Iron Hand to level 2?")
    _flash(founder, "level 2")
    shot(screenshot, founder, "guild-upgraded")
    founder.goto(f"{setup.base}/chronicle")
    for text in ("founded the guild Iron Hand", "joined the guild Iron Hand", "rose to level 2"):
        expect(founder.locator("main")).to_contain_text(text)


def test_e2e_r8_7_r8_8_mission_alliance_secret_until_battles(new_page, screenshot):
    """R8.7 (made for the event in Orders, the ally accepts and pays), R8.8 (nobody else sees it
    — not the GM — until Battles, when the chronicle reveals it), in Polish for the ally."""
    maker, ally, gm = new_page("maker"), new_page("ally", locale="pl-PL"), new_page("gm")
    setup = running_campaign(maker, "dpa", warband=False)
    ork, bas = setup.players
    api(maker, setup.tokens[setup.gm], "POST", f"/campaigns/{setup.cid}/phase", {"phase": "orders"})
    login(maker, ork)
    maker.goto(f"{setup.base}/alliances")
    maker.get_by_label(re.compile("Ambush at the Bridge")).check()
    maker.get_by_label(bas).check()
    maker.get_by_role("button", name="Make the mission alliance").click()
    _confirm(maker, re.compile("mission alliance", re.I))
    _flash(maker, re.compile("Ambush at the Bridge"))
    no_horizontal_overflow(maker, "alliances")
    shot(screenshot, maker, "alliance-made")

    login(gm, setup.gm)
    gm.goto(f"{setup.base}/alliances")
    expect(gm.locator("[data-alliance]")).to_have_count(0)
    gm.goto(setup.base)
    expect(gm.locator("[data-alliance]")).to_have_count(0)

    login(ally, bas)
    ally.goto(setup.base)
    expect(ally.locator("html")).to_have_attribute("lang", "pl")
    ally.locator(f"form[action^='{setup.base}/alliances/'][action$='/accept'] button").first.click()
    dialog = ally.get_by_role("dialog")
    expect(dialog).to_contain_text("Ambush at the Bridge")
    dialog.locator("button:not(.secondary)").last.click()
    expect(ally.locator("#flash")).to_be_visible()
    no_horizontal_overflow(ally, "dashboard after accepting")
    shot(screenshot, ally, "alliance-accepted")

    api(maker, setup.tokens[setup.gm], "POST", f"/campaigns/{setup.cid}/phase", {"phase": "battles"})
    gm.goto(f"{setup.base}/chronicle")
    expect(gm.locator("main")).to_contain_text(re.compile(rf"mission alliance for Ambush at the Bridge: {ork} with {bas}", re.I))
    gm.goto(f"{setup.base}/alliances")
    expect(gm.locator("[data-alliance]")).to_have_count(1)
    shot(screenshot, gm, "alliance-revealed")

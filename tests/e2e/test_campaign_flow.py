"""The GM's whole setup on a phone, in Chromium, through the pages only."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import language_button
from tests.e2e.campaign_setup import no_horizontal_overflow as _no_horizontal_overflow
from tests.e2e.campaign_setup import register as _register

PLACES = ("Ravenhold", "Ember Docks", "Old Mill")


def _step_heading(page: Page, n: int, title: str):
    return page.get_by_role("heading", name=f"Step {n} of 6: {title}")


def _confirm(page: Page, question: str) -> None:
    """A one-way step asks first in a dialog (static/confirm.js); its first button acts."""
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".confirm-q")).to_have_text(question)
    dialog.locator(".confirm-ok").click()


def _dashboard_button(page: Page, name: str):
    return page.get_by_role("button", name=name, exact=True)


def test_e2e_r1_1_r1_4_r1_5_r2_1_gm_sets_up_and_runs_a_campaign_on_a_phone(new_page, screenshot):
    """R1.1 (setup wizard), R1.4 (inviting players by nickname), R1.5 (hideout
    selection: each player claims a free ⚑ place, a claimed place is gone for the
    others), R1.6 (starting opens round 1 in Preparation), R2.1 (the GM moves the
    phases forward) and R2.2 (one phase at a time; Orders -> Preparation is the only
    way back; ending the round in Twilight opens the next round's Preparation),
    all at 390x844 in Chromium."""
    gm, anna, borys = new_page("gm"), new_page("anna"), new_page("borys")

    # The players have accounts before the GM can invite them (R1.4).
    _register(anna, "anna_e2e")
    _register(borys, "borys_e2e")

    # --- the GM registers and starts the wizard (R1.1) ---------------------------
    _register(gm, "gm_e2e")
    gm.get_by_role("link", name="New campaign").click()
    expect(gm.get_by_role("heading", name="New campaign")).to_be_visible()
    expect(_step_heading(gm, 1, "Story")).to_be_visible()
    _no_horizontal_overflow(gm, "wizard step 1")
    gm.get_by_label("Campaign name").fill("Winter of the Lost Crown")
    gm.get_by_label("Story").fill("The crown is **lost**.\n\n- find it\n- keep it")
    screenshot(gm, "wizard-1-story")
    gm.get_by_role("button", name="Save and continue").click()

    # Step 2: players.
    expect(_step_heading(gm, 2, "Players")).to_be_visible()
    campaign_id = int(re.search(r"/campaigns/(\d+)/setup/2", gm.url).group(1))
    base = f"/campaigns/{campaign_id}"
    _no_horizontal_overflow(gm, "wizard step 2")
    gm.get_by_label("Number of players").fill("2")
    screenshot(gm, "wizard-2-players")
    gm.get_by_role("button", name="Save and continue").click()

    # Step 3: the map, three places, all flagged ⚑ as hideout places.
    expect(_step_heading(gm, 3, "Map")).to_be_visible()
    _no_horizontal_overflow(gm, "wizard step 3")
    for n, name in enumerate(PLACES):
        add = gm.locator("details").filter(has=gm.locator("summary", has_text="Add a place"))
        if add.get_attribute("open") is None:
            add.locator("summary").click()
        form = add.locator("form")
        form.get_by_label("Name", exact=True).fill(name)
        form.get_by_label("Income per round").fill(str(5 + n))
        form.get_by_label("Hideout place").check()
        form.get_by_role("button", name="Add place").click()
        expect(_step_heading(gm, 3, "Map")).to_be_visible()
        expect(gm.locator("#place-list li", has_text=name)).to_contain_text(f"⚑ {name}")
    expect(gm.locator("#place-list > li")).to_have_count(3)
    _no_horizontal_overflow(gm, "wizard step 3 with places")
    screenshot(gm, "wizard-3-map")
    gm.get_by_role("button", name="Save and continue").click()

    # Step 4: gold.
    expect(_step_heading(gm, 4, "Gold")).to_be_visible()
    _no_horizontal_overflow(gm, "wizard step 4")
    gm.get_by_label("Starting gold").fill("150")
    screenshot(gm, "wizard-4-gold")
    gm.get_by_role("button", name="Save and continue").click()

    # Step 5: warbands.
    expect(_step_heading(gm, 5, "Warbands")).to_be_visible()
    _no_horizontal_overflow(gm, "wizard step 5")
    gm.get_by_label("Warband size in points").fill("350")
    screenshot(gm, "wizard-5-warbands")
    gm.get_by_role("button", name="Save and continue").click()

    # Step 6: modules.
    expect(_step_heading(gm, 6, "Campaign modules")).to_be_visible()
    _no_horizontal_overflow(gm, "wizard step 6")
    paths = gm.get_by_label("Paths between places")
    expect(paths).not_to_be_checked()
    paths.check()
    screenshot(gm, "wizard-6-modules")
    gm.get_by_role("button", name="Finish setup").click()

    # The dashboard.
    expect(gm.get_by_role("heading", name="What to do now")).to_be_visible()
    assert gm.url.endswith(base), gm.url
    expect(gm.get_by_text("You are the game master")).to_be_visible()
    _no_horizontal_overflow(gm, "GM dashboard in setup")
    screenshot(gm, "dashboard-gm-setup")

    # The settings were saved: the wizard shows them again.
    gm.goto(f"{base}/setup/4")
    expect(gm.get_by_label("Starting gold")).to_have_value("150")
    gm.goto(f"{base}/setup/5")
    expect(gm.get_by_label("Warband size in points")).to_have_value("350")
    gm.goto(f"{base}/setup/6")
    expect(gm.get_by_label("Paths between places")).to_be_checked()
    gm.goto(base)

    # --- invitations (R1.4) ----------------------------------------------------
    gm.get_by_role("navigation", name="Campaign").get_by_role("link", name="Players").click()
    expect(gm.get_by_role("heading", name="Invite a player")).to_be_visible()
    for nickname in ("anna_e2e", "borys_e2e"):
        gm.get_by_role("region", name="Invite a player").get_by_label("Nickname").fill(nickname)
        gm.get_by_role("button", name="Invite", exact=True).click()
        expect(gm.get_by_role("status")).to_have_text(f"{nickname} is invited.")
    invitations = gm.locator("section", has=gm.get_by_role("heading", name="Invite a player"))
    for nickname in ("anna_e2e", "borys_e2e"):
        expect(invitations.locator("li", has_text=nickname)).to_contain_text("waiting")
    _no_horizontal_overflow(gm, "players tab")
    screenshot(gm, "players-gm")

    for page in (anna, borys):
        page.goto("/")
        section = page.locator("section", has=page.get_by_role("heading", name="Invitations"))
        expect(section).to_contain_text("Winter of the Lost Crown")
        expect(section).to_contain_text("game master: gm_e2e")
        if page is anna:
            screenshot(anna, "home-player-invited")
        section.get_by_role("button", name="Accept").click()
        expect(page.get_by_role("heading", name="Winter of the Lost Crown")).to_be_visible()
        assert page.url.endswith(base), page.url
    expect(borys.locator("#players-h")).to_have_text(re.compile(r"^Players\s+2\s*/\s*2$"))

    gm.goto(f"{base}/players")
    expect(gm.locator("main h2").first).to_have_text(re.compile(r"^Players\s+2\s*/\s*2$"))
    for nickname in ("anna_e2e", "borys_e2e"):
        expect(gm.locator("main ul.plain.card").get_by_text(nickname, exact=True)).to_be_visible()

    # --- hideout selection (R1.5) ----------------------------------------------
    gm.goto(base)
    _dashboard_button(gm, "Open hideout selection").click()
    _confirm(gm, "Open hideout selection?")
    expect(_dashboard_button(gm, "Start the campaign")).to_be_visible()
    expect(gm.get_by_role("alert")).to_have_count(0)

    anna.goto(base)
    anna_hideout = anna.locator("section", has=anna.get_by_role("heading", name="Your hideout"))
    expect(anna_hideout.get_by_role("button", name="Claim")).to_have_count(3)
    _no_horizontal_overflow(anna, "player dashboard in hideout selection")
    screenshot(anna, "dashboard-player-hideouts")
    anna_row = anna_hideout.locator("li").filter(has_text=PLACES[1])
    anna_row.get_by_role("button", name="Claim").click()
    expect(anna_hideout).to_contain_text(f"Your hideout is at {PLACES[1]}.")
    expect(anna_hideout.get_by_role("button", name="Claim")).to_have_count(0)

    borys.goto(base)
    borys_hideout = borys.locator("section", has=borys.get_by_role("heading", name="Your hideout"))
    expect(borys_hideout.get_by_role("button", name="Claim")).to_have_count(2)
    # The place Anna holds is not offered to Borys.
    expect(borys_hideout.locator("li").filter(has_text=PLACES[1])).to_have_count(0)
    borys_hideout.locator("li").filter(has_text=PLACES[0]).get_by_role("button", name="Claim").click()
    expect(borys_hideout).to_contain_text(f"Your hideout is at {PLACES[0]}.")

    # --- the campaign runs (R1.6, R2.1, R2.2) ------------------------------------
    gm.goto(base)
    _dashboard_button(gm, "Start the campaign").click()
    _confirm(gm, "Start the campaign?")  # a one-way step asks first (issue 29, R11.6)
    round_heading = gm.locator("#round-h")
    expect(round_heading).to_have_text("Round 1 · Preparation")
    expect(gm.get_by_role("heading", name="Round 1 · Preparation")).to_be_visible()
    _no_horizontal_overflow(gm, "GM dashboard while running")
    screenshot(gm, "dashboard-gm-running")

    _dashboard_button(gm, "Open Orders").click()
    expect(round_heading).to_have_text("Round 1 · Orders")
    _dashboard_button(gm, "Back to Preparation").click()
    expect(round_heading).to_have_text("Round 1 · Preparation")
    for phase in ("Orders", "Battles", "Settlement", "Twilight"):
        _dashboard_button(gm, f"Open {phase}").click()
        if phase in ("Battles", "Settlement", "Twilight"):  # one-way steps ask first (issues 12 and 29)
            _confirm(gm, f"Open {phase}?")
        expect(round_heading).to_have_text(f"Round 1 · {phase}")
        expect(gm.get_by_role("alert")).to_have_count(0)
    _dashboard_button(gm, "End round 1").click()
    _confirm(gm, "End round 1?")
    expect(round_heading).to_have_text("Round 2 · Preparation")
    expect(_dashboard_button(gm, "Open Orders")).to_be_visible()

    # --- the chronicle shows it all --------------------------------------------
    gm.get_by_role("navigation", name="Campaign").get_by_role("link", name="Chronicle").click()
    expect(gm.get_by_role("heading", name="Chronicle")).to_be_visible()
    chronicle = gm.locator("main ul.plain")
    expected = [  # oldest first
        "gm_e2e created the campaign.",
        "anna_e2e joined the campaign.",
        "borys_e2e joined the campaign.",
        "The roster is closed; hideout selection begins.",
        f"anna_e2e set up a hideout at {PLACES[1]}.",
        f"borys_e2e set up a hideout at {PLACES[0]}.",
        "The campaign begins: round 1, Preparation.",
        "Round 1: Preparation → Orders.",
        "Round 1: Orders → Preparation.",
        "Round 1: Preparation → Orders.",
        "Round 1: Orders → Battles.",
        "Round 1: Battles → Settlement.",
        "Round 1: Settlement → Twilight.",
        "Round 1: no place changed hands.",  # End round's summary of captures (R7.6, R11.1)
        "Round 1 ended; round 2 begins with Preparation.",
    ]
    expect(chronicle.get_by_text(expected[-1], exact=True)).to_be_visible()
    for text in set(expected):
        expect(chronicle.get_by_text(text, exact=True)).to_have_count(expected.count(text))
    # The chronicle lists the newest entry first.
    shown = [t.strip() for t in chronicle.locator("li > div:first-child").all_inner_texts()]
    assert shown == list(reversed(expected)), shown
    _no_horizontal_overflow(gm, "chronicle")
    screenshot(gm, "chronicle-gm")

    # --- the player's view, then in Polish ---------------------------------------
    anna.goto(base)
    expect(anna.locator("#round-h")).to_have_text("Round 2 · Preparation")
    expect(_dashboard_button(anna, "Open Orders")).to_have_count(0)  # only the GM moves phases
    _no_horizontal_overflow(anna, "player dashboard while running")
    screenshot(anna, "dashboard-player-running")

    # The account menu's "Polski" button (each language named in its own, issue 34); the
    # language sits in the account menu since issue 29.
    pl = language_button(anna, "Polski")
    expect(pl).to_have_text("Polski")
    pl.click()
    expect(anna.locator("html")).to_have_attribute("lang", "pl")
    assert anna.url.endswith(base), anna.url
    expect(anna.locator("#round-h")).to_contain_text(re.compile(r"Runda|Przygotowanie"))
    expect(language_button(anna, "English")).to_have_text("English")
    _no_horizontal_overflow(anna, "player dashboard in Polish")
    screenshot(anna, "dashboard-player-pl")

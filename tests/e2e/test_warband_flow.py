"""A player buys an Orc company, builds a warband with a mercenary in the builder (the
live htmx check reports a problem, the player fixes it), and sends the warband from the
map's sheet in the Orders phase, at 390x844 in Chromium; the order stays secret."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import (
    api as _api,
)
from tests.e2e.campaign_setup import (
    api_player as _api_player,
)
from tests.e2e.campaign_setup import (
    gold as _gold,
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
    pick as _pick,
)
from tests.e2e.campaign_setup import (
    shot as _shot,
)
from tests.e2e.campaign_setup import (
    tab as _tab,
)
from tests.e2e.campaign_setup import (
    tap_marker as _tap_marker,
)

GM, ORK, RIVAL = "wbgm", "wbork", "wbrival"
CAMPAIGN = "Smoke over Ravenmoor"
WARBAND = "Da Bonecrushas"
EVENT = "Ambush at the Mill"
MILL, HOLD, DOCKS = "Old Mill", "Ravenmoor Hold", "Ember Docks"
KUZLO_FEE = 46  # Kuzlo & Madfall: 46 pts x 1 gold per point


# --- helpers -----------------------------------------------------------------------


def _buy(page: Page, model: str) -> None:
    card = page.locator("article.model-card").filter(has=page.get_by_role("heading", name=model, exact=True))
    expect(card).to_have_count(1)
    card.get_by_role("button", name=re.compile(r"^Buy for \d+ gold$")).click()
    expect(page.get_by_role("status")).to_have_text(re.compile(rf"^Bought {re.escape(model)} for \d+ gold\.$"))
    expect(page.get_by_role("alert")).to_have_count(0)


def _check(page: Page):
    return page.locator("#check")


# --- the test ----------------------------------------------------------------------


def test_e2e_r4_1_r4_4_r4_5_player_builds_a_warband_with_a_mercenary_fixes_a_problem_and_sends_it_from_the_map(
    new_page, screenshot
):
    """R4.1 (a player builds a warband from the company's models on the Warbands tab),
    R4.2 and V4/V6 (the builder's live check lists every problem - here the Spellcaster
    limit of one per three Grunt/Warrior models, the mercenary counting like a model - and
    the player fixes it before saving), R4.3 (the mercenary's points count against the
    warband size: 116 / 200 pts), R4.4 (sending costs the mercenary's fee in gold: a
    "Mercenary fee" in the ledger), R4.5 (in the Orders phase a warband is sent to an event
    from the map's sheet) and R4.7 (orders stay secret until Battles: another player sees
    neither the Orders tab nor the warband, the game master sees it), at 390x844."""
    gm, ork, rival = new_page("gm", has_touch=True), new_page("ork", has_touch=True), new_page("rival", has_touch=True)

    # --- setup through the JSON API -------------------------------------------------
    tokens = {GM: _api_player(gm, GM), ORK: _api_player(ork, ORK), RIVAL: _api_player(rival, RIVAL)}
    g = tokens[GM]
    cid = _api(
        gm,
        g,
        "POST",
        "/campaigns",
        {"name": CAMPAIGN, "max_players": 2, "starting_gold": 400, "gold_per_point": 1, "warband_points": 200},
        status=201,
    )["id"]
    base = f"/campaigns/{cid}"
    places = {}
    for name, x, y, income, hideout in ((HOLD, 20, 25, 5, True), (DOCKS, 80, 30, 4, True), (MILL, 50, 70, 3, False)):
        places[name] = _api(
            gm,
            g,
            "POST",
            f"/campaigns/{cid}/places",
            {"name": name, "x": x, "y": y, "income": income, "hideout_slot": hideout},
            status=201,
        )["id"]
    for page, nickname in ((ork, ORK), (rival, RIVAL)):
        _api(gm, g, "POST", f"/campaigns/{cid}/invitations", {"nickname": nickname}, status=201)
        _api(page, tokens[nickname], "POST", f"/campaigns/{cid}/invitations/accept")
    _api(gm, g, "POST", f"/campaigns/{cid}/status", {"status": "hideouts"})
    _api(ork, tokens[ORK], "POST", f"/campaigns/{cid}/hideouts", {"place_id": places[HOLD]}, status=201)
    _api(rival, tokens[RIVAL], "POST", f"/campaigns/{cid}/hideouts", {"place_id": places[DOCKS]}, status=201)
    started = _api(gm, g, "POST", f"/campaigns/{cid}/status", {"status": "running"})
    assert (started["round"], started["phase"]) == (1, "preparation"), started
    event = _api(
        gm,
        g,
        "POST",
        f"/campaigns/{cid}/events",
        {"place_id": places[MILL], "title": EVENT, "text": "Goblins wait by the **wheel**."},
        status=201,
    )

    # --- the player's company: faction and shop, through the pages ---------------------
    _login(ork, ORK)
    ork.goto(base)
    _tab(ork, "Company").click()
    expect(ork.get_by_role("heading", name="Faction")).to_be_visible()
    ork.get_by_role("combobox", name="Faction").select_option(label="Orcs · Evil")
    ork.get_by_role("button", name="Choose", exact=True).click()
    expect(ork.get_by_role("alert")).to_have_count(0)
    expect(ork.locator("main section.card").first).to_contain_text("Orcs")
    assert _gold(ork) == 400
    ork.locator("main").get_by_role("link", name="Shop", exact=True).click()
    expect(ork.get_by_role("heading", name="Models · Orcs")).to_be_visible()
    for model in ("Krusher", "God Speaker", "Ax", "Ax", "Ax"):
        _buy(ork, model)
    assert _gold(ork) == 400 - 34 - 31 - 3 * 12, _gold(ork)

    # --- the builder: a problem, found live, then fixed (R4.1, R4.2, V4, V6) ----------
    _tab(ork, "Warbands").click()
    expect(ork.get_by_role("heading", name="Warbands", exact=True)).to_be_visible()
    ork.get_by_role("link", name="New warband").click()
    expect(ork.get_by_role("heading", name="New warband")).to_be_visible()
    builder_url = ork.url
    ork.evaluate("window.__sameDocument = true")  # gone if the page reloads
    ork.get_by_label("Name").fill(WARBAND)
    expect(_pick(ork, "Ax")).to_have_count(3)
    _pick(ork, "Krusher").check()
    _pick(ork, "God Speaker").check()
    _pick(ork, "Ax").first.check()
    mercenary = ork.get_by_label("Mercenary")
    expect(mercenary.locator("option[value='merc.kuzlo-and-madfall']")).to_have_text(
        re.compile(r"^Kuzlo & Madfall · Evil · 46 pts$")
    )
    mercenary.select_option("merc.kuzlo-and-madfall")

    # 34 + 31 + 12 + 46: two Spellcasters (the God Speaker and Kuzlo) with one Grunt.
    check = _check(ork)
    expect(check).to_contain_text("123 / 200 pts")
    spell = check.locator("li[data-code=warband_spellcaster_limit]")
    expect(spell).to_have_text("2 Spellcaster models, but at most 0 allowed (Grunt/Warrior models: 1).")
    expect(check).to_contain_text(re.compile(r"\d+ problems?"))
    expect(check.get_by_text("ready to save")).to_have_count(0)
    assert ork.evaluate("window.__sameDocument === true"), "the live check reloaded the page"
    assert ork.url == builder_url, ork.url
    _no_horizontal_overflow(ork, "the warband builder with a problem")
    _shot(screenshot, ork, "warband-builder-problem")

    # Without the God Speaker, Kuzlo alone is still one Spellcaster too many for one Ax.
    _pick(ork, "God Speaker").uncheck()
    expect(check).to_contain_text("92 / 200 pts")
    expect(spell).to_have_text("1 Spellcaster model, but at most 0 allowed (Grunt/Warrior models: 1).")
    # Three Ax allow one Spellcaster.
    _pick(ork, "Ax").nth(1).check()
    _pick(ork, "Ax").nth(2).check()
    expect(check).to_contain_text("116 / 200 pts")
    expect(check.get_by_text("ready to save")).to_be_visible()
    expect(check.locator("li")).to_have_count(0)
    expect(check).to_have_class(re.compile(r"\bgood\b"))
    assert ork.evaluate("window.__sameDocument === true"), "the live check reloaded the page"
    _no_horizontal_overflow(ork, "the warband builder without problems")
    _shot(screenshot, ork, "warband-builder-ok")

    ork.get_by_role("button", name="Save the warband").click()
    expect(ork.get_by_role("heading", name="Warbands", exact=True)).to_be_visible()
    assert re.search(rf"{base}/warbands(#w\d+)?$", ork.url), ork.url
    card = ork.locator("article.card").filter(has=ork.get_by_role("heading", name=WARBAND))
    expect(card).to_have_count(1)
    warband_id = card.get_attribute("id")[1:]
    expect(card.locator(".badge")).to_have_text("116 / 200 pts")
    expect(card).to_contain_text("Krusher, Ax 1, Ax 2, Ax 3")
    expect(card).to_contain_text("mercenary: Kuzlo & Madfall")
    expect(card.locator("ul.problems")).to_have_count(0)
    expect(card.get_by_role("link", name="Send")).to_have_count(0)  # not before Orders

    # --- Orders: the GM opens it; the player sends from the map (R4.5) -----------------
    _api(gm, g, "POST", f"/campaigns/{cid}/phase", {"phase": "orders"})
    ork.goto(f"{base}/company")
    gold_before = _gold(ork)
    _tab(ork, "Map").click()
    expect(ork.locator("svg#map")).to_be_visible()
    expect(_marker(ork, MILL).locator("g.ev")).to_have_count(1)
    expect(_marker(ork, MILL).locator("g.ev text")).to_have_text("1")
    _tap_marker(ork, MILL)
    sheet = ork.locator("#sheet")
    expect(sheet.locator("#sheet-h")).to_have_text(MILL)
    expect(sheet.get_by_role("heading", name=EVENT)).to_be_visible()
    send_form = sheet.locator("form.send-form")
    expect(send_form).to_have_count(1)
    expect(send_form.get_by_label("Warband")).to_have_value(warband_id)
    send_form.scroll_into_view_if_needed()
    _no_horizontal_overflow(ork, "the map with the event's sheet")
    _shot(screenshot, ork, "map-sheet-send")
    send_form.get_by_role("button", name="Send a warband").click()

    expect(ork.get_by_role("heading", name=f"Send {WARBAND}")).to_be_visible()
    assert re.search(rf"{base}/warbands/\d+/send\?event={event['id']}$", ork.url), ork.url
    expect(ork.get_by_role("radio", name=re.compile(rf"^{re.escape(EVENT)}"))).to_be_checked()
    expect(ork.locator("main")).to_contain_text(f"Sending costs the mercenary fee: {KUZLO_FEE} gold.")
    _no_horizontal_overflow(ork, "the send page")
    ork.get_by_role("button", name="Send the warband").click()
    ork.get_by_role("dialog").locator(".confirm-ok").click()  # final for the round: asked first (issue 29, R11.6)

    expect(ork.get_by_role("heading", name="Warbands", exact=True)).to_be_visible()
    assert re.search(rf"{base}/warbands(#w\d+)?$", ork.url), ork.url
    expect(ork.get_by_role("alert")).to_have_count(0)
    card = ork.locator("article.card").filter(has=ork.get_by_role("heading", name=WARBAND))
    expect(card.locator("p.sent")).to_have_text(f"Sent to {EVENT} · {MILL}")
    # R4.6: a sent warband is final for its owner; only the GM undoes an order.
    expect(card.get_by_role("button", name="Cancel the order")).to_have_count(0)
    expect(card).to_contain_text("ask the game master to undo the order")
    _no_horizontal_overflow(ork, "the warbands list with a sent warband")
    _shot(screenshot, ork, "warbands-sent")

    # The fee is paid (R4.4).
    ork.goto(f"{base}/company")
    assert _gold(ork) == gold_before - KUZLO_FEE, (gold_before, _gold(ork))
    ork.get_by_role("link", name="Ledger").click()
    fee_row = ork.locator("main ul.plain li").filter(has_text="Mercenary fee")
    expect(fee_row).to_have_count(1)
    expect(fee_row).to_contain_text(f"Kuzlo & Madfall · {WARBAND}")
    expect(fee_row.locator("strong.minus")).to_have_text(f"-{KUZLO_FEE}")

    # The map no longer offers the sent warband.
    ork.goto(f"{base}/map")
    _tap_marker(ork, MILL)
    expect(ork.locator("#sheet").get_by_role("heading", name=EVENT)).to_be_visible()
    expect(ork.locator("#sheet form.send-form")).to_have_count(0)

    # --- secrecy before Battles (R4.7) ---------------------------------------------
    _login(rival, RIVAL)
    rival.goto(f"{base}/orders")
    expect(rival.get_by_role("heading", name=re.compile(r"^Orders · round 1"))).to_be_visible()
    expect(_tab(rival, "Orders")).to_have_count(0)
    expect(_tab(rival, "Map")).to_have_count(1)
    assert WARBAND not in rival.content(), "another player's orders page shows the warband's name"
    expect(rival.locator("main")).to_contain_text("No orders yet.")
    rival.goto(f"{base}/warbands")
    assert WARBAND not in rival.content(), "another player's warbands page shows the warband's name"
    rival.goto(f"{base}/map")
    _tap_marker(rival, MILL)
    expect(rival.locator("#sheet").get_by_role("heading", name=EVENT)).to_be_visible()
    assert WARBAND not in rival.content(), "another player's map shows the warband's name"

    _login(gm, GM)
    gm.goto(base)
    expect(_tab(gm, "Orders")).to_have_count(1)
    _tab(gm, "Orders").click()
    row = gm.locator("main ul.plain li").filter(has_text=WARBAND)
    expect(row).to_have_count(1)
    expect(row).to_contain_text(ORK)
    expect(row).to_contain_text("116 pts")
    expect(row).to_contain_text(f"→ {EVENT} · {MILL}")
    expect(row.get_by_role("button", name="Undo the order")).to_be_visible()
    _no_horizontal_overflow(gm, "the GM's orders page")

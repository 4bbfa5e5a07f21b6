"""Battles at 390x844 in Chromium: the GM opens Battles from the dashboard, one player
enters the result from the dashboard's "What to do now" card and the other confirms it,
each in at most three taps; the chronicle records the victory."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Locator, Page, expect

from tests.e2e.campaign_setup import (
    Taps,
)
from tests.e2e.campaign_setup import (
    api as _api,
)
from tests.e2e.campaign_setup import (
    api_player as _api_player,
)
from tests.e2e.campaign_setup import (
    login as _login,
)
from tests.e2e.campaign_setup import (
    no_horizontal_overflow as _no_horizontal_overflow,
)
from tests.e2e.campaign_setup import (
    shot as _shot,
)
from tests.e2e.campaign_setup import (
    tab as _tab,
)
from tests.e2e.conftest import REPO

GM, ORK, BAS = "btlgm", "btlork", "btlbas"
CAMPAIGN = "Iron over Old Bridge"
ORK_BAND, BAS_BAND = "Da Bridge Krushas", "Shields of Ivory"
HOLD, KEEP, BRIDGE = "Skull Hold", "Ivory Keep", "Old Bridge"
# Krusher 34 + Ax 12 + Ax 12 = 58 against Veteran Sergeant 30 + two Man-at-Arms 8 = 46:
# the Basileans are the underdog by 12 points, one die per full 10 points (V10).
ORK_POINTS, BAS_POINTS, POINTS_PER_DIE = 58, 46, 10
MAX_TAPS = 3


# --- helpers -----------------------------------------------------------------------


def _two_warband_scenarios() -> dict[str, str]:
    data = json.loads((REPO / "app/catalog/data/starter.json").read_text(encoding="utf-8"))
    return {s["key"]: s["name"] for s in data["scenarios"] if s["min_warbands"] <= 2 and s["max_warbands"] == 2}


def _vs(a: str, b: str) -> str:
    """'A vs B' in either order: the sides' order comes from the battle's seed."""
    return rf"(?:{re.escape(a)} vs {re.escape(b)}|{re.escape(b)} vs {re.escape(a)})"


def _roster(page: Page, warband: str) -> Locator:
    name = page.locator(".card-name, strong", has_text=re.compile(rf"^{re.escape(warband)}$"))  # a heading since issue 30
    return page.locator("main article.warband-roster").filter(has=name)


def _status(page: Page) -> Locator:
    """The status badge beside the battle page's heading."""
    return page.locator("main div.row.between").filter(has=page.get_by_role("heading", name=BRIDGE, exact=True)).locator(".badge")


# --- the test ----------------------------------------------------------------------


def test_e2e_r6_1_r6_5_r6_8_from_battles_to_a_confirmed_result_on_a_phone(new_page, screenshot):
    """R6.1 (opening Battles turns the round's orders into battles: two warbands sent to
    Old Bridge meet there and the Battles tab lists one battle), R6.5 (the battle page
    shows the scenario and both warbands' rosters), V10 (the weaker warband gets the
    Underdog line: 12 points for a bonus model and one die per full 10 points) and R6.8
    (one player enters the result from the dashboard's "What to do now" card, the other
    confirms it, each in at most three taps; the battle is then confirmed and the
    chronicle records the victory), at 390x844 in Chromium."""
    gm, ork, bas = (new_page(name, has_touch=True) for name in ("gm", "ork", "bas"))

    # --- setup through the JSON API -------------------------------------------------
    tokens = {GM: _api_player(gm, GM), ORK: _api_player(ork, ORK), BAS: _api_player(bas, BAS)}
    g = tokens[GM]
    cid = _api(
        gm,
        g,
        "POST",
        "/campaigns",
        {
            "name": CAMPAIGN,
            "max_players": 2,
            "starting_gold": 400,
            "gold_per_point": 1,
            "warband_points": 200,
            "underdog_points_per_die": POINTS_PER_DIE,
        },
        status=201,
    )["id"]
    base = f"/campaigns/{cid}"
    places = {}
    for name, x, y, hideout in ((HOLD, 20, 25, True), (KEEP, 80, 30, True), (BRIDGE, 50, 70, False)):
        places[name] = _api(
            gm,
            g,
            "POST",
            f"/campaigns/{cid}/places",
            {"name": name, "x": x, "y": y, "income": 3, "hideout_slot": hideout},
            status=201,
        )["id"]
    player_ids = {}
    for page, nickname in ((ork, ORK), (bas, BAS)):
        _api(gm, g, "POST", f"/campaigns/{cid}/invitations", {"nickname": nickname}, status=201)
        player_ids[nickname] = _api(page, tokens[nickname], "POST", f"/campaigns/{cid}/invitations/accept")["player_id"]
    _api(gm, g, "POST", f"/campaigns/{cid}/status", {"status": "hideouts"})
    _api(ork, tokens[ORK], "POST", f"/campaigns/{cid}/hideouts", {"place_id": places[HOLD]}, status=201)
    _api(bas, tokens[BAS], "POST", f"/campaigns/{cid}/hideouts", {"place_id": places[KEEP]}, status=201)
    started = _api(gm, g, "POST", f"/campaigns/{cid}/status", {"status": "running"})
    assert (started["round"], started["phase"]) == (1, "preparation"), started

    warbands = {}
    for page, nickname, faction, profiles, band in (
        (ork, ORK, "orcs", ("orcs.krusher", "orcs.ax", "orcs.ax"), ORK_BAND),
        (bas, BAS, "basileans", ("basileans.veteran-sergeant", "basileans.man-at-arms", "basileans.man-at-arms"), BAS_BAND),
    ):
        t = tokens[nickname]
        _api(page, t, "PUT", f"/campaigns/{cid}/company/faction", {"faction": faction})
        models = [_api(page, t, "POST", f"/campaigns/{cid}/company/models", {"profile": p}, status=201) for p in profiles]
        made = _api(
            page, t, "POST", f"/campaigns/{cid}/warbands", {"name": band, "model_ids": [m["id"] for m in models]}, status=201
        )
        warbands[nickname] = made["id"]
    _api(gm, g, "POST", f"/campaigns/{cid}/phase", {"phase": "orders"})
    for page, nickname in ((ork, ORK), (bas, BAS)):
        _api(page, tokens[nickname], "PUT", f"/campaigns/{cid}/warbands/{warbands[nickname]}/order", {"place_id": places[BRIDGE]})

    # --- the GM opens Battles from the dashboard (R6.1) --------------------------------
    _login(gm, GM)
    gm.goto(base)
    expect(gm.get_by_role("heading", name=re.compile(r"^Round 1 · Orders$"))).to_be_visible()
    gm.get_by_role("button", name="Open Battles", exact=True).click()
    gm.get_by_role("dialog").get_by_role("button", name="Open Battles").click()  # a one-way step asks first
    expect(gm.get_by_role("heading", name=re.compile(r"^Round 1 · Battles$"))).to_be_visible()
    expect(gm.get_by_role("alert")).to_have_count(0)
    _tab(gm, "Battles").click()
    expect(gm.get_by_role("heading", name=re.compile(r"^Battles · round 1$"))).to_be_visible()
    cards = gm.locator("main a.battle-card")
    expect(cards).to_have_count(1)
    card = cards.first
    expect(card.locator("strong")).to_have_text(BRIDGE)
    expect(card.locator(".badge")).to_have_text("waiting for the result")
    expect(card).to_contain_text(re.compile(_vs(f"{ORK_BAND} ({ORK})", f"{BAS_BAND} ({BAS})")))
    battle_href = card.get_attribute("href")
    bid = int(re.fullmatch(rf"{base}/battles/(\d+)", battle_href).group(1))
    _no_horizontal_overflow(gm, "the battles list")
    _shot(screenshot, gm, "battle-list-gm")

    announced = _api(gm, g, "GET", f"/campaigns/{cid}/battles/{bid}")
    scenarios = _two_warband_scenarios()
    assert announced["scenario"] in scenarios, announced["scenario"]
    scenario_name = scenarios[announced["scenario"]]

    # --- player 1 enters the result from the dashboard (R6.8) --------------------------
    _login(ork, ORK)
    ork.goto(base)
    todo = ork.locator("main ul.battle-todo")
    enter = todo.get_by_role("link", name=re.compile(rf"^Enter the result: {_vs(ORK_BAND, BAS_BAND)}$"))
    expect(enter).to_have_count(1)
    expect(todo.get_by_role("link")).to_have_count(1)
    _no_horizontal_overflow(ork, "the dashboard with the battle button")
    _shot(screenshot, ork, "battle-dashboard-player")

    taps = Taps()
    taps(enter)
    expect(ork.get_by_role("heading", name=BRIDGE, exact=True)).to_be_visible()
    assert re.search(rf"{base}/battles/{bid}#result$", ork.url), ork.url
    expect(_status(ork)).to_have_text("waiting for the result")

    # R6.5: the scenario and both rosters; V10: the Underdog line for the weaker warband.
    expect(ork.locator("main section.card:not(#clock) h3").first).to_have_text(scenario_name)
    ork_roster, bas_roster = _roster(ork, ORK_BAND), _roster(ork, BAS_BAND)
    expect(ork_roster).to_have_count(1)
    expect(bas_roster).to_have_count(1)
    expect(ork_roster).to_contain_text(f"{ORK} · {ORK_POINTS} pts")
    expect(bas_roster).to_contain_text(f"{BAS} · {BAS_POINTS} pts")
    expect(ork_roster.locator("ul.roster li")).to_have_count(3)
    expect(ork_roster.locator("ul.roster li").filter(has_text="Krusher")).to_have_count(1)
    expect(ork_roster.locator("ul.roster li").filter(has_text=re.compile(r"^Ax\b"))).to_have_count(2)
    expect(bas_roster.locator("ul.roster li")).to_have_count(3)
    expect(bas_roster.locator("ul.roster li").filter(has_text="Veteran Sergeant")).to_have_count(1)
    expect(bas_roster.locator("ul.roster li").filter(has_text="Man-at-Arms")).to_have_count(2)
    gap = ORK_POINTS - BAS_POINTS
    expect(bas_roster.locator("p.underdog")).to_have_text(
        re.compile(rf"^Underdog: {gap // POINTS_PER_DIE} (die|dice) and {gap} points for a bonus model\.$")
    )
    expect(ork_roster.locator("p.underdog")).to_have_count(0)
    expect(ork.get_by_role("button", name=f"{BAS} won", exact=True)).to_be_visible()
    expect(ork.get_by_role("button", name="Draw", exact=True)).to_be_visible()
    _no_horizontal_overflow(ork, "the battle page")
    _shot(screenshot, ork, "battle-page")

    taps(ork.get_by_role("button", name=f"{ORK} won", exact=True))
    expect(ork.get_by_role("dialog")).to_contain_text(f"{ORK} won?")  # who won, then confirm
    taps(ork.get_by_role("dialog").get_by_role("button", name="Enter the result"))
    expect(_status(ork)).to_have_text("result entered")
    expect(ork.get_by_role("alert")).to_have_count(0)
    result = ork.locator("#result")
    expect(result).to_contain_text(f"Winners: {ORK}")
    expect(result).to_contain_text(f"entered by {ORK}")
    expect(result).to_contain_text("Waiting for the other side to confirm.")
    expect(result.get_by_role("button", name="Confirm", exact=True)).to_have_count(0)
    assert taps.count <= MAX_TAPS, f"entering the result took {taps.count} taps"

    # --- player 2 confirms it from the dashboard (R6.8) --------------------------------
    _login(bas, BAS)
    bas.goto(base)
    todo = bas.locator("main ul.battle-todo")
    confirm = todo.get_by_role("link", name=re.compile(rf"^Confirm the result: {_vs(ORK_BAND, BAS_BAND)}$"))
    expect(confirm).to_have_count(1)
    expect(todo.get_by_role("link", name=re.compile(r"^Enter the result"))).to_have_count(0)
    _no_horizontal_overflow(bas, "the dashboard with the confirm button")

    taps = Taps()
    taps(confirm)
    expect(_status(bas)).to_have_text("result entered")
    expect(bas.locator("#result")).to_contain_text(f"Winners: {ORK}")
    taps(bas.locator("#result").get_by_role("button", name="Confirm", exact=True))
    expect(_status(bas)).to_have_text("confirmed")
    expect(_status(bas)).to_have_class(re.compile(r"\bok\b"))
    expect(bas.get_by_role("alert")).to_have_count(0)
    expect(bas.locator("#result")).to_contain_text(f"Winners: {ORK}")
    expect(bas.locator("#result form")).to_have_count(0)  # nothing left to enter, confirm or dispute
    assert taps.count <= MAX_TAPS, f"confirming the result took {taps.count} taps"
    _no_horizontal_overflow(bas, "the confirmed battle page")
    _shot(screenshot, bas, "battle-confirmed")

    # Nothing is left to do on either dashboard; the list shows the battle confirmed.
    bas.goto(base)
    expect(bas.locator("main ul.battle-todo")).to_have_count(0)
    ork.goto(base)
    expect(ork.locator("main ul.battle-todo")).to_have_count(0)
    gm.goto(f"{base}/battles")
    expect(gm.locator("main a.battle-card .badge")).to_have_text("confirmed")
    _no_horizontal_overflow(gm, "the battles list with a confirmed battle")
    decided = _api(gm, g, "GET", f"/campaigns/{cid}/battles/{bid}")
    assert (decided["status"], decided["winners"], decided["reported_by_player_id"], decided["confirmed_by"]) == (
        "confirmed",
        [player_ids[ORK]],
        player_ids[ORK],
        [player_ids[BAS]],
    ), decided

    # --- the chronicle ---------------------------------------------------------------
    ork.goto(f"{base}/chronicle")
    entries = ork.locator("main ul.plain li")
    expect(entries.filter(has_text=f"At {BRIDGE}: victory for {ORK}")).to_have_count(1)
    _no_horizontal_overflow(ork, "the chronicle")

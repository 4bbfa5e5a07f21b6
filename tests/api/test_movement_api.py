"""Warband movement over the API (R9.8 with R9.7 paths and R6.6 roles), on SQLite and
PostgreSQL: where a new warband gathers, public positions and secret orders, orders that are
moves, defenders (their roster of the moment, no mercenary, allies do not make them fight, the
owner defends in a scenario with roles), where every warband stands after End round (played
through results, settlements, Twilight and End round), the GM placing a scattered warband,
rosters that change only in a hideout, and the module off. The pure rules are in
tests/unit/test_movement_rules.py."""

from __future__ import annotations

import pytest
from sqlmodel import Session, func, select

from app.warbands.models import Order, Warband
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign
from tests.builders.companies import ORC_BAND, set_status
from tests.builders.guilds import GUILD
from tests.builders.maps import add_place, give_hideout
from tests.builders.movement import EVIL_MERCENARY, M, movement_campaign
from tests.builders.responses import error_code


def count(engine, cls) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(cls)).one()


# --- 1. positions ------------------------------------------------------------------------------


def test_r9_8_a_new_warband_gathers_in_a_hideout_of_its_player_first_by_default(client, engine):
    m = movement_campaign(client)
    ash, bree, crag, ford = (m.places[n] for n in ("Ash", "Bree", "Crag", "Ford"))
    give_hideout(engine, crag, m.pid(0))  # player0 holds Ash and Crag
    first = m.band(0, "First")
    assert first["location_place_id"] == ash  # the first hideout (lowest place id)
    assert m.band(1, "Guard")["location_place_id"] == bree
    models = m.buy(0, "orcs.krusher", "orcs.ax")
    before, gold = m.warbands(0), m.ledger(0)
    other = create_campaign(client, m.gm, name="Elsewhere")["id"]
    foreign = add_place(client, m.gm, other, "Far away")["id"]
    for where in (ford, bree, foreign, 2**31 - 1):  # a free place, another player's hideout, another campaign's, none
        r = m.create(0, "Lost", models, location_place_id=where)
        m.refused(r, 422, "warband_gather_hideout")
    assert (m.warbands(0), m.ledger(0), count(engine, Warband)) == (before, gold, 2)  # nothing was created
    second = m.create(0, "Second", models, location_place_id=crag)
    assert second.status_code == 201, second.text
    assert second.json()["location_place_id"] == crag
    assert {w["name"]: w["location_place_id"] for w in m.warbands(0).values()} == {"First": ash, "Second": crag}


def test_r9_8_positions_are_public_on_the_map_but_orders_stay_secret(client):
    m = movement_campaign(client)
    ash, bree, ford = m.places["Ash"], m.places["Bree"], m.places["Ford"]
    raiders, guard = m.band(0, "Raiders"), m.band(1, "Guard")
    expected = {raiders["id"]: ash, guard["id"]: bree}
    for who in ("gm", 0, 1):  # every member sees every position
        assert m.positions(who) == expected
    shown = m.get(1, "/map").json()["warband_positions"]
    assert {"warband_id": raiders["id"], "name": "Raiders", "player_id": m.pid(0), "place_id": ash} in shown
    assert m.get(user(client, "outsider"), "/map").status_code == 404
    # GET /warbands is the player's own, with where each stands.
    assert [(w["name"], w["location_place_id"]) for w in m.warbands(0).values()] == [("Raiders", ash)]
    m.phase("orders")
    order = m.sent(0, raiders["id"], place_id=ford)
    assert (order["place_id"], order["from_place_id"]) == (ford, ash)
    # Orders stay secret: player1 learns nothing of it — not from the orders, not from the map.
    assert m.get(1, "/orders").json() == []
    assert m.positions(1) == expected  # sending moves nobody on the map
    assert [o["warband_id"] for o in m.get("gm", "/orders").json()] == [raiders["id"]]
    # A position inside a place's map is shown on that map, not on the top map.
    mill = add_place(client, m.gm, m.cid, "Mill", hideout_slot=False, parent_id=ford, x=30, y=30)["id"]
    m.placed(guard["id"], mill)
    assert m.positions(1) == {raiders["id"]: ash}
    assert m.positions(0, of=ford) == {guard["id"]: mill}
    m.phase("battles")
    [public] = m.get(1, "/orders").json()
    assert (public["warband_id"], public["from_place_id"]) == (raiders["id"], ash)


# --- 2. orders that are moves ----------------------------------------------------------------------

PATH_MAP = {
    "Ash": (10, 10, True),
    "Bree": (90, 90, True),
    "Ford": (30, 30, False),
    "Glen": (50, 50, False),
    "Weir": (10, 50, False),
}
# Ash - Ford - Glen - Bree both ways; Weir -> Ash one way only.
PATH_LINKS = [("Ash", "Ford", False), ("Ford", "Glen", False), ("Glen", "Bree", False), ("Weir", "Ash", True)]


def test_r9_8_r9_7_with_paths_a_warband_stays_or_goes_one_path_step_in_the_paths_direction(client, engine):
    m = movement_campaign(client, paths=True, places=PATH_MAP, links=PATH_LINKS)
    ash, ford, glen, weir, bree = (m.places[n] for n in ("Ash", "Ford", "Glen", "Weir", "Bree"))
    one, two, three = (m.band(0, n) for n in ("One", "Two", "Three"))
    m.placed(three["id"], glen)  # the GM puts it two steps from home
    m.phase("orders")
    before = (m.get(0, "/orders").json(), m.ledger(0))
    for target in (glen, weir, bree):  # two steps; a one-way path the wrong way; far away
        m.refused(m.send(0, one["id"], place_id=target), 409, "order_not_a_move")
    # From Glen it may go on to Bree or back to Ford, but not to Ash two steps away — although
    # Ash is its player's own place (R9.7 alone would allow it): it sets out from where it stands.
    m.refused(m.send(0, three["id"], place_id=ash), 409, "order_not_a_move")
    assert (m.get(0, "/orders").json(), m.ledger(0)) == before
    assert count(engine, Order) == 0
    assert m.sent(0, one["id"], place_id=ford)["from_place_id"] == ash  # one step
    assert m.sent(0, two["id"], place_id=ash)["from_place_id"] == ash  # it stays
    assert m.sent(0, three["id"], place_id=bree)["from_place_id"] == glen  # one step on from where it stands


def test_r9_8_without_paths_a_warband_goes_anywhere(client):
    m = movement_campaign(client, places=PATH_MAP)
    bree, glen = m.places["Bree"], m.places["Glen"]
    one, two = m.band(0, "One"), m.band(0, "Two")
    m.phase("orders")
    assert m.sent(0, one["id"], place_id=bree)["from_place_id"] == m.places["Ash"]
    assert m.sent(0, two["id"], place_id=glen)["place_id"] == glen


def test_r9_8_r4_5_moves_keep_the_usual_order_rules(client, engine):
    """One warband per event, blockades and points limits still apply to a move (R4.5)."""
    m = movement_campaign(client, paths=True, places=PATH_MAP, links=PATH_LINKS)
    ford = m.places["Ford"]
    one, two = m.band(0, "One"), m.band(0, "Two")
    merc = m.band(0, "Merc", keys=ORC_BAND, mercenary=EVIL_MERCENARY)
    fair = m.event("Ford", "Fair")
    wall = m.event("Ford", "Wall", blockade=True)
    small = m.event("Ford", "Skirmish", points_limit=40)
    m.phase("orders")
    before = (m.get(0, "/orders").json(), m.ledger(0))
    m.refused(m.send(0, one["id"], event_id=wall), 409, "order_blockade")
    m.refused(m.send(0, one["id"], event_id=small), 409, "order_points_limit")
    m.refused(m.send(0, one["id"], place_id=ford), 409, "order_place_has_events")
    assert (m.get(0, "/orders").json(), m.ledger(0)) == before
    assert m.sent(0, one["id"], event_id=fair)["from_place_id"] == m.places["Ash"]
    m.refused(m.send(0, two["id"], event_id=fair), 409, "order_event_taken")
    m.refused(m.send(0, one["id"], place_id=m.places["Ash"]), 409, "order_exists")
    # A mercenary's fee is paid on a move as on any order (R4.4).
    gold = m.get(0, "/company").json()["gold"]
    m.sent(0, merc["id"], place_id=m.places["Ash"])
    assert m.get(0, "/company").json()["gold"] == gold - 46
    assert count(engine, Order) == 2


# --- 3. defenders ----------------------------------------------------------------------------------


def test_r9_8_a_warband_without_an_order_defends_with_its_roster_of_the_moment_without_its_mercenary(client):
    # Player0's Guard (Orcs, with a hired mercenary) stands in its hideout Ash without an order;
    # player1's warband comes to Ash.
    m = movement_campaign(client)
    ash = m.places["Ash"]
    guard = m.band(0, "Guard", keys=ORC_BAND, mercenary=EVIL_MERCENARY)
    assert guard["points"] == 70 + 46
    watch = m.band(0, "Watch")  # a second warband of player0 there, also without an order
    attackers = m.band(1, "Attackers")
    m.phase("orders")
    # The roster of the moment: player0 adds a model while Orders run (it stands in its hideout).
    extra = m.buy(0, "orcs.ax")
    r = m.patch(0, f"/warbands/{guard['id']}", {"model_ids": [x["id"] for x in guard["models"] + extra]})
    assert r.status_code == 200, r.text
    gold0 = m.ledger(0)
    m.sent(1, attackers["id"], place_id=ash)
    m.phase("battles")
    [battle] = m.battles()
    assert battle["place_id"] == ash and battle["event_id"] is None
    sides = {tuple(s["player_ids"]): s for s in battle["sides"]}
    assert set(sides) == {(m.pid(0),), (m.pid(1),)}
    defending = {w["id"]: w for w in sides[(m.pid(0),)]["warbands"]}
    assert set(defending) == {guard["id"], watch["id"]}
    g = defending[guard["id"]]
    assert [e["model_id"] for e in g["roster"]] == sorted(x["id"] for x in guard["models"] + extra)
    assert not any(e.get("mercenary") for e in g["roster"])  # no mercenary in the roster ...
    assert g["points"] == 70 + 12  # ... nor in its points
    assert defending[watch["id"]]["points"] == 46
    assert m.ledger(0) == gold0  # a defender pays no mercenary fee
    announced = m.chronicle("battle_announced")[0]["text"]
    assert "Guard" in announced and "Attackers" in announced
    assert "Kuzlo" not in str(battle)


def test_r9_8_the_players_own_arrival_makes_nobody_defend(client):
    m = movement_campaign(client)
    m.band(0, "Home")  # stands at Ash without an order
    out = m.band(0, "Out")
    m.phase("orders")
    m.sent(0, out["id"], place_id=m.places["Ash"])  # it stays, the other one stands there too
    m.phase("battles")
    assert m.battles() == []


def test_r9_8_r4_7_a_defender_fights_only_with_the_models_able_to_fight(client, engine):
    # Guard: a Krusher and three Axes, one dead and one resting; Husk: nobody able to fight.
    m = movement_campaign(client)
    guard = m.band(0, "Guard", keys=ORC_BAND)
    husk = m.band(0, "Husk", keys=("orcs.krusher", "orcs.ax"))
    attackers = m.band(1, "Attackers")
    krusher, dead, resting, ax = (x["id"] for x in guard["models"])
    set_status(engine, {dead: "dead", resting: "miss_next", husk["models"][0]["id"]: "captured", husk["models"][1]["id"]: "dead"})
    m.phase("orders")
    m.sent(1, attackers["id"], place_id=m.places["Ash"])
    m.phase("battles")
    [battle] = m.battles()
    [side] = [s for s in battle["sides"] if s["player_ids"] == [m.pid(0)]]
    [g] = side["warbands"]
    assert (g["id"], [e["model_id"] for e in g["roster"]], g["points"]) == (guard["id"], [krusher, ax], 34 + 12)
    assert husk["id"] not in {a["warband_id"] for row in m.get("gm", "/twilight").json()["places"] for a in row["arrivals"]}


def test_r9_8_a_defender_meets_the_enemy_at_whichever_event_of_its_place_they_come_to(client):
    # Two events at player1's Bree: player1's own Out goes to the first, player0 to the second.
    m = movement_campaign(client)
    first, second = m.event("Bree", "First gate"), m.event("Bree", "Second gate")
    guard, out, attackers = m.band(1, "Guard"), m.band(1, "Out"), m.band(0, "Attackers")
    m.phase("orders")
    m.sent(1, out["id"], event_id=first)
    m.sent(0, attackers["id"], event_id=second)
    m.phase("battles")
    [battle] = m.battles()
    assert battle["event_id"] == second
    assert sorted(w["id"] for s in battle["sides"] for w in s["warbands"]) == sorted([guard["id"], attackers["id"]])


def _guild_campaign(client) -> M:
    m = movement_campaign(client, 3, modules={"guilds": True}, guild=GUILD, starting_gold=400)
    r = m.post(0, "/guilds", {"name": "Brothers"})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    inv = m.post(0, f"/guilds/{gid}/invitations", {"player_id": m.pid(1)})
    assert inv.status_code == 201, inv.text
    assert m.post(1, f"/guilds/{gid}/invitations/{inv.json()['id']}/accept").status_code == 200
    return m


@pytest.mark.parametrize("enemy_comes", [False, True], ids=["ally_only", "ally_and_enemy"])
def test_r9_8_r6_2_allies_arriving_do_not_make_a_defender_fight(client, enemy_comes):
    # Player1 stands in its hideout Bree; player0, its guild mate, comes there (and player2, not
    # in the guild, comes too in the second case: then the defender fights beside its ally).
    m = _guild_campaign(client)
    bree = m.places["Bree"]
    mate, guard, enemy = m.band(0, "Mates"), m.band(1, "Guard"), m.band(2, "Enemy")
    m.phase("orders")
    m.sent(0, mate["id"], place_id=bree)
    if enemy_comes:
        m.sent(2, enemy["id"], place_id=bree)
    m.phase("battles")
    battles = m.battles()
    if not enemy_comes:
        assert battles == []
        arrivals = {a["warband_id"]: a["kind"] for row in m.get("gm", "/twilight").json()["places"] for a in row["arrivals"]}
        assert guard["id"] not in arrivals and arrivals[mate["id"]] == "unopposed"
        return
    [battle] = battles
    sides = sorted((sorted(s["player_ids"]), sorted(w["id"] for w in s["warbands"])) for s in battle["sides"])
    assert sides == sorted([([m.pid(0), m.pid(1)], sorted([mate["id"], guard["id"]])), ([m.pid(2)], [enemy["id"]])])


def test_r9_8_r6_6_the_owner_standing_at_its_place_is_the_defender_in_a_scenario_with_roles(client):
    m = movement_campaign(client)
    siege = m.event("Bree", "Siege", roles="attacker_defender")
    guard, attackers = m.band(1, "Guard"), m.band(0, "Attackers")
    m.phase("orders")
    m.sent(0, attackers["id"], event_id=siege)
    m.phase("battles")
    [battle] = m.battles()
    assert (battle["event_id"], battle["roles"]) == (siege, True)
    roles = {tuple(s["player_ids"]): (s["role"], [w["id"] for w in s["warbands"]]) for s in battle["sides"]}
    assert roles == {(m.pid(1),): ("defender", [guard["id"]]), (m.pid(0),): ("attacker", [attackers["id"]])}


# --- 4. after the round ------------------------------------------------------------------------------

# Where player1's warband stands / who goes where (an event there when named) / the battle's
# winners (player indices; [] a draw; None: no battle) / where player0's and player1's warbands
# stand after End round.
OUTCOMES = [
    ("stay", "Bree", {}, None, None, ("Ash", "Bree")),
    ("unopposed_move_arrives", "Bree", {0: "Ford"}, None, None, ("Ford", "Bree")),
    # Nobody at player1's Bree (Guard went to Ford): player0 gets there, without taking it (R7.4).
    ("unopposed_move_to_an_owned_place_arrives", "Bree", {0: "Bree", 1: "Ford"}, None, None, ("Bree", "Ford")),
    ("won_move_stays_lost_attack_goes_back", "Bree", {0: "Ford", 1: "Ford"}, None, [0], ("Ford", "Bree")),
    ("drawn_attacks_go_back", "Bree", {0: "Ford", 1: "Ford"}, None, [], ("Ash", "Bree")),
    ("defender_holds_attack_goes_back", "Ford", {0: "Ford"}, None, [1], ("Ash", "Ford")),
    ("defender_draws_and_stays", "Ford", {0: "Ford"}, None, [], ("Ash", "Ford")),
    ("beaten_defender_falls_back_to_its_hideout", "Ford", {0: "Ford"}, None, [0], ("Ford", "Bree")),
    ("beaten_defender_with_no_hideout_left_is_scattered", "Bree", {0: "Bree"}, None, [0], ("Bree", None)),
    ("defender_holding_its_hideout_stays", "Bree", {0: "Bree"}, None, [1], ("Ash", "Bree")),
    # A warband that stays at its own place for an event there and loses is a beaten defender too.
    ("beaten_while_staying_for_an_event_at_home_falls_back", "Bree", {0: "Bree", 1: "Bree"}, "Bree", [0], ("Bree", None)),
    ("holding_an_event_at_home_stays", "Bree", {0: "Bree", 1: "Bree"}, "Bree", [1], ("Ash", "Bree")),
]


@pytest.mark.parametrize(
    "stands, orders, event_at, winners, after", [case[1:] for case in OUTCOMES], ids=[case[0] for case in OUTCOMES]
)
def test_r9_8_where_warbands_stand_after_end_round(client, stands, orders, event_at, winners, after):
    m = movement_campaign(client)
    event = m.event(event_at, "Stand-off") if event_at else None
    bands = [m.band(0, "Raiders"), m.band(1, "Guard")]
    if stands != "Bree":
        m.placed(bands[1]["id"], m.places[stands])
    m.phase("orders")
    for i, place in orders.items():
        m.sent(i, bands[i]["id"], **({"event_id": event} if place == event_at else {"place_id": m.places[place]}))
    m.phase("battles")
    battles = m.battles()
    assert len(battles) == (0 if winners is None else 1)
    m.play({b["place_id"]: winners for b in battles})
    assert m.campaign()["round"] == 2
    expected = [m.places[a] if a else None for a in after]
    assert [m.location(i, bands[i]["id"]) for i in range(2)] == expected
    assert m.positions(1) == {b["id"]: p for b, p in zip(bands, expected) if p is not None}
    scattered = m.chronicle("warband_scattered")
    if after[1] is None:
        assert [e["text"] for e in scattered] == [
            "Guard was beaten at Bree with no hideout left to fall back to: it is scattered, and the game master places it."
        ]
    else:
        assert scattered == []


def test_r9_8_r2_3_positions_change_with_end_round_in_one_transaction(client, monkeypatch):
    """A step after the movement failing rolls the whole End round back: nobody moved."""
    from app.rounds import service as rounds

    m = movement_campaign(client)
    raiders, guard = m.band(0, "Raiders"), m.band(1, "Guard")
    m.phase("orders")
    m.sent(0, raiders["id"], place_id=m.places["Bree"])
    m.phase("battles")
    [battle] = m.battles()
    m.post("gm", f"/battles/{battle['id']}/resolve", {"winner_player_ids": [m.pid(0)]})
    m.phase("settlement")
    for i, wid in ((0, raiders["id"]), (1, guard["id"])):
        assert m.post(i, f"/battles/{battle['id']}/settlements/{wid}/close").status_code == 200
    m.phase("twilight")
    before = (m.positions(), m.chronicle(), m.owners())

    def broken(*_a, **_k):
        raise RuntimeError("a later End round step fails")

    monkeypatch.setattr(rounds.events, "expire_events", broken)
    r = m.post("gm", "/end-round", {"round": 1})
    assert r.status_code == 500 and error_code(r) == "internal_error"
    assert (m.positions(), m.chronicle(), m.owners()) == before
    assert [m.location(0, raiders["id"]), m.location(1, guard["id"])] == [m.places["Ash"], m.places["Bree"]]
    monkeypatch.undo()
    assert m.post("gm", "/end-round", {"round": 1}).status_code == 200
    assert [m.location(0, raiders["id"]), m.location(1, guard["id"])] == [m.places["Bree"], None]


# The beaten defender stands at Ford (50, 50); its player holds Bree and Crag. Paths: Ford -
# Crag one step; Ford - Glen - Weir - Bree three steps; Ash - Ford for the attacker.
NEAREST_MAP = {
    "Ash": (10, 10, True),
    "Bree": (60, 50, True),
    "Crag": (10, 90, True),
    "Ford": (50, 50, False),
    "Glen": (50, 70, False),
    "Weir": (60, 70, False),
}
NEAREST_LINKS = [
    ("Ash", "Ford", False),
    ("Ford", "Crag", False),
    ("Ford", "Glen", False),
    ("Glen", "Weir", False),
    ("Weir", "Bree", False),
]
TIE_MAP = {**NEAREST_MAP, "Bree": (50, 90, True), "Crag": (50, 10, True)}  # both 40 from Ford


@pytest.mark.parametrize(
    "paths, places, links, expected",
    [
        (True, NEAREST_MAP, NEAREST_LINKS, "Crag"),  # fewest path steps
        (False, NEAREST_MAP, [], "Bree"),  # the straight line
        (False, TIE_MAP, [], "Bree"),  # a tie: the lowest id
        (True, NEAREST_MAP, NEAREST_LINKS + [("Ford", "Bree", False)], "Bree"),  # one step each: the lowest id
    ],
    ids=["paths_fewest_steps", "no_paths_straight_line", "no_paths_tie_lowest_id", "paths_tie_lowest_id"],
)
def test_r9_8_a_beaten_defender_falls_back_to_the_nearest_hideout_of_its_player(client, engine, paths, places, links, expected):
    m = movement_campaign(client, paths=paths, places=places, links=links)
    give_hideout(engine, m.places["Crag"], m.pid(1))
    raiders, guard = m.band(0, "Raiders"), m.band(1, "Guard")
    assert guard["location_place_id"] == m.places["Bree"]
    m.placed(guard["id"], m.places["Ford"])
    m.phase("orders")
    m.sent(0, raiders["id"], place_id=m.places["Ford"])
    m.play({m.places["Ford"]: [0]})
    assert m.location(1, guard["id"]) == m.places[expected]
    assert m.location(0, raiders["id"]) == m.places["Ford"]


def test_r9_8_a_scattered_warband_cannot_move_until_the_gm_places_it(client):
    m = movement_campaign(client)
    ash, bree, ford = m.places["Ash"], m.places["Bree"], m.places["Ford"]
    raiders, guard = m.band(0, "Raiders"), m.band(1, "Guard")
    m.phase("orders")
    m.sent(0, raiders["id"], place_id=bree)
    m.play({bree: [0]})  # player1 loses its only hideout: Guard is scattered
    assert m.location(1, guard["id"]) is None and guard["id"] not in m.positions()
    assert m.owners()[m.pid(1)]["hideouts"] == []
    r = m.post("gm", "/end-round", {"round": 1})  # End round again changes nothing
    m.refused(r, 409, "end_round_mismatch")
    assert m.location(1, guard["id"]) is None and len(m.chronicle("warband_scattered")) == 1
    m.phase("orders")
    before = (m.warbands(1), m.ledger(1))
    m.refused(m.send(1, guard["id"], place_id=ford), 409, "warband_scattered")
    m.refused(m.patch(1, f"/warbands/{guard['id']}", {"model_ids": []}), 409, "warband_away")
    # Only the GM places it: players are refused, another campaign's place or warband is not found.
    other = create_campaign(client, m.gm, name="Elsewhere")["id"]
    foreign = add_place(client, m.gm, other, "Far away")["id"]
    for who, wid, place, status in (
        (1, guard["id"], ford, 403),
        (0, guard["id"], ford, 403),
        ("gm", guard["id"], foreign, 404),
        ("gm", 2**31 - 1, ford, 404),
    ):
        r = m.place_warband(who, wid, place)
        assert r.status_code == status, r.text
    assert m.place_warband(user(client, "outsider"), guard["id"], ford).status_code == 404
    assert error_code(m.place_warband(1, guard["id"], ford)) == "gm_only"
    assert (m.warbands(1), m.ledger(1)) == before
    r = m.place_warband("gm", guard["id"], ford)
    assert r.status_code == 200, r.text
    assert r.json() == {"warband_id": guard["id"], "name": "Guard", "player_id": m.pid(1), "place_id": ford}
    assert m.positions(0)[guard["id"]] == ford
    assert m.sent(1, guard["id"], place_id=ash)["from_place_id"] == ford


# --- 5. rosters change only in a hideout -----------------------------------------------------------


def test_r9_8_a_warband_away_from_its_hideouts_keeps_its_roster_and_items(client):
    m = movement_campaign(client)
    raiders = m.band(0, "Raiders")
    krusher, ax = raiders["models"]
    spare = m.buy(0, "orcs.ax")[0]
    bandages = m.post(0, "/company/items", {"item": "item.bandages"}).json()
    potion = m.post(0, "/company/items", {"item": "item.bandages"}).json()
    assert m.put(0, f"/company/items/{bandages['id']}", {"model_id": krusher["id"]}).status_code == 200
    m.placed(raiders["id"], m.places["Ford"])  # it stands away from Ash
    url = f"/warbands/{raiders['id']}"
    before = (m.warbands(0), m.get(0, "/company").json())
    for r, code in (
        (m.patch(0, url, {"model_ids": [krusher["id"], ax["id"], spare["id"]]}), "warband_away"),
        (m.patch(0, url, {"name": "Renamed", "mercenary": EVIL_MERCENARY}), "warband_away"),  # the name stays too
        (m.delete(0, url), "warband_away"),
        (m.put(0, f"/company/items/{bandages['id']}", {"model_id": None}), "model_away"),  # off a model away
        (m.put(0, f"/company/items/{bandages['id']}", {"model_id": ax["id"]}), "model_away"),  # between two of them
        (m.put(0, f"/company/items/{potion['id']}", {"model_id": ax["id"]}), "model_away"),  # onto a model away
    ):
        m.refused(r, 409, code)
    assert (m.warbands(0), m.get(0, "/company").json()) == before
    # A name is no roster; a model outside the warband is free.
    assert m.patch(0, url, {"name": "Wanderers"}).json()["name"] == "Wanderers"
    # ... also when the same roster comes with it (the builder posts the whole form).
    r = m.patch(0, url, {"name": "Far Wanderers", "model_ids": [ax["id"], krusher["id"]]})
    assert r.status_code == 200 and r.json()["name"] == "Far Wanderers", r.text
    assert m.put(0, f"/company/items/{potion['id']}", {"model_id": spare["id"]}).status_code == 200
    # Back in a hideout it may change again.
    m.placed(raiders["id"], m.places["Ash"])
    assert m.put(0, f"/company/items/{bandages['id']}", {"model_id": ax["id"]}).status_code == 200
    r = m.patch(0, url, {"model_ids": [krusher["id"], ax["id"], spare["id"]]})
    assert r.status_code == 200 and r.json()["points"] > raiders["points"], r.text
    assert m.delete(0, url).status_code == 204


# --- 6. the module off ---------------------------------------------------------------------------------


def test_r9_8_r9_7_with_the_module_off_no_positions_no_defenders_and_paths_from_owned_places(client):
    m = movement_campaign(client, movement=False, paths=True, places=PATH_MAP, links=PATH_LINKS)
    bree, glen = m.places["Bree"], m.places["Glen"]
    raiders = m.band(0, "Raiders")
    r = m.create(
        1,
        "Guard",
        m.buy(1, "basileans.veteran-sergeant", "basileans.man-at-arms", "basileans.man-at-arms"),
        location_place_id=bree,
    )
    assert r.status_code == 201 and r.json()["location_place_id"] is None
    guard = r.json()
    assert [w["location_place_id"] for w in m.warbands(0).values()] == [None]
    assert m.positions("gm") == {} and m.positions(1) == {}
    m.refused(m.place_warband("gm", raiders["id"], glen), 409, "module_disabled")
    m.phase("orders")
    m.refused(m.send(0, raiders["id"], place_id=glen), 409, "order_unreachable")  # R9.7: two paths from Ash
    m.refused(m.send(0, raiders["id"], place_id=bree), 409, "order_unreachable")
    # Glen is one path from player1's Bree, Ford one from player0's Ash (R9.7).
    assert m.sent(1, guard["id"], place_id=glen)["from_place_id"] is None
    assert m.sent(0, raiders["id"], place_id=m.places["Ford"])["from_place_id"] is None
    m.phase("battles")
    assert m.battles() == []  # Guard went out; nobody defends Bree anyway


def test_r9_8_with_the_module_off_a_warband_left_at_home_does_not_defend(client):
    m = movement_campaign(client, movement=False)
    raiders, guard = m.band(0, "Raiders"), m.band(1, "Guard")
    m.phase("orders")
    m.sent(0, raiders["id"], place_id=m.places["Bree"])
    m.phase("battles")
    assert m.battles() == []
    m.play()
    assert [m.location(0, raiders["id"]), m.location(1, guard["id"])] == [None, None]
    assert m.chronicle("warband_scattered") == []
    assert m.places["Bree"] in m.owners()[m.pid(1)]["places"]  # nobody defended, and it met nobody (R7.4)

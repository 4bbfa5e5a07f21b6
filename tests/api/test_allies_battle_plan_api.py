"""The battle plan and Twilight with real guilds and mission alliances over the API (R6.2,
R7.3, R8.8, R8.10): allies stand on one side and may win together; allies alone at a place
do not fight and win unopposed; the place goes to the guild's founder (also when the
founder's warband was not there) or to the alliance's initiator; mission allies are allied
only at their event and only in their round."""

from __future__ import annotations

from sqlmodel import Session, select

from app.maps.models import Hideout
from tests.builders.guilds import allied_at_an_event, guild_campaign, make_alliance, make_guild, orders, sides_of


def _to_twilight(g, winners: dict[int, list[int]] | None = None) -> dict:
    """Battles → Twilight: the GM resolves each battle (battle id → winner indices), each
    fighter closes their settlement."""
    for battle in g.battles():
        won = [g.pid(i) for i in (winners or {}).get(battle["id"], [])]
        r = g.post("gm", f"/battles/{battle['id']}/resolve", {"winner_player_ids": won})
        assert r.status_code == 200, r.text
    g.phase("settlement")
    by_band = {p["band"]["id"]: i for i, p in enumerate(g.players) if "band" in p}
    for battle in g.battles():
        for side in battle["sides"]:
            for w in side["warbands"]:
                r = g.post(by_band[w["id"]], f"/battles/{battle['id']}/settlements/{w['id']}/close")
                assert r.status_code == 200, r.text
    g.phase("twilight")
    return g.twilight()


def _row(twilight: dict, place_id: int) -> dict:
    return next(r for r in twilight["places"] if r["place_id"] == place_id)


def _hideout_holder(engine, place_id: int) -> int | None:
    with Session(engine) as s:
        return s.exec(select(Hideout.player_id).where(Hideout.place_id == place_id)).first()


def test_r6_2_r8_10_r7_3_guild_members_stand_together_win_together_and_the_founder_takes_the_place(client, engine):
    g = guild_campaign(client, 4)
    make_guild(g, 0, 1, 3)
    for i in (1, 2, 3):
        g.band(i)
    free = g.places[4]["id"]
    orders(g, p1=("place", 4), p2=("place", 4), p3=("place", 4))  # the founder stays at home
    g.phase("battles")
    [battle] = g.battles()
    assert sides_of(battle) == sorted([sorted([g.pid(1), g.pid(3)]), [g.pid(2)]])
    twilight = _to_twilight(g, {battle["id"]: [1, 3]})
    row = _row(twilight, free)
    assert (row["outcome"], row["reason"], row["proposed_owner_player_id"], row["needs_gm_choice"]) == (
        "taken",
        "guild",
        g.pid(0),
        False,
    )
    g.end_round()
    assert free in g.owners()[g.pid(0)] and _hideout_holder(engine, free) == g.pid(0)
    assert free not in g.owners()[g.pid(1)] and free not in g.owners()[g.pid(3)]


def test_r8_10_r7_4_guild_members_alone_at_a_place_do_not_fight_and_the_founder_takes_it_without_being_there(client, engine):
    g = guild_campaign(client, 3)
    make_guild(g, 0, 1, 2)
    for i in (1, 2):
        g.band(i)
    free = g.places[3]["id"]
    orders(g, p1=("place", 3), p2=("place", 3))
    g.phase("battles")
    assert g.battles() == []  # only allies: no battle (R8.10)
    assert g.campaign()["phase"] == "battles"
    twilight = _to_twilight(g)
    row = _row(twilight, free)
    assert (row["outcome"], row["reason"], row["proposed_owner_player_id"], row["needs_gm_choice"]) == (
        "taken",
        "unopposed_guild",
        g.pid(0),
        False,
    )
    assert {a["kind"] for a in row["arrivals"]} == {"unopposed"}
    g.end_round()
    assert free in g.owners()[g.pid(0)] and _hideout_holder(engine, free) == g.pid(0)


def test_r8_10_mission_allies_alone_at_their_event_win_unopposed_and_the_initiator_takes_the_place(client, engine):
    g = guild_campaign(client, 4)
    bridge = g.event(4, "Bridge")
    make_alliance(g, 1, bridge, 2, 3)
    for i in (2, 3):
        g.band(i)
    free = g.places[4]["id"]
    orders(g, p2=("event", bridge), p3=("event", bridge))  # the initiator stays at home
    g.phase("battles")
    assert g.battles() == []
    row = _row(_to_twilight(g), free)
    assert (row["outcome"], row["reason"], row["proposed_owner_player_id"]) == ("taken", "unopposed_alliance", g.pid(1))
    g.end_round()
    assert free in g.owners()[g.pid(1)] and _hideout_holder(engine, free) == g.pid(1)


def test_r6_2_r8_8_mission_allies_stand_together_against_others_and_the_initiator_takes_what_they_win(client):
    g = guild_campaign(client, 3)
    allied_at_an_event(g)
    g.phase("battles")
    [battle] = g.battles()
    assert sides_of(battle) == sorted([sorted([g.pid(0), g.pid(1)]), [g.pid(2)]])
    row = _row(_to_twilight(g, {battle["id"]: [0, 1]}), g.places[3]["id"])
    assert (row["outcome"], row["reason"], row["proposed_owner_player_id"]) == ("taken", "alliance", g.pid(0))


def test_r8_7_mission_allies_are_allied_only_at_their_event(client):
    g = guild_campaign(client, 2)
    bridge, ford = g.event(2, "Bridge"), g.event(3, "Ford")
    make_alliance(g, 0, bridge, 1)
    for i in range(2):
        g.band(i)
    orders(g, p0=("event", ford), p1=("event", ford))
    g.phase("battles")
    [battle] = g.battles()
    assert battle["event_id"] == ford and sides_of(battle) == sorted([[g.pid(0)], [g.pid(1)]])


def test_r8_8_an_alliance_lapses_at_end_round_and_its_members_fight_each_other_the_next_round(client, engine):
    g = guild_campaign(client, 2)
    siege = g.post("gm", "/events", {"place_id": g.places[2]["id"], "title": "Long siege", "duration": 2}).json()["id"]
    make_alliance(g, 0, siege, 1)
    for i in range(2):
        g.band(i)
    orders(g, p0=("event", siege), p1=("event", siege))
    g.phase("battles")
    assert g.battles() == []
    row = _row(_to_twilight(g), g.places[2]["id"])
    assert (row["reason"], row["proposed_owner_player_id"]) == ("unopposed_alliance", g.pid(0))
    g.end_round()
    assert g.places[2]["id"] in g.owners()[g.pid(0)]
    # Round 2: the event goes on, the alliance has lapsed: the two fight.
    orders(g, p0=("event", siege), p1=("event", siege))
    g.phase("battles")
    [battle] = g.battles()
    assert battle["round"] == 2 and sides_of(battle) == sorted([[g.pid(0)], [g.pid(1)]])


def test_r8_10_a_guild_member_and_an_outsider_alone_at_a_place_fight(client):
    g = guild_campaign(client, 3)
    make_guild(g, 0, 1)
    for i in (1, 2):
        g.band(i)
    orders(g, p1=("place", 3), p2=("place", 3))
    g.phase("battles")
    [battle] = g.battles()
    assert sides_of(battle) == sorted([[g.pid(1)], [g.pid(2)]])


def test_r8_10_r7_3_several_guild_and_outside_winners_leave_the_choice_to_the_gm(client):
    g = guild_campaign(client, 4)
    make_guild(g, 0, 1)
    for i in (1, 2, 3):
        g.band(i)
    orders(g, p1=("place", 4), p2=("place", 4), p3=("place", 4))
    g.phase("battles")
    [battle] = g.battles()
    assert sides_of(battle) == sorted([[g.pid(1)], [g.pid(2)], [g.pid(3)]])
    row = _row(_to_twilight(g, {battle["id"]: [1, 2]}), g.places[4]["id"])
    assert (row["reason"], row["needs_gm_choice"], row["candidates"]) == ("winners_choice", True, sorted([g.pid(1), g.pid(2)]))


def test_r8_6_r7_3_guild_changes_after_the_battles_do_not_change_who_takes_the_place(client, engine):
    """Decision: the sides of the round and Twilight's captures read the guilds as they stood
    when the battles were announced. A member who leaves after the battle is resolved (R8.6
    allows it then) still counts for the founder's capture; a guild founded afterwards by two
    rival winners does not hand the place over."""
    g = guild_campaign(client, 4)
    gid = make_guild(g, 0, 1, 3)
    for i in (1, 2, 3):
        g.band(i)
    free = g.places[4]["id"]
    orders(g, p1=("place", 4), p2=("place", 4), p3=("place", 4))
    g.phase("battles")
    [battle] = g.battles()
    r = g.post("gm", f"/battles/{battle['id']}/resolve", {"winner_player_ids": [g.pid(1), g.pid(3)]})
    assert r.status_code == 200, r.text
    assert g.post(3, f"/guilds/{gid}/leave").status_code == 204  # resolved: leaving is allowed
    twilight = _to_twilight(g, {battle["id"]: [1, 3]})
    row = _row(twilight, free)
    assert (row["reason"], row["proposed_owner_player_id"], row["needs_gm_choice"]) == ("guild", g.pid(0), False)


def test_r8_7_an_event_ended_before_battles_ends_its_mission_alliances_and_returns_their_fees(client):
    """Decision: like the orders' mercenary fees (R5.5), the fees paid for a mission alliance at
    an event the GM ends before Battles come back, and the alliance ends (never revealed)."""
    g = guild_campaign(client, 3)
    ev = g.event(3, "Moonlit Raid")
    before = g.balances()
    aid = make_alliance(g, 0, ev, 1)
    assert g.balances()[0] < before[0] and g.balances()[1] < before[1]
    r = client.delete(g.url(f"/events/{ev}"), headers=g.h("gm"))
    assert r.status_code == 200, r.text
    assert g.balances() == before
    assert all(a["status"] == "ended" for a in g.alliances(0) if a["id"] == aid)
    g.phase("orders")
    g.phase("battles")
    assert not [t for t in g.chronicle_texts() if "Moonlit Raid:" in t and "with" in t]

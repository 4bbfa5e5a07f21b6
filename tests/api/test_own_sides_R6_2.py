"""R6.2 with the movement module (R9.8): one player never fights themself. A warband of a
player standing at a place (it defends there) and another of the same player sent there are
one side: with room for both (the multi-band module) they fight together, without it one of
them is left out (R6.4) — never set against each other. Alone there, they win unopposed."""

from __future__ import annotations

import pytest

from tests.builders.movement import movement_campaign


def _sides(battle) -> list[set[int]]:
    return [set(side["player_ids"]) for side in battle["sides"]]


def _no_one_fights_themself(battles) -> None:
    for battle in battles:
        sides = _sides(battle)
        players = [p for side in sides for p in side]
        assert len(players) == len(set(players)), battle  # nobody stands on two sides
        for side in battle["sides"]:
            assert {w["player_id"] for w in side["warbands"]} == set(side["player_ids"]), battle


@pytest.mark.parametrize("at_event", [False, True])
def test_R6_2_a_standing_warband_and_one_sent_by_the_same_player_are_one_side(client, at_event):
    m = movement_campaign(client, modules={"multi_band_battles": True})
    ford = m.places["Ford"]
    home, out = m.band(0, "Home"), m.band(0, "Out")
    raid = m.band(1, "Raid")
    m.placed(home["id"], ford)  # Home stands at Ford without an order: it defends there
    target = {"event_id": m.event("Ford", "Fair")} if at_event else {"place_id": ford}
    m.phase("orders")
    m.sent(0, out["id"], **target)
    m.sent(1, raid["id"], **target)
    m.phase("battles")
    [battle] = m.battles()
    _no_one_fights_themself([battle])
    by_player = {tuple(side["player_ids"]): sorted(w["id"] for w in side["warbands"]) for side in battle["sides"]}
    assert by_player == {(m.pid(0),): sorted([home["id"], out["id"]]), (m.pid(1),): [raid["id"]]}


def test_R6_2_R6_4_without_room_for_both_one_of_the_players_warbands_is_left_out_not_set_against_the_other(client):
    m = movement_campaign(client, modules={"multi_band_battles": False})
    ford = m.places["Ford"]
    home, out = m.band(0, "Home"), m.band(0, "Out")
    raid = m.band(1, "Raid")
    m.placed(home["id"], ford)
    m.phase("orders")
    m.sent(0, out["id"], place_id=ford)
    m.sent(1, raid["id"], place_id=ford)
    m.phase("battles")
    [battle] = m.battles()
    _no_one_fights_themself([battle])
    assert sorted(tuple(s["player_ids"]) for s in battle["sides"]) == sorted([(m.pid(0),), (m.pid(1),)])
    fighting = {w["id"] for side in battle["sides"] for w in side["warbands"]}
    assert raid["id"] in fighting and len(fighting & {home["id"], out["id"]}) == 1


def test_R6_2_the_players_own_warbands_alone_at_a_place_make_no_battle(client):
    m = movement_campaign(client)
    ford = m.places["Ford"]
    home, out = m.band(0, "Home"), m.band(0, "Out")
    m.placed(home["id"], ford)
    m.phase("orders")
    m.sent(0, out["id"], place_id=ford)
    m.phase("battles")
    assert m.battles() == []

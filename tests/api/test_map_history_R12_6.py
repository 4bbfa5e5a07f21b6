"""R12.6, the map through time over the API: End round keeps each place's owner and hideout,
`GET /map?round=N` gives the map as round N was played (the current map without it), a
round not played or not a round is refused, and a past map shows no warbands or events."""

from __future__ import annotations

from sqlmodel import Session, select

from app.archive.models import PlaceRound
from tests.builders.responses import error_code
from tests.builders.settlements import close_all, play_round


def _ended_round(client):
    """Round 1: player 0 takes player 1's hideout (places[1]); round 2 is in Preparation."""
    rnd = play_round(client, place=1)
    close_all(rnd)
    assert rnd.phase("twilight").status_code == 200
    r = client.post(f"/api/v1/campaigns/{rnd.cid}/end-round", json={"round": 1}, headers=rnd.gm)
    assert r.status_code == 200, r.text
    return rnd


def _places(client, rnd, who, **query):
    r = client.get(f"/api/v1/campaigns/{rnd.cid}/map", params=query, headers=who)
    assert r.status_code == 200, r.text
    return {p["id"]: (p["owner_player_id"], p["hideout"]) for p in r.json()["places"]}, r.json()


def test_r12_6_the_map_of_round_1_shows_owners_and_hideouts_before_the_capture(client, engine):
    rnd = _ended_round(client)
    p0, p1 = rnd.players[0]["player_id"], rnd.players[1]["player_id"]
    target = rnd.places[1]["id"]
    now, _ = _places(client, rnd, rnd.h(1))
    then, body = _places(client, rnd, rnd.h(1), round=1)
    assert now[target] == (p0, True)
    assert then[target] == (p1, True)  # player 1 still held it when round 1 was played
    assert then[rnd.places[0]["id"]] == (p0, True) and then[rnd.places[2]["id"]] == (None, False)
    assert body["warband_positions"] == [] and all(p["events"] == [] for p in body["places"])
    # The current round asked by its number is the current map.
    assert _places(client, rnd, rnd.gm, round=2)[0] == _places(client, rnd, rnd.gm)[0]
    with Session(engine) as s:
        rows = s.exec(select(PlaceRound).where(PlaceRound.campaign_id == rnd.cid)).all()
    assert {r.round for r in rows} == {1} and len(rows) == 3


def test_r12_6_a_round_not_played_is_not_found_and_not_a_round_is_refused(client):
    rnd = _ended_round(client)
    for bad, status in ((3, 404), (99, 404), (0, 422), (-1, 422), ("x", 422)):
        r = client.get(f"/api/v1/campaigns/{rnd.cid}/map", params={"round": bad}, headers=rnd.h(0))
        assert r.status_code == status, (bad, r.text)
        if status == 404:
            assert error_code(r) == "not_found"


def test_r12_6_an_outsider_sees_no_map_of_any_round(client):
    from tests.builders.accounts import user

    rnd = _ended_round(client)
    outsider = user(client, "outsider")
    assert client.get(f"/api/v1/campaigns/{rnd.cid}/map", params={"round": 1}, headers=outsider).status_code == 404

"""A battle in Battles whose clock the tests run (issue 18)."""

from tests.builders.battles import battles, campaign_with_warbands
from tests.builders.rounds import fight


def clock_battle(client, n_players: int = 2):
    """(gm, cid, players, battle): every player's warband at one place, one battle announced."""
    gm, cid, players, places = campaign_with_warbands(client, n_players)
    fight(client, gm, cid, players, place_id=places[-1]["id"])
    found = battles(client, cid, gm)
    assert len(found) == 1, found
    return gm, cid, players, found[0]


def clock_url(cid: int, battle: dict) -> str:
    return f"/api/v1/campaigns/{cid}/battles/{battle['id']}/clock"


def tap(client, cid, battle, headers, expect: int = 200, **body):
    r = client.post(clock_url(cid, battle), json=body, headers=headers)
    assert r.status_code == expect, r.text
    return r.json()


def sides(battle: dict) -> list[int]:
    return [s["side"] for s in battle["sides"]]


def clock_battle_with_onlooker(client):
    """(gm, cid, players, battle): players 0 and 1 fight at one place; player 2 is a member
    whose warband stays home, so it may read the clock but not run it."""
    gm, cid, players, places = campaign_with_warbands(client, 3)
    fight(client, gm, cid, players[:2], place_id=places[-1]["id"])
    found = battles(client, cid, gm)
    assert len(found) == 1 and len(found[0]["sides"]) == 2, found
    return gm, cid, players, found[0]


def read_clock(client, cid, battle, headers, expect: int = 200) -> dict:
    r = client.get(clock_url(cid, battle), headers=headers)
    assert r.status_code == expect, r.text
    return r.json()

"""R12.8 co-GMs over the API: the GM shares the campaign with more game masters, who have
exactly the GM's rights (phases, gold adjustments, every GM-only read) and the GM's limits —
no mission alliance before Battles, no gold transfer, no letter not addressed to them. The GM
who created the campaign stays; a co-GM is never a player; refusals change nothing."""

from __future__ import annotations

from tests.builders.accounts import user
from tests.builders.guilds import guild_campaign
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase

MODULES = {"gold_transfers": True, "letters": True, "mission_alliances": True}


def _world(client):
    g = guild_campaign(client, 3, modules=MODULES)
    co = user(client, "cogm")
    r = g.post("gm", "/game-masters", {"nickname": "cogm"})
    assert r.status_code == 201, r.text
    assert r.json()["nickname"] == "cogm" and r.json()["owner"] is False
    return g, co


def _gms(g, headers=None):
    r = g.client.get(g.url("/game-masters"), headers=headers or g.gm)
    assert r.status_code == 200, r.text
    return [(x["nickname"], x["owner"]) for x in r.json()]


def test_r12_8_a_co_gm_has_the_gms_rights(client):
    g, co = _world(client)
    assert _gms(g) == [("gamemaster", True), ("cogm", False)]
    assert _gms(g, co) == _gms(g)
    # A GM action: the phase moves, gold is adjusted, the GM-only reads answer.
    to_phase(client, co, g.cid, "orders")
    assert client.get(g.url(), headers=g.gm).json()["phase"] == "orders"
    r = client.post(g.url("/ledger/adjustments"), json={"player_id": g.pid(0), "amount": 5, "reason": "Tidy"}, headers=co)
    assert r.status_code == 201, r.text
    assert client.get(g.url("/invitations"), headers=co).status_code == 200


def test_r12_8_r11_2_a_co_gm_sees_exactly_what_the_gm_sees_and_no_more(client):
    g, co = _world(client)
    ev = g.event(3, "Bridge")
    aid = g.ally(0, ev, 1)["id"]
    assert g.post(1, f"/alliances/{aid}/accept").status_code == 200
    r = client.post(g.url("/transfers"), json={"to_player_id": g.pid(1), "amount": 7, "note": "SECRET-GIFT"}, headers=g.h(0))
    assert r.status_code == 201, r.text
    r = client.post(g.url("/letters"), json={"to_player_id": g.pid(1), "subject": "SECRET-LETTER", "body": "x"}, headers=g.h(0))
    assert r.status_code == 201, r.text
    paths = [
        "/alliances",
        "/letters?box=in",
        "/letters?box=out",
        "/players",
        *(f"/ledger?player_id={g.pid(i)}" for i in range(3)),
        "/chronicle",
    ]
    for path in paths:
        as_gm, as_co = client.get(g.url(path), headers=g.gm), client.get(g.url(path), headers=co)
        assert (as_co.status_code, as_co.json()) == (as_gm.status_code, as_gm.json()), path
        assert "SECRET-GIFT" not in as_co.text and "SECRET-LETTER" not in as_co.text, path
    assert aid not in [a["id"] for a in client.get(g.url("/alliances"), headers=co).json()]
    assert client.get(g.url("/transfers"), headers=co).status_code in (403, 404)
    # From Battles on, the alliance is every member's to see: the co-GM's too.
    to_phase(client, g.gm, g.cid, "battles")
    seen = client.get(g.url("/alliances"), headers=co).json()
    assert seen == client.get(g.url("/alliances"), headers=g.gm).json()


def test_r12_8_refusals_change_nothing(client):
    g, co = _world(client)
    user(client, "stranger")
    before = _gms(g)
    for who, body, status, code in (
        (g.h(0), {"nickname": "stranger"}, 403, "gm_only"),  # a player adds nobody
        (g.gm, {"nickname": "nobody-here"}, 422, "user_unknown"),
        (g.gm, {"nickname": "cogm"}, 409, "already_gm"),
        (g.gm, {"nickname": "gamemaster"}, 409, "already_gm"),
        (g.gm, {"nickname": g.players[1]["nickname"]}, 409, "player_cannot_be_gm"),
    ):
        r = client.post(g.url("/game-masters"), json=body, headers=who)
        assert (r.status_code, error_code(r)) == (status, code), r.text
    owner_id = client.get(g.url("/game-masters"), headers=g.gm).json()[0]["user_id"]
    r = client.delete(g.url(f"/game-masters/{owner_id}"), headers=co)
    assert (r.status_code, error_code(r)) == (409, "owner_gm_stays")
    assert client.get(g.url("/game-masters"), headers=g.h(0)).status_code == 403
    assert client.get(g.url("/game-masters"), headers=user(client, "outsider")).status_code == 404
    assert _gms(g) == before


def test_r12_8_a_removed_co_gm_loses_the_campaign_and_a_co_gm_is_not_a_player(client):
    g, co = _world(client)
    co_id = client.get(g.url("/game-masters"), headers=g.gm).json()[1]["user_id"]
    # A co-GM cannot be invited as a player (the campaign's roster check says why).
    r = client.post(g.url("/invitations"), json={"nickname": "cogm"}, headers=g.gm)
    assert r.status_code in (409, 422), r.text
    assert client.delete(g.url(f"/game-masters/{co_id}"), headers=g.gm).status_code == 204
    assert _gms(g) == [("gamemaster", True)]
    assert client.get(g.url(), headers=co).status_code == 404
    assert client.post(g.url("/phase"), json={"phase": "orders"}, headers=co).status_code == 404
    assert client.delete(g.url(f"/game-masters/{co_id}"), headers=g.gm).status_code == 404

"""R12.10 a seat changes hands: a GM hands a player's seat (company, gold, warbands, places,
letters) to another user; the old user loses it at once — API, pages and the open live
stream — and the chronicle says so. Refusals change nothing."""

from __future__ import annotations

from sqlmodel import Session, select

from app.campaigns.models import Player
from tests.api.live_helpers import listen, stream_server
from tests.builders.accounts import user
from tests.builders.battles import campaign_with_warbands
from tests.builders.pages import browser
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase


def _api(cid: int, path: str = "") -> str:
    return f"/api/v1/campaigns/{cid}{path}"


def _seats(engine, cid):
    with Session(engine) as s:
        return sorted((p.id, p.user_id, p.gold) for p in s.exec(select(Player).where(Player.campaign_id == cid)).all())


def _world(client):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    p0, p1 = players
    r = client.post(
        _api(cid, "/letters"),
        json={"to_player_id": p0["player_id"], "subject": "For the seat", "body": "x"},
        headers=p1["headers"],
    )
    assert r.status_code == 201, r.text
    return gm, cid, p0, p1, places


def test_r12_10_the_seat_passes_with_everything_on_it(client, engine):
    gm, cid, p0, p1, places = _world(client)
    hana = user(client, "hana")
    company = client.get(_api(cid, "/company"), headers=p0["headers"]).json()
    warbands = client.get(_api(cid, "/warbands"), headers=p0["headers"]).json()
    ledger = client.get(_api(cid, "/ledger"), headers=p0["headers"]).json()
    r = client.post(_api(cid, f"/players/{p0['player_id']}/handover"), json={"nickname": "hana"}, headers=gm)
    assert r.status_code == 200, r.text
    assert (r.json()["player_id"], r.json()["nickname"]) == (p0["player_id"], "hana")
    # The new user holds the same company, warbands, gold and places; the letter is theirs.
    assert client.get(_api(cid, "/company"), headers=hana).json() == company
    assert client.get(_api(cid, "/warbands"), headers=hana).json() == warbands
    assert client.get(_api(cid, "/ledger"), headers=hana).json() == ledger
    assert [x["subject"] for x in client.get(_api(cid, "/letters"), headers=hana).json()["items"]] == ["For the seat"]
    mine = next(p for p in client.get(_api(cid, "/players"), headers=hana).json() if p["player_id"] == p0["player_id"])
    assert mine["hideouts"] == [places[0]["id"]]
    # The old user has lost it at once: the campaign is not there for them any more.
    for path in ("", "/company", "/warbands", "/ledger", "/letters", "/players"):
        assert client.get(_api(cid, path), headers=p0["headers"]).status_code == 404, path
    texts = [e["text"] for e in client.get(_api(cid, "/chronicle"), headers=gm).json()["items"]]
    assert "player0 hands their seat to hana." in texts


def test_r12_10_refusals_change_nothing(client, engine):
    gm, cid, p0, p1, places = _world(client)
    user(client, "hana")
    co = user(client, "cogm")
    assert client.post(_api(cid, "/game-masters"), json={"nickname": "cogm"}, headers=gm).status_code == 201
    before = _seats(engine, cid)
    url = _api(cid, f"/players/{p0['player_id']}/handover")
    for headers, body, status, code in (
        (p0["headers"], {"nickname": "hana"}, 403, "gm_only"),
        (user(client, "outsider"), {"nickname": "hana"}, 404, "not_found"),
        (gm, {"nickname": "nobody-here"}, 422, "user_unknown"),
        (gm, {"nickname": "player1"}, 409, "handover_user_busy"),
        (gm, {"nickname": "cogm"}, 409, "handover_user_busy"),
        (gm, {"nickname": "gamemaster"}, 409, "handover_user_busy"),
    ):
        r = client.post(url, json=body, headers=headers)
        assert (r.status_code, error_code(r)) == (status, code), r.text
    r = client.post(_api(cid, "/players/999999/handover"), json={"nickname": "hana"}, headers=co)
    assert r.status_code == 404
    assert _seats(engine, cid) == before


def test_r12_10_r11_4_the_old_users_live_stream_closes_and_pages_refuse(client, engine, listen, make_client):
    gm, cid, p0, p1, places = _world(client)
    user(client, "hana")
    old_page = browser(make_client, "player0")
    assert old_page.get(f"/campaigns/{cid}").status_code == 200
    s = listen(cid, p0["headers"])
    other = listen(cid, p1["headers"])
    r = client.post(_api(cid, f"/players/{p0['player_id']}/handover"), json={"nickname": "hana"}, headers=gm)
    assert r.status_code == 200, r.text
    ev = s.next()
    assert (ev.kind, ev.data["reason"]) == ("closed", "not_member")
    assert s.ended.wait(5)
    to_phase(client, gm, cid, "orders")
    assert other.next().data["phase"] == "orders"
    assert old_page.get(f"/campaigns/{cid}").status_code == 404
    assert browser(make_client, "hana").get(f"/campaigns/{cid}").status_code == 200

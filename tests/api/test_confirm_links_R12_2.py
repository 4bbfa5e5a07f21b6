"""R12.2 one-tap confirm links: the side that entered a result shares a link with which a
player of another side confirms or disputes it without logging in; once, for that battle,
until the phase ends; only the token's sha256 is kept; a forged, used or expired link shows
nothing."""

from __future__ import annotations

import hashlib
import re

from sqlmodel import Session, select

from app.battles.models import Battle, BattleConfirmation, ConfirmLink
from tests.builders.accounts import user
from tests.builders.battles import two_player_battle
from tests.builders.pages import TOKEN, browser, shown
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase


def _refused(r, status):
    assert r.status_code == status, r.text
    return error_code(r)


def _report(client, cid, bid, player, winners):
    r = client.post(
        f"/api/v1/campaigns/{cid}/battles/{bid}/result", json={"winner_player_ids": winners}, headers=player["headers"]
    )
    assert r.status_code == 200, r.text


def _link(client, cid, bid, player):
    return client.post(f"/api/v1/campaigns/{cid}/battles/{bid}/confirm-link", headers=player["headers"])


def _reported(client):
    gm, cid, players, bid = two_player_battle(client)
    _report(client, cid, bid, players[0], [players[0]["player_id"]])
    return gm, cid, players, bid


def _token(url: str) -> str:
    return re.fullmatch(r"http://testserver/confirm/([A-Za-z0-9_-]+)", url).group(1)


def _use(anon, token, **data):
    page = anon.get(f"/confirm/{token}")
    body = {"csrf_token": TOKEN.search(page.text).group(1), **data}
    return anon.post(f"/confirm/{token}", data=body, follow_redirects=False)


def _state(engine, bid):
    with Session(engine) as s:
        battle = s.get(Battle, bid)
        confirmed = s.exec(select(BattleConfirmation.player_id).where(BattleConfirmation.battle_id == bid)).all()
        used = s.exec(select(ConfirmLink.used_at).where(ConfirmLink.battle_id == bid)).all()
        return battle.status, battle.dispute_reason, sorted(confirmed), used


def test_r12_2_the_other_side_confirms_once_without_logging_in(client, engine, make_client):
    gm, cid, players, bid = _reported(client)
    r = _link(client, cid, bid, players[0])
    assert r.status_code == 201, r.text
    token = _token(r.json()["url"])
    assert r.json()["expires_at"] is None  # no deadline set: it ends with the phase
    with Session(engine) as s:
        [kept] = s.exec(select(ConfirmLink)).all()
        assert kept.token_hash == hashlib.sha256(token.encode()).hexdigest() and token not in kept.token_hash
    anon = make_client()
    page = anon.get(f"/confirm/{token}")
    assert page.status_code == 200
    assert "orcs band" in page.text and "Place 2" in page.text and players[1]["nickname"] in page.text
    # The reporter's own side is not offered: the link is for the other sides.
    assert f'value="{players[0]["player_id"]}"' not in page.text
    done = _use(anon, token, action="confirm", player_id=players[1]["player_id"])
    assert done.status_code == 303 and done.headers["location"] == "/confirm-done"
    assert "Result confirmed." in anon.get("/confirm-done").text
    status, _reason, confirmed, used = _state(engine, bid)
    assert (status, confirmed) == ("confirmed", [players[1]["player_id"]]) and used[0] is not None
    # Used up: the link shows nothing, and a second tap changes nothing.
    assert anon.get(f"/confirm/{token}").status_code == 404
    body = {
        "csrf_token": TOKEN.search(anon.get("/login").text).group(1),
        "action": "confirm",
        "player_id": players[1]["player_id"],
    }
    again = shown(anon, anon.post(f"/confirm/{token}", data=body, follow_redirects=False))
    assert again.status_code == 404 and "orcs band" not in again.text
    assert _state(engine, bid)[2] == [players[1]["player_id"]]


def test_r12_2_dispute_through_the_link(client, engine, make_client):
    gm, cid, players, bid = _reported(client)
    token = _token(_link(client, cid, bid, players[0]).json()["url"])
    anon = make_client()
    r = _use(anon, token, action="dispute", player_id=players[1]["player_id"], reason="The bard was never killed")
    assert r.status_code == 303
    status, reason, confirmed, _used = _state(engine, bid)
    assert (status, reason, confirmed) == ("disputed", "The bard was never killed", [])


def test_r12_2_who_makes_a_link_refusals_change_nothing(client, engine):
    gm, cid, players, bid = two_player_battle(client)
    assert _refused(_link(client, cid, bid, players[0]), 409) == "battle_nothing_to_confirm"  # nothing entered yet
    _report(client, cid, bid, players[0], [players[0]["player_id"]])
    assert _refused(_link(client, cid, bid, players[1]), 403) == "confirm_link_reporter_only"
    outsider = user(client, "outsider")
    assert _refused(client.post(f"/api/v1/campaigns/{cid}/battles/{bid}/confirm-link", headers=outsider), 404) == "not_found"
    assert (
        _refused(client.post(f"/api/v1/campaigns/{cid}/battles/{bid}/confirm-link", headers=gm), 403) == "battle_not_participant"
    )
    with Session(engine) as s:
        assert s.exec(select(ConfirmLink)).all() == []


def test_r12_2_a_forged_expired_or_wrong_player_link_does_nothing(client, engine, make_client):
    gm, cid, players, bid = _reported(client)
    token = _token(_link(client, cid, bid, players[0]).json()["url"])
    anon = make_client()
    for forged in ("x" * 43, token[:-1] + ("A" if token[-1] != "A" else "B"), "a" * 500):
        r = anon.get(f"/confirm/{forged}")
        assert r.status_code == 404 and "orcs band" not in r.text
    # The reporter cannot confirm their own result through it: refused, the link stays unused.
    r = shown(anon, _use(anon, token, action="confirm", player_id=players[0]["player_id"]))
    assert r.status_code == 422 and "Pick which of the other sides" in r.text
    assert _state(engine, bid)[0] == "reported" and _state(engine, bid)[3] == [None]
    assert anon.get(f"/confirm/{token}").status_code == 200
    # The phase ends: the link with it.
    to_phase(client, gm, cid, "settlement")
    assert anon.get(f"/confirm/{token}").status_code == 404
    assert _state(engine, bid)[2] == []


def test_r12_2_the_battle_page_shows_the_qr_code_and_the_link(client, engine, make_client):
    gm, cid, players, bid = _reported(client)
    b = browser(make_client, players[0]["nickname"])
    page = b.get(f"/campaigns/{cid}/battles/{bid}")
    assert 'action="/campaigns/%d/battles/%d/confirm-link"' % (cid, bid) in page.text
    body = {"csrf_token": TOKEN.search(page.text).group(1)}
    r = b.post(f"/campaigns/{cid}/battles/{bid}/confirm-link", data=body, follow_redirects=False)
    assert r.status_code == 303 and "?link=" in r.headers["location"]
    shown = b.get(r.headers["location"])
    assert "<svg" in shown.text and "/confirm/" in shown.text and "data-share-url" in shown.text
    # The other side's page offers no link to make, nor shows this one.
    other = browser(make_client, players[1]["nickname"])
    assert "confirm-link" not in other.get(f"/campaigns/{cid}/battles/{bid}").text
    assert "<svg aria-hidden" not in other.get(r.headers["location"]).text  # the card is the reporting side's


def test_r12_2_the_link_is_not_written_to_the_request_log(client, make_client, capfd):
    gm, cid, players, bid = _reported(client)
    token = _token(_link(client, cid, bid, players[0]).json()["url"])
    capfd.readouterr()
    assert make_client().get(f"/confirm/{token}").status_code == 200
    out, err = capfd.readouterr()
    assert "/confirm/…" in out + err and token not in out + err


def test_r12_2_r11_6_a_link_is_never_kept_with_a_one_tap_answer(client, engine, make_client):
    """The token lives only as its digest: neither an API answer kept for its Idempotency-Key
    nor a page form's kept redirect holds it."""
    from app.idempotency.models import IdempotencyKey

    gm, cid, players, bid = _reported(client)
    headers = {**players[0]["headers"], "Idempotency-Key": "link-once"}
    r = client.post(f"/api/v1/campaigns/{cid}/battles/{bid}/confirm-link", headers=headers)
    assert r.status_code == 201
    b = browser(make_client, players[0]["nickname"])
    page = b.get(f"/campaigns/{cid}/battles/{bid}")
    body = {"csrf_token": TOKEN.search(page.text).group(1), "once": re.search(r'name="once" value="([^"]+)"', page.text).group(1)}
    made = b.post(f"/campaigns/{cid}/battles/{bid}/confirm-link", data=body, follow_redirects=False)
    assert made.status_code == 303
    tokens = [_token(r.json()["url"]), made.headers["location"].split("link=")[1].split("#")[0]]
    with Session(engine) as s:
        kept = [(k.key, k.headers or "", bytes(k.body or b"")) for k in s.exec(select(IdempotencyKey)).all()]
    for token in tokens:
        assert not any(token in key or token in headers_ or token.encode() in body_ for key, headers_, body_ in kept)

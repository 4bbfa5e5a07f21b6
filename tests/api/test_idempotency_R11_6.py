"""R11.6 One tap acts once: the API's Idempotency-Key and the page forms' one-time key."""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from pathlib import Path

from sqlalchemy import func, select, update
from sqlmodel import Session

from app.companies.models import CompanyModel
from app.core.db import utcnow
from app.gold.models import LedgerEntry
from app.idempotency.models import IdempotencyKey
from app.warbands.models import Order
from tests.builders.accounts import PASSWORD, user
from tests.builders.campaigns import join, running_campaign
from tests.builders.companies import ORCS, warband
from tests.builders.companies import buy as bought
from tests.builders.pages import login
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase

ONCE = re.compile(r'name="once" value="(\d+)"')
TOKEN = re.compile(r'name="csrf_token" value="([0-9a-f]+)"')


def shopper(client):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Shop"}, headers=gm).json()["id"]
    anna = join(client, gm, cid, "anna")
    assert (
        client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=anna["headers"]).status_code
        == 200
    )
    return gm, cid, anna


def counts(engine, cid):
    with Session(engine) as s:
        models = s.exec(select(func.count()).select_from(CompanyModel)).one()[0]
        ledger = s.exec(select(func.count()).select_from(LedgerEntry).where(LedgerEntry.campaign_id == cid)).one()[0]
    return models, ledger


def buy(client, cid, headers, key, profile="orcs.krusher"):
    return client.post(
        f"/api/v1/campaigns/{cid}/company/models", json={"profile": profile}, headers={**headers, "Idempotency-Key": key}
    )


def test_r11_6_same_key_and_body_answers_the_first_answer_without_acting(client, engine):
    gm, cid, anna = shopper(client)
    before = counts(engine, cid)
    first = buy(client, cid, anna["headers"], "tap-1")
    again = buy(client, cid, anna["headers"], "tap-1")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert counts(engine, cid) == (before[0] + 1, before[1] + 1)
    # A new key is a new purchase.
    assert buy(client, cid, anna["headers"], "tap-2").json()["id"] != first.json()["id"]
    assert counts(engine, cid) == (before[0] + 2, before[1] + 2)


def test_r11_6_same_key_other_body_is_refused_and_changes_nothing(client, engine):
    gm, cid, anna = shopper(client)
    assert buy(client, cid, anna["headers"], "tap-1").status_code == 201
    before = counts(engine, cid)
    r = buy(client, cid, anna["headers"], "tap-1", profile="orcs.ax")
    assert r.status_code == 422 and error_code(r) == "idempotency_key_reused"
    assert "Idempotency-Key" in r.json()["error"]["message"]
    # Another route with the same key is another request too.
    r = client.post(
        f"/api/v1/campaigns/{cid}/company/items",
        json={"item": "item.healing-potion"},
        headers={**anna["headers"], "Idempotency-Key": "tap-1"},
    )
    assert r.status_code == 422 and error_code(r) == "idempotency_key_reused"
    assert counts(engine, cid) == before


def test_r11_6_a_refusal_is_answered_again_too(client, engine):
    gm, cid, anna = shopper(client)
    first = buy(client, cid, anna["headers"], "bad", profile="orcs.nothing")
    assert first.status_code == 422
    before = counts(engine, cid)
    again = buy(client, cid, anna["headers"], "bad", profile="orcs.nothing")
    assert (again.status_code, again.json()) == (422, first.json()) and again.headers["idempotent-replayed"] == "true"
    assert counts(engine, cid) == before


def test_r11_6_keys_are_per_user_and_live_24_hours(client, engine):
    gm, cid, anna = shopper(client)
    borys = join(client, gm, cid, "borys")
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=borys["headers"])
    a, b = buy(client, cid, anna["headers"], "same"), buy(client, cid, borys["headers"], "same")
    assert a.status_code == b.status_code == 201 and a.json()["id"] != b.json()["id"]
    with Session(engine) as s:
        s.exec(update(IdempotencyKey).values(claimed_at=utcnow() - timedelta(hours=25)))
        s.commit()
    before = counts(engine, cid)
    assert "idempotent-replayed" not in buy(client, cid, anna["headers"], "same").headers
    assert counts(engine, cid) == (before[0] + 1, before[1] + 1)


def test_r11_6_two_requests_with_one_key_at_once_act_once(client, make_client, engine):
    gm, cid, anna = shopper(client)
    before = counts(engine, cid)
    clients = [make_client() for _ in range(4)]
    answers, start = [], threading.Barrier(4)

    def tap(c):
        start.wait()
        answers.append(buy(c, cid, anna["headers"], "together"))

    threads = [threading.Thread(target=tap, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [r.status_code for r in answers] == [201] * 4
    assert len({r.json()["id"] for r in answers}) == 1
    assert counts(engine, cid) == (before[0] + 1, before[1] + 1)


def test_r11_6_a_key_too_long_is_refused(client, engine):
    gm, cid, anna = shopper(client)
    before = counts(engine, cid)
    r = buy(client, cid, anna["headers"], "k" * 256)
    assert r.status_code == 422 and error_code(r) == "idempotency_key_invalid"
    assert counts(engine, cid) == before


def test_r11_6_a_server_failure_leaves_the_key_free(client, engine, monkeypatch):
    from app.companies import service as companies

    gm, cid, anna = shopper(client)
    real = companies.buy_model

    def broken(*args, **kwargs):
        raise RuntimeError("the disk fell off")

    monkeypatch.setattr(companies, "buy_model", broken)
    failed = client.__class__(client.app, raise_server_exceptions=False)
    r = failed.post(
        f"/api/v1/campaigns/{cid}/company/models",
        json={"profile": "orcs.krusher"},
        headers={**anna["headers"], "Idempotency-Key": "retry"},
    )
    assert r.status_code == 500
    monkeypatch.setattr(companies, "buy_model", real)
    before = counts(engine, cid)
    r = buy(client, cid, anna["headers"], "retry")
    assert r.status_code == 201 and "idempotent-replayed" not in r.headers
    assert counts(engine, cid) == (before[0] + 1, before[1] + 1)


def test_r11_6_a_page_form_posted_twice_acts_once_and_says_what_it_did(client, make_client, engine):
    """A double tap, a refresh of the POST, Back and submit: the same key and fields."""
    gm, cid, anna = shopper(client)
    browser = make_client()
    login(browser, "anna")
    shop = browser.get(f"/campaigns/{cid}/shop").text
    once, token = ONCE.search(shop).group(1), TOKEN.search(shop).group(1)
    form = {"csrf_token": token, "once": once, "profile": "orcs.krusher"}
    before = counts(engine, cid)
    first = browser.post(f"/campaigns/{cid}/shop/models", data=form, follow_redirects=False)
    again = browser.post(f"/campaigns/{cid}/shop/models", data=form, follow_redirects=False)
    assert first.status_code == again.status_code == 303
    assert again.headers["location"] == first.headers["location"]
    assert counts(engine, cid) == (before[0] + 1, before[1] + 1)
    # The second answer shows what the first did, not an error.
    assert "Bought Krusher for 34 gold." in browser.get(again.headers["location"]).text
    # The page drawn after the purchase carries the next key: a second Krusher is bought.
    shop = browser.get(f"/campaigns/{cid}/shop").text
    assert ONCE.search(shop).group(1) != once
    form["once"] = ONCE.search(shop).group(1)
    assert browser.post(f"/campaigns/{cid}/shop/models", data=form, follow_redirects=False).status_code == 303
    assert counts(engine, cid) == (before[0] + 2, before[1] + 2)
    # A stale form sent with other fields is another request, and acts.
    stale = {**form, "once": once, "profile": "orcs.ax"}
    assert browser.post(f"/campaigns/{cid}/shop/models", data=stale, follow_redirects=False).status_code == 303
    assert counts(engine, cid) == (before[0] + 3, before[1] + 3)


def test_r11_6_the_form_key_moves_only_with_the_viewers_own_acts(client, make_client, engine):
    """R11.2 too: another player's purchase leaves this viewer's key (and page) as it was."""
    gm, cid, anna = shopper(client)
    borys = join(client, gm, cid, "borys")
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=borys["headers"])
    browser = make_client()
    login(browser, "anna")
    once = ONCE.search(browser.get(f"/campaigns/{cid}/shop").text).group(1)
    other = make_client()
    login(other, "borys")
    shop = other.get(f"/campaigns/{cid}/shop").text
    other.post(
        f"/campaigns/{cid}/shop/models",
        data={"csrf_token": TOKEN.search(shop).group(1), "once": ONCE.search(shop).group(1), "profile": "orcs.krusher"},
        follow_redirects=False,
    )
    assert ONCE.search(browser.get(f"/campaigns/{cid}/shop").text).group(1) == once


# --- PUT and DELETE (the same middleware, every write method) ------------------------------


def orders(engine, cid):
    with Session(engine) as s:
        return [(o.warband_id, o.place_id) for o in s.exec(select(Order).where(Order.campaign_id == cid)).scalars().all()]


def test_r11_6_a_put_replayed_answers_the_first_answer_and_sends_nothing_again(client, engine):
    gm, cid, players, places = running_campaign(client, 2)
    anna = players[0]
    band = warband(client, cid, anna, bought(client, cid, anna, *ORCS, faction="orcs"))
    to_phase(client, gm, cid, "orders")
    url = f"/api/v1/campaigns/{cid}/warbands/{band['id']}/order"
    keyed = {**anna["headers"], "Idempotency-Key": "send-1"}
    first = client.put(url, json={"place_id": places[2]["id"]}, headers=keyed)
    assert first.status_code == 200, first.text
    sent = orders(engine, cid)
    assert sent == [(band["id"], places[2]["id"])]
    # A sent warband is final for its owner (R4.6): without the key the same PUT is refused,
    # so a 200 again is the first answer replayed, not a second act.
    assert client.put(url, json={"place_id": places[2]["id"]}, headers=anna["headers"]).status_code == 409
    again = client.put(url, json={"place_id": places[2]["id"]}, headers=keyed)
    assert (again.status_code, again.json()) == (200, first.json())
    assert again.headers["idempotent-replayed"] == "true"
    # The same key with another destination: refused, and the order stays where it was.
    other = client.put(url, json={"place_id": places[1]["id"]}, headers=keyed)
    assert other.status_code == 422 and error_code(other) == "idempotency_key_reused"
    assert "idempotent-replayed" not in other.headers
    assert orders(engine, cid) == sent


def test_r11_6_a_delete_replayed_answers_the_first_answer_and_sells_nothing_again(client, engine):
    gm, cid, anna = shopper(client)
    krusher, ax = bought(client, cid, anna, "orcs.krusher", "orcs.ax")
    keyed = {**anna["headers"], "Idempotency-Key": "sell-1"}
    before = counts(engine, cid)
    sold = client.delete(f"/api/v1/campaigns/{cid}/company/models/{krusher['id']}", headers=keyed)
    assert sold.status_code == 200 and sold.json()["refund"] > 0, sold.text
    after = counts(engine, cid)
    assert after == (before[0] - 1, before[1] + 1)  # the model gone, one refund in the ledger
    again = client.delete(f"/api/v1/campaigns/{cid}/company/models/{krusher['id']}", headers=keyed)
    assert (again.status_code, again.json()) == (200, sold.json())
    assert again.headers["idempotent-replayed"] == "true"
    # Without the key the model is simply gone: the 200 above was the first answer kept.
    assert client.delete(f"/api/v1/campaigns/{cid}/company/models/{krusher['id']}", headers=anna["headers"]).status_code == 404
    # The same key on another model is another request: refused, and the axe is not sold.
    other = client.delete(f"/api/v1/campaigns/{cid}/company/models/{ax['id']}", headers=keyed)
    assert other.status_code == 422 and error_code(other) == "idempotency_key_reused"
    assert counts(engine, cid) == after
    company = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()
    assert [m["id"] for m in company["models"]] == [ax["id"]]


# --- credentials: never kept, and the contract says so --------------------------------------

NOT_KEPT = {
    ("post", "/api/v1/users"),
    ("post", "/api/v1/auth/tokens"),
    ("post", "/api/v1/campaigns/{cid}/battles/{bid}/confirm-link"),
    ("post", "/api/v1/campaigns/{cid}/screen-links"),
    ("post", "/api/v1/campaigns/{cid}/calendar-link"),
}


def test_r11_6_the_openapi_document_promises_no_replay_where_a_credential_is_never_kept(client):
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    not_kept, kept = set(), set()
    for path, operations in paths.items():
        for method, operation in operations.items():
            if method not in {"post", "put", "patch", "delete"}:
                continue
            (key,) = [p for p in operation.get("parameters", []) if p["name"] == "Idempotency-Key"]
            if key["description"].startswith("Not kept"):
                assert "answers the first answer again" not in key["description"]
                not_kept.add((method, path))
            else:
                assert "answers the first answer again" in key["description"], (method, path)
                kept.add((method, path))
    assert not_kept == NOT_KEPT
    assert ("post", "/api/v1/campaigns/{cid}/company/models") in kept and ("delete", "/api/v1/auth/tokens/current") in kept
    # The contract names the same operations where it explains the header.
    contract = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    convention = contract[contract.index("- `Idempotency-Key:") :].split("\n- ", 1)[0]
    for _method, path in NOT_KEPT:
        assert f"`POST {path.removeprefix('/api/v1')}`" in convention, path


def test_r11_6_a_token_asked_for_twice_with_one_key_is_two_tokens_and_neither_is_kept(client, engine):
    user(client, "anna")
    keyed = {"Idempotency-Key": "login-1"}
    body = {"nickname": "anna", "password": PASSWORD}
    first = client.post("/api/v1/auth/tokens", json=body, headers=keyed)
    again = client.post("/api/v1/auth/tokens", json=body, headers=keyed)
    assert first.status_code == again.status_code == 201
    assert first.json()["token"] != again.json()["token"] and "idempotent-replayed" not in again.headers
    for answer in (first, again):
        me = client.get("/api/v1/me", headers={"Authorization": f"Bearer {answer.json()['token']}"})
        assert me.status_code == 200 and me.json()["nickname"] == "anna"
    with Session(engine) as s:
        kept = s.exec(select(IdempotencyKey.key, IdempotencyKey.body)).all()
    assert not any(row.key == "api:login-1" for row in kept)
    assert not any(a.json()["token"].encode() in (row.body or b"") for a in (first, again) for row in kept)
    # A malformed key is still refused there, and no token is made.
    r = client.post("/api/v1/auth/tokens", json=body, headers={"Idempotency-Key": "k" * 256})
    assert r.status_code == 422 and error_code(r) == "idempotency_key_invalid" and "token" not in r.json()

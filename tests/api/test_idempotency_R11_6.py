"""R11.6 One tap acts once: the API's Idempotency-Key and the page forms' one-time key."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

from sqlalchemy import func, select, update
from sqlmodel import Session

from app.companies.models import CompanyModel
from app.core.db import utcnow
from app.gold.models import LedgerEntry
from app.idempotency.models import IdempotencyKey
from tests.builders.accounts import user
from tests.builders.campaigns import join
from tests.builders.pages import login
from tests.builders.responses import error_code

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

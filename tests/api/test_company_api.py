"""Companies and the shop over the API (R1.6 gold, R3.1-R3.9, V3, V7, V8, R11.2)."""

import pytest
from sqlmodel import Session

from app.gold.service import balance_matches_ledger
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.responses import error_code


@pytest.fixture
def basileans(client):
    profiles = client.get("/api/v1/catalog/factions/basileans").json()["profiles"]
    by_type = lambda t: min((p for p in profiles if t in p["types"] and not p["unique"]), key=lambda p: p["points"])  # noqa: E731
    return {
        "command": by_type("Command"),
        "grunt": by_type("Grunt"),
        "warrior": by_type("Warrior"),
        "unique": next(p for p in profiles if p["unique"]),
        "all": profiles,
    }


@pytest.fixture
def items(client):
    rows = client.get("/api/v1/catalog/items").json()
    pick = lambda rarity, slot=None: next(i for i in rows if i["rarity"] == rarity and (slot is None or i["slot"] == slot))  # noqa: E731
    return pick


def setup(client, **settings):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Shop", **settings}, headers=gm).json()["id"]
    from tests.builders.campaigns import join

    anna = join(client, gm, cid, "anna")
    return gm, cid, anna


def company(client, cid, headers, **params):
    return client.get(f"/api/v1/campaigns/{cid}/company", headers=headers, params=params)


def test_r1_6_starting_gold_is_credited_on_joining_as_a_ledger_entry(client):
    gm, cid, anna = setup(client, starting_gold=333)
    assert company(client, cid, anna["headers"]).json()["gold"] == 333
    ledger = client.get(f"/api/v1/campaigns/{cid}/ledger", headers=anna["headers"]).json()
    assert [(e["amount"], e["kind"], e["round"], e["balance_after"]) for e in ledger["items"]] == [(333, "start", 0, 333)]
    players = client.get(f"/api/v1/campaigns/{cid}/players", headers=anna["headers"]).json()
    assert players[0]["gold"] == 333


def test_r3_1_r3_2_buy_models_of_one_faction_at_points_times_gold_per_point(client, basileans, engine):
    gm, cid, anna = setup(client, gold_per_point=2, starting_gold=400)
    h = anna["headers"]
    r = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": basileans["grunt"]["key"]}, headers=h)
    assert r.status_code == 409 and error_code(r) == "faction_required"
    assert client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h).status_code == 200
    r = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": basileans["command"]["key"]}, headers=h)
    assert r.status_code == 201
    body = r.json()
    assert body["price"] == basileans["command"]["points"] * 2 and body["types"] == basileans["command"]["types"]
    assert company(client, cid, h).json()["gold"] == 400 - body["price"]
    orc = client.get("/api/v1/catalog/factions/orcs").json()["profiles"][0]["key"]
    for profile, code in (
        (orc, "profile_other_faction"),
        ("nope.nothing", "profile_unknown"),
        ("merc.blaine", "profile_unknown"),
    ):
        r = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": profile}, headers=h)
        assert r.status_code == 422 and error_code(r) == code
    r = client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "atlantis"}, headers=h)
    assert r.status_code == 422 and error_code(r) == "faction_unknown"
    with Session(engine) as s:
        assert balance_matches_ledger(s, anna["player_id"])


def test_r3_8_not_enough_gold_is_refused_and_changes_nothing(client, basileans):
    gm, cid, anna = setup(client, starting_gold=10)
    h = anna["headers"]
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h)
    r = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": basileans["command"]["key"]}, headers=h)
    assert r.status_code == 409 and error_code(r) == "not_enough_gold"
    assert f"{basileans['command']['points']}" in r.json()["error"]["message"]
    state = company(client, cid, h).json()
    assert state["gold"] == 10 and state["models"] == []
    assert client.get(f"/api/v1/campaigns/{cid}/ledger", headers=h).json()["total"] == 1


def test_r3_3_shop_closed_in_battles_settlement_twilight(client, basileans):
    gm, cid, players, _places = running_campaign(client)
    h = players[0]["headers"]
    assert client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h).status_code == 200
    buy = lambda: client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": basileans["grunt"]["key"]}, headers=h)  # noqa: E731
    assert buy().status_code == 201  # preparation
    client.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": "orders"}, headers=gm)
    assert buy().status_code == 201
    for phase in ("battles", "settlement", "twilight"):
        client.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": phase}, headers=gm)
        r = buy()
        assert r.status_code == 409 and error_code(r) == "shop_closed", phase
    assert len(company(client, cid, h).json()["models"]) == 2


def test_r3_4_r3_5_sell_before_and_after_confirmation(client, basileans):
    gm, cid, anna = setup(client, sale_loss_percent=50, starting_gold=400)
    h = anna["headers"]
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h)
    grunt = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": basileans["grunt"]["key"]}, headers=h).json()
    r = client.post(f"/api/v1/campaigns/{cid}/company/confirm", headers=h)
    assert r.status_code == 409 and error_code(r) == "company_needs_leader"
    assert client.delete(f"/api/v1/campaigns/{cid}/company/models/{grunt['id']}", headers=h).json() == {"refund": grunt["price"]}
    assert company(client, cid, h).json()["gold"] == 400
    client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": basileans["command"]["key"]}, headers=h)
    warrior = client.post(
        f"/api/v1/campaigns/{cid}/company/models", json={"profile": basileans["warrior"]["key"]}, headers=h
    ).json()
    assert client.post(f"/api/v1/campaigns/{cid}/company/confirm", headers=h).json()["confirmed"] is True
    assert error_code(client.post(f"/api/v1/campaigns/{cid}/company/confirm", headers=h)) == "company_confirmed_already"
    refund = client.delete(f"/api/v1/campaigns/{cid}/company/models/{warrior['id']}", headers=h).json()["refund"]
    assert refund == warrior["price"] * 50 // 100
    assert client.delete(f"/api/v1/campaigns/{cid}/company/models/{warrior['id']}", headers=h).status_code == 404


def test_r3_6_faction_change_empties_and_refunds_then_locks(client, basileans, items):
    gm, cid, anna = setup(client, starting_gold=400)
    h = anna["headers"]
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h)
    client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": basileans["command"]["key"]}, headers=h)
    client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": items("Common")["key"]}, headers=h)
    client.post(
        f"/api/v1/campaigns/{cid}/rewards", json={"player_id": anna["player_id"], "item": items("Unique")["key"]}, headers=gm
    )
    r = client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=h)
    state = r.json()
    assert (state["faction"], state["models"], state["items"], state["gold"]) == ("orcs", [], [], 400)
    orc_leader = next(p for p in client.get("/api/v1/catalog/factions/orcs").json()["profiles"] if "Command" in p["types"])
    client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": orc_leader["key"]}, headers=h)
    client.post(f"/api/v1/campaigns/{cid}/company/confirm", headers=h)
    r = client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h)
    assert r.status_code == 409 and error_code(r) == "faction_locked"
    assert company(client, cid, h).json()["faction"] == "orcs"


def test_r3_7_common_and_rare_for_sale_unique_only_as_rewards(client, basileans, items):
    gm, cid, anna = setup(client)
    h = anna["headers"]
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h)
    for rarity in ("Common", "Rare"):
        r = client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": items(rarity)["key"]}, headers=h)
        assert r.status_code == 201 and r.json()["model_id"] is None
    unique = items("Unique")
    r = client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": unique["key"]}, headers=h)
    assert r.status_code == 409 and error_code(r) == "item_unique_reward_only"
    gold_before = company(client, cid, h).json()["gold"]
    r = client.post(f"/api/v1/campaigns/{cid}/rewards", json={"player_id": anna["player_id"], "item": unique["key"]}, headers=gm)
    assert r.status_code == 201 and r.json()["reward"] is True and r.json()["price"] == 0
    r = client.post(
        f"/api/v1/campaigns/{cid}/rewards",
        json={"player_id": anna["player_id"], "profile": basileans["warrior"]["key"]},
        headers=gm,
    )
    assert r.status_code == 201 and r.json()["price"] == 0
    assert company(client, cid, h).json()["gold"] == gold_before
    r = client.post(f"/api/v1/campaigns/{cid}/rewards", json={"player_id": anna["player_id"], "item": unique["key"]}, headers=h)
    assert r.status_code == 403
    r = client.post(f"/api/v1/campaigns/{cid}/rewards", json={"player_id": anna["player_id"]}, headers=gm)
    assert r.status_code == 422 and error_code(r) == "reward_needs_one"


def test_v7_a_unique_profile_once_per_company(client, basileans):
    gm, cid, anna = setup(client, starting_gold=1000)
    h = anna["headers"]
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h)
    key = basileans["unique"]["key"]
    assert client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": key}, headers=h).status_code == 201
    r = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": key}, headers=h)
    assert r.status_code == 409 and error_code(r) == "unique_profile_held"
    r = client.post(f"/api/v1/campaigns/{cid}/rewards", json={"player_id": anna["player_id"], "profile": key}, headers=gm)
    assert r.status_code == 409
    assert len(company(client, cid, h).json()["models"]) == 1


def test_r3_9_v8_items_move_between_models_and_stash(client, basileans, items):
    gm, cid, anna = setup(client, starting_gold=1000)
    h = anna["headers"]
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h)
    buy = lambda key: client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": key}, headers=h).json()  # noqa: E731
    leader, grunt = buy(basileans["command"]["key"]), buy(basileans["grunt"]["key"])
    take = lambda key: client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": key}, headers=h).json()  # noqa: E731
    common_melee, rare = take(items("Common", "Melee")["key"]), take(items("Rare")["key"])
    common_other = take(
        next(
            i
            for i in client.get("/api/v1/catalog/items").json()
            if i["rarity"] == "Common" and i["slot"] not in ("Melee", rare["slot"])
        )["key"]
    )
    assign = lambda iid, mid: client.put(f"/api/v1/campaigns/{cid}/company/items/{iid}", json={"model_id": mid}, headers=h)  # noqa: E731
    r = assign(rare["id"], grunt["id"])
    assert r.status_code == 409 and error_code(r) == "item_grunt_common_only"
    assert assign(common_melee["id"], grunt["id"]).json()["model_id"] == grunt["id"]
    r = assign(common_other["id"], grunt["id"])
    assert r.status_code == 409 and error_code(r) == "item_grunt_one_only"
    assert assign(common_other["id"], leader["id"]).status_code == 200
    assert assign(rare["id"], leader["id"]).status_code == 200
    r = assign(common_melee["id"], leader["id"])  # the leader carries two already
    assert r.status_code == 409 and error_code(r) == "item_limit"
    assert "2" in r.json()["error"]["message"]
    assert assign(common_melee["id"], None).json()["model_id"] is None
    assert assign(common_melee["id"], 999999).status_code == 404
    # Selling a model returns its items to the stash (R3.9).
    client.delete(f"/api/v1/campaigns/{cid}/company/models/{leader['id']}", headers=h)
    assert all(i["model_id"] is None for i in company(client, cid, h).json()["items"])


def test_v3_models_keep_the_snapshot_they_were_bought_at(client, app, basileans, engine):
    gm, cid, anna = setup(client)
    h = anna["headers"]
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=h)
    bought = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": basileans["grunt"]["key"]}, headers=h).json()
    catalog = app.state.catalog.get()
    original = catalog.profiles[basileans["grunt"]["key"]]
    try:
        catalog.profiles[original.key] = original.model_copy(update={"points": original.points + 50, "name": "Renamed"})
        catalog.profiles.pop(basileans["warrior"]["key"])
        model = company(client, cid, h).json()["models"][0]
        assert (model["name"], model["points"], model["price"]) == (bought["name"], bought["points"], bought["price"])
        assert (
            client.delete(f"/api/v1/campaigns/{cid}/company/models/{model['id']}", headers=h).json()["refund"] == bought["price"]
        )
    finally:
        app.state.catalog.forget()  # the real catalog again for the next tests


def test_r11_2_company_and_ledger_visible_to_the_player_and_gm_only(client, basileans):
    """Gold transfers off: the GM sees the balances too (with them on, none: test_gm_gold_R11_2.py)."""
    gm, cid, anna = setup(client, modules={"gold_transfers": False})
    from tests.builders.campaigns import join

    borys = join(client, gm, cid, "borys")
    outsider = user(client, "outsider")
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=anna["headers"])
    assert company(client, cid, gm, player_id=anna["player_id"]).json()["faction"] == "basileans"
    assert client.get(f"/api/v1/campaigns/{cid}/ledger", headers=gm, params={"player_id": anna["player_id"]}).status_code == 200
    for headers in (borys["headers"], outsider, {}):
        for path in ("company", "ledger"):
            r = client.get(f"/api/v1/campaigns/{cid}/{path}", headers=headers, params={"player_id": anna["player_id"]})
            assert r.status_code in (401, 404), (path, r.status_code)
    assert company(client, cid, borys["headers"]).json()["faction"] is None  # borys sees his own
    players = client.get(f"/api/v1/campaigns/{cid}/players", headers=borys["headers"]).json()
    assert {p["nickname"]: p["gold"] for p in players} == {"anna": None, "borys": 400}
    assert {p["nickname"]: p["gold"] for p in client.get(f"/api/v1/campaigns/{cid}/players", headers=gm).json()} == {
        "anna": 400,
        "borys": 400,
    }
    r = client.get(f"/api/v1/campaigns/{cid}/company", headers=gm)
    assert r.status_code == 404 and error_code(r) == "player_id_required"  # the GM has no company of their own


def test_r3_8_gm_adjustment_with_a_reason(client, engine):
    gm, cid, anna = setup(client, starting_gold=100, modules={"gold_transfers": False})  # the GM is shown balances
    url = f"/api/v1/campaigns/{cid}/ledger/adjustments"
    r = client.post(url, json={"player_id": anna["player_id"], "amount": -30, "reason": "Lost a bet"}, headers=gm)
    assert r.status_code == 201 and (r.json()["balance_after"], r.json()["kind"], r.json()["note"]) == (
        70,
        "gm_adjustment",
        "Lost a bet",
    )
    for body, status, code in (
        ({"player_id": anna["player_id"], "amount": -71, "reason": "x"}, 409, "not_enough_gold"),
        ({"player_id": anna["player_id"], "amount": 5, "reason": " "}, 422, "reason_required"),
        ({"player_id": anna["player_id"], "amount": 0, "reason": "x"}, 422, "amount_zero"),
        ({"player_id": 99999, "amount": 5, "reason": "x"}, 404, "not_found"),
    ):
        r = client.post(url, json=body, headers=gm)
        assert r.status_code == status and error_code(r) == code, code
    r = client.post(url, json={"player_id": anna["player_id"], "amount": 5, "reason": "x"}, headers=anna["headers"])
    assert r.status_code == 403
    ledger = client.get(f"/api/v1/campaigns/{cid}/ledger", headers=anna["headers"]).json()
    assert ledger["balance"] == 70 and [e["amount"] for e in ledger["items"]] == [-30, 100]
    with Session(engine) as s:
        assert balance_matches_ledger(s, anna["player_id"])

"""The first round as the manual reads (issue 9): only the GM undoes an order, a sent warband
is frozen everywhere, mercenaries are on the public roster, an event's limit is the L of the
Vanguard limits, and warbands are built in Preparation and Orders."""

import pytest
from sqlmodel import Session, func, select

from app.companies.models import CompanyModel
from app.gold.service import balance_matches_ledger
from app.warbands.models import Order, Warband
from tests.builders.companies import warband
from tests.builders.pages import login
from tests.builders.responses import error_code
from tests.builders.rounds import event, to_phase


def _send(client, cid, player, wid, **target):
    return client.put(f"/api/v1/campaigns/{cid}/warbands/{wid}/order", json=target, headers=player["headers"])


def _gold(client, cid, player):
    return client.get(f"/api/v1/campaigns/{cid}/company", headers=player["headers"]).json()["gold"]


def test_r4_6_the_owner_cannot_take_back_an_order_and_nothing_changes(client, world, engine):
    cid, anna, gm = world["cid"], world["anna"], world["gm"]
    w = warband(client, cid, anna, anna["models"], mercenary="merc.kuzlo-and-madfall")
    to_phase(client, gm, cid, "orders")
    assert _send(client, cid, anna, w["id"], place_id=world["places"][2]["id"]).status_code == 200
    paid = _gold(client, cid, anna)
    r = client.delete(f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", headers=anna["headers"])
    assert r.status_code == 403 and error_code(r) == "order_final"
    assert "game master" in r.json()["error"]["message"]
    assert _gold(client, cid, anna) == paid
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Order)).one() == 1
    # The GM's undo stays, with its refund (R4.4).
    assert client.delete(f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", headers=gm).status_code == 204
    assert _gold(client, cid, anna) == paid + 46


def test_r4_6_a_sent_warband_blocks_a_faction_change(client, world, engine):
    cid, anna, gm = world["cid"], world["anna"], world["gm"]
    w = warband(client, cid, anna, anna["models"])
    to_phase(client, gm, cid, "orders")
    assert _send(client, cid, anna, w["id"], place_id=world["places"][2]["id"]).status_code == 200
    before = _gold(client, cid, anna)
    r = client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=anna["headers"])
    assert r.status_code == 409 and error_code(r) == "faction_warband_sent" and "Raiders" in r.json()["error"]["message"]
    company = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()
    assert company["faction"] == "orcs" and len(company["models"]) == 4 and company["gold"] == before
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(CompanyModel)).one() == 6
        assert balance_matches_ledger(s, anna["player_id"])


def test_r4_6_r3_9_sent_models_and_their_items_stay_put(client, world):
    cid, anna, gm = world["cid"], world["anna"], world["gm"]
    w = warband(client, cid, anna, anna["models"])
    item = client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": "item.bandages"}, headers=anna["headers"]).json()
    assert (
        client.put(
            f"/api/v1/campaigns/{cid}/company/items/{item['id']}",
            json={"model_id": anna["models"][1]["id"]},
            headers=anna["headers"],
        ).status_code
        == 200
    )
    to_phase(client, gm, cid, "orders")
    assert _send(client, cid, anna, w["id"], place_id=world["places"][2]["id"]).status_code == 200
    for method, path, body in (
        ("DELETE", f"/company/models/{anna['models'][1]['id']}", None),
        ("DELETE", f"/company/items/{item['id']}", None),
        ("PUT", f"/company/items/{item['id']}", {"model_id": None}),
        ("PATCH", f"/warbands/{w['id']}", {"name": "Renamed"}),
        ("DELETE", f"/warbands/{w['id']}", None),
    ):
        r = client.request(method, f"/api/v1/campaigns/{cid}{path}", json=body, headers=anna["headers"])
        assert r.status_code == 409, (method, path, r.text)
    company = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()
    assert len(company["models"]) == 4 and company["items"][0]["model_id"] == anna["models"][1]["id"]


def test_r6_5_the_mercenary_is_on_the_public_roster(client, make_client, world):
    cid, anna, borys, gm = world["cid"], world["anna"], world["borys"], world["gm"]
    place = world["places"][2]["id"]
    wa = warband(client, cid, anna, anna["models"], "Raiders", mercenary="merc.kuzlo-and-madfall")
    wb = warband(client, cid, borys, borys["models"], "Guard")
    to_phase(client, gm, cid, "orders")
    assert _send(client, cid, anna, wa["id"], place_id=place).status_code == 200
    assert _send(client, cid, borys, wb["id"], place_id=place).status_code == 200
    to_phase(client, gm, cid, "battles")
    battle = client.get(f"/api/v1/campaigns/{cid}/battles", headers=borys["headers"]).json()["items"][0]
    raiders = next(w for s in battle["sides"] for w in s["warbands"] if w["id"] == wa["id"])
    merc = [m for m in raiders["roster"] if m.get("mercenary")]
    assert len(merc) == 1 and merc[0]["name"] == "Kuzlo & Madfall" and merc[0]["points"] == 46
    assert merc[0]["types"] == ["Spellcaster"] and merc[0]["stats"]["Sp"] == "7"
    assert raiders["points"] == 70 + 46
    browser = make_client()
    login(browser, borys["nickname"])
    page = browser.get(f"/campaigns/{cid}/battles/{battle['id']}").text
    assert "Kuzlo &amp; Madfall" in page and ">mercenary<" in page
    chronicle = client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=borys["headers"]).json()["items"]
    announced = next(e for e in chronicle if e["kind"].startswith("battle_announced"))
    assert "Kuzlo & Madfall (mercenary, 46 pts)" in announced["text"]


def test_r4_3_v7_an_events_lower_limit_is_the_limit_of_the_vanguard_limits(client, world, engine):
    """Three copies of Orc Ax are fine at 200 points (5 allowed) but not at an 80-point event (2)."""
    cid, anna, gm = world["cid"], world["anna"], world["gm"]
    w = warband(client, cid, anna, anna["models"])  # 70 points, three Axes
    assert w["problems"] == []
    small = event(client, gm, cid, world["places"][2]["id"], "Skirmish", points_limit=80)
    to_phase(client, gm, cid, "orders")
    r = _send(client, cid, anna, w["id"], event_id=small["id"])
    assert r.status_code == 422 and error_code(r) == "warband_invalid"
    details = {d["code"]: d for d in r.json()["error"]["details"]}
    assert set(details) == {"warband_copies_limit"}
    assert (details["warband_copies_limit"]["max"], details["warband_copies_limit"]["limit"]) == (2, 80)
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Order)).one() == 0
    tiny = event(client, gm, cid, world["places"][1]["id"], "Duel", points_limit=60)
    r = _send(client, cid, anna, w["id"], event_id=tiny["id"])
    assert r.status_code == 409 and error_code(r) == "order_points_limit" and "60" in r.json()["error"]["message"]


@pytest.mark.parametrize("phase", ["battles", "settlement", "twilight"])
def test_r4_1_warbands_are_built_in_preparation_and_orders_only(client, world, engine, phase):
    cid, anna, gm = world["cid"], world["anna"], world["gm"]
    kept = warband(client, cid, anna, anna["models"][:2], "Kept")
    for step in ("orders", "battles", "settlement", "twilight")[
        : ("orders", "battles", "settlement", "twilight").index(phase) + 1
    ]:
        to_phase(client, gm, cid, step)
    models = [m["id"] for m in anna["models"][2:]]
    for method, path, body in (
        ("POST", "/warbands", {"name": "Late", "model_ids": [anna["models"][0]["id"], *models]}),
        ("PATCH", f"/warbands/{kept['id']}", {"name": "Renamed"}),
        ("DELETE", f"/warbands/{kept['id']}", None),
    ):
        r = client.request(method, f"/api/v1/campaigns/{cid}{path}", json=body, headers=anna["headers"])
        assert r.status_code == 409 and error_code(r) == "warband_build_closed", (method, r.text)
    with Session(engine) as s:
        assert [w.name for w in s.exec(select(Warband)).all()] == ["Kept"]
    page = client.get(f"/api/v1/campaigns/{cid}/warbands", headers=anna["headers"]).json()
    assert [w["name"] for w in page] == ["Kept"]


def test_r4_1_warbands_are_built_and_changed_in_preparation_and_orders(client, world):
    cid, anna, gm = world["cid"], world["anna"], world["gm"]
    w = warband(client, cid, anna, anna["models"][:2], "Early")
    to_phase(client, gm, cid, "orders")
    r = client.patch(f"/api/v1/campaigns/{cid}/warbands/{w['id']}", json={"name": "Later"}, headers=anna["headers"])
    assert r.status_code == 200 and r.json()["name"] == "Later"
    assert client.delete(f"/api/v1/campaigns/{cid}/warbands/{w['id']}", headers=anna["headers"]).status_code == 204

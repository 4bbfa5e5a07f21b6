"""Warbands and orders over the API (R4.1-R4.7, R9.7, V4-V8, R11.2)."""

from sqlmodel import Session, func, select

from app.companies.models import CompanyModel
from app.gold.service import balance_matches_ledger
from app.warbands.models import Order
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join
from tests.builders.companies import ORC_BAND, buy, warband
from tests.builders.maps import add_place
from tests.builders.responses import error_code
from tests.builders.rounds import event, to_phase


def gold(client, cid, player):
    return client.get(f"/api/v1/campaigns/{cid}/company", headers=player["headers"]).json()["gold"]


def send(client, cid, player, wid, **target):
    return client.put(f"/api/v1/campaigns/{cid}/warbands/{wid}/order", json=target, headers=player["headers"])


def test_r4_1_warbands_from_the_company_a_model_in_one_warband(client, world):
    cid, anna = world["cid"], world["anna"]
    w = warband(client, cid, anna, anna["models"][:2], "First")
    assert (w["points"], w["problems"], w["model_ids"]) == (46, [], [m["id"] for m in anna["models"][:2]])
    r = client.post(
        f"/api/v1/campaigns/{cid}/warbands",
        json={"name": "Second", "model_ids": [anna["models"][1]["id"]]},
        headers=anna["headers"],
    )
    assert r.status_code == 409 and error_code(r) == "warband_model_taken" and "First" in r.json()["error"]["message"]
    foreign = world["borys"]["models"][0]["id"]
    r = client.post(f"/api/v1/campaigns/{cid}/warbands", json={"name": "Thief", "model_ids": [foreign]}, headers=anna["headers"])
    assert r.status_code == 422 and error_code(r) == "warband_model_unknown"
    assert [x["name"] for x in client.get(f"/api/v1/campaigns/{cid}/warbands", headers=anna["headers"]).json()] == ["First"]
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=world["borys"]["headers"]).json() == []
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=world["gm"]).json() == []


def test_r4_2_r4_3_v5_v6_422_lists_every_problem_with_its_numbers(client, world):
    cid, anna = world["cid"], world["anna"]
    extra = buy(client, cid, anna, "orcs.krusher", "orcs.god-speaker")
    body = {"name": "Bad", "model_ids": [anna["models"][0]["id"], extra[0]["id"], extra[1]["id"]]}
    r = client.post(f"/api/v1/campaigns/{cid}/warbands", json=body, headers=anna["headers"])
    assert r.status_code == 422 and error_code(r) == "warband_invalid"
    details = {d["code"]: d for d in r.json()["error"]["details"]}
    assert set(details) == {"warband_no_fighter", "warband_command_limit", "warband_spellcaster_limit"}
    assert details["warband_command_limit"]["message"] == "2 Command models, but at most 1 allowed (Grunt/Warrior models: 0)."
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=anna["headers"]).json() == []


def test_v4_mercenary_alignment_and_r4_4_fee_on_sending(client, world):
    cid, anna, gm, places = world["cid"], world["anna"], world["gm"], world["places"]
    r = client.post(
        f"/api/v1/campaigns/{cid}/warbands",
        headers=anna["headers"],
        json={"name": "Good help", "model_ids": [m["id"] for m in anna["models"]], "mercenary": "merc.firebrand"},
    )
    codes = [d["code"] for d in r.json()["error"]["details"]]
    assert r.status_code == 422 and "warband_mercenary_alignment" in codes  # (Firebrand is also a second Command)
    assert "Good" in next(d["message"] for d in r.json()["error"]["details"] if d["code"] == "warband_mercenary_alignment")
    w = warband(client, cid, anna, anna["models"], "Raiders", mercenary="merc.kuzlo-and-madfall")  # Evil joins Evil
    assert w["points"] == 70 + 46
    before = gold(client, cid, anna)
    assert before == 400 - 70  # building costs nothing
    ev = event(client, gm, cid, places[2]["id"])
    to_phase(client, gm, cid, "orders")
    assert send(client, cid, anna, w["id"], event_id=ev["id"]).status_code == 200
    assert gold(client, cid, anna) == before - 46
    # R4.6: the owner cannot take it back; the GM's undo refunds the fee.
    r = client.delete(f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", headers=anna["headers"])
    assert r.status_code == 403 and error_code(r) == "order_final"
    assert gold(client, cid, anna) == before - 46
    assert client.delete(f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", headers=gm).status_code == 204
    assert gold(client, cid, anna) == before
    ledger = client.get(f"/api/v1/campaigns/{cid}/ledger", headers=anna["headers"]).json()["items"]
    assert [e["kind"] for e in ledger[:2]] == ["mercenary_fee"] * 2 and [e["amount"] for e in ledger[:2]] == [46, -46]


def test_r4_4_not_enough_gold_for_the_fee_changes_nothing(client, world, engine):
    cid, anna, gm, places = world["cid"], world["anna"], world["gm"], world["places"]
    w = warband(client, cid, anna, anna["models"], mercenary="merc.kuzlo-and-madfall")
    client.post(
        f"/api/v1/campaigns/{cid}/ledger/adjustments",
        json={"player_id": anna["player_id"], "amount": -300, "reason": "Debt"},
        headers=gm,
    )
    to_phase(client, gm, cid, "orders")
    r = send(client, cid, anna, w["id"], place_id=places[2]["id"])
    assert r.status_code == 409 and error_code(r) == "not_enough_gold"
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Order)).one() == 0
        assert balance_matches_ledger(s, anna["player_id"])


def test_r4_5_destinations(client, world):
    cid, anna, gm, places = world["cid"], world["anna"], world["gm"], world["places"]
    bands = [warband(client, cid, anna, [anna["models"][0], anna["models"][i]], f"Band {i}") for i in (1,)]
    extra = buy(client, cid, anna, "orcs.krusher", "orcs.ax", "orcs.krusher", "orcs.ax")
    bands.append(warband(client, cid, anna, extra[:2], "Band 2"))
    bands.append(warband(client, cid, anna, extra[2:], "Band 3"))
    field = places[2]["id"]
    a, b = event(client, gm, cid, field, "North gate"), event(client, gm, cid, field, "South gate")
    r = send(client, cid, anna, bands[0]["id"], event_id=a["id"])
    assert r.status_code == 409 and error_code(r) == "orders_closed"
    to_phase(client, gm, cid, "orders")
    assert send(client, cid, anna, bands[0]["id"], event_id=a["id"]).status_code == 200
    r = send(client, cid, anna, bands[1]["id"], event_id=a["id"])
    assert r.status_code == 409 and error_code(r) == "order_event_taken"
    assert send(client, cid, anna, bands[1]["id"], event_id=b["id"]).status_code == 200  # another event, same place
    r = send(client, cid, anna, bands[2]["id"], place_id=field)
    assert r.status_code == 409 and error_code(r) == "order_place_has_events"
    assert send(client, cid, anna, bands[2]["id"], place_id=places[0]["id"]).status_code == 200  # own hideout
    r = send(client, cid, anna, bands[0]["id"], place_id=places[1]["id"])
    assert r.status_code == 409 and error_code(r) == "order_exists"
    r = send(client, cid, anna, bands[2]["id"], event_id=a["id"], place_id=field)
    assert r.status_code == 422 and error_code(r) == "order_destination"


def test_r4_5_one_warband_per_eventless_place_blockades_and_points_limits(client, world):
    cid, anna, gm, places = world["cid"], world["anna"], world["gm"], world["places"]
    one = warband(client, cid, anna, anna["models"][:2], "One")
    two = warband(client, cid, anna, anna["models"][2:3] + buy(client, cid, anna, "orcs.krusher"), "Two")
    wall = event(client, gm, cid, places[2]["id"], "Wall", blockade=True)
    small = event(client, gm, cid, places[1]["id"], "Skirmish", points_limit=40)
    to_phase(client, gm, cid, "orders")
    r = send(client, cid, anna, one["id"], event_id=wall["id"])
    assert r.status_code == 409 and error_code(r) == "order_blockade"
    r = send(client, cid, anna, one["id"], event_id=small["id"])
    assert r.status_code == 409 and error_code(r) == "order_points_limit" and "46" in r.json()["error"]["message"]
    assert send(client, cid, anna, one["id"], place_id=places[0]["id"]).status_code == 200
    r = send(client, cid, anna, two["id"], place_id=places[0]["id"])
    assert r.status_code == 409 and error_code(r) == "order_place_taken"
    assert len(client.get(f"/api/v1/campaigns/{cid}/orders", headers=anna["headers"]).json()) == 1


def test_r4_6_a_sent_warband_is_frozen_until_the_round_ends(client, world):
    cid, anna, gm, places = world["cid"], world["anna"], world["gm"], world["places"]
    h = anna["headers"]
    w = warband(client, cid, anna, anna["models"][:2])
    item = client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": "item.bandages"}, headers=h).json()
    client.put(f"/api/v1/campaigns/{cid}/company/items/{item['id']}", json={"model_id": anna["models"][0]["id"]}, headers=h)
    to_phase(client, gm, cid, "orders")
    send(client, cid, anna, w["id"], place_id=places[2]["id"])
    for r, code in (
        (client.patch(f"/api/v1/campaigns/{cid}/warbands/{w['id']}", json={"name": "New"}, headers=h), "warband_frozen"),
        (client.delete(f"/api/v1/campaigns/{cid}/warbands/{w['id']}", headers=h), "warband_frozen"),
        (client.delete(f"/api/v1/campaigns/{cid}/company/models/{anna['models'][1]['id']}", headers=h), "model_in_sent_warband"),
        (client.delete(f"/api/v1/campaigns/{cid}/company/items/{item['id']}", headers=h), "model_in_sent_warband"),
        (
            client.put(f"/api/v1/campaigns/{cid}/company/items/{item['id']}", json={"model_id": None}, headers=h),
            "model_in_sent_warband",
        ),
    ):
        assert r.status_code == 409 and error_code(r) == code, code
    # Models outside the warband stay free.
    assert client.delete(f"/api/v1/campaigns/{cid}/company/models/{anna['models'][3]['id']}", headers=h).status_code == 200
    to_phase(client, gm, cid, "twilight")
    client.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": 1}, headers=gm)
    assert client.patch(f"/api/v1/campaigns/{cid}/warbands/{w['id']}", json={"name": "New"}, headers=h).json()["name"] == "New"


def test_r4_7_resting_dead_or_captured_models_cannot_be_sent(client, world, engine):
    cid, anna, gm, places = world["cid"], world["anna"], world["gm"], world["places"]
    w = warband(client, cid, anna, anna["models"][:2])
    with Session(engine) as s:
        model = s.get(CompanyModel, anna["models"][1]["id"])
        model.status = "miss_next"
        s.add(model)
        s.commit()
    to_phase(client, gm, cid, "orders")
    r = send(client, cid, anna, w["id"], place_id=places[2]["id"])
    assert (
        r.status_code == 409
        and error_code(r) == "order_model_unavailable"
        and "misses the next battle" in r.json()["error"]["message"]
    )


def test_r4_7_r11_2_orders_are_secret_until_battles(client, world):
    cid, anna, borys, gm, places = world["cid"], world["anna"], world["borys"], world["gm"], world["places"]
    w = warband(client, cid, anna, anna["models"][:2])
    ev = event(client, gm, cid, places[2]["id"])
    to_phase(client, gm, cid, "orders")
    send(client, cid, anna, w["id"], event_id=ev["id"])
    outsider = user(client, "outsider")
    assert len(client.get(f"/api/v1/campaigns/{cid}/orders", headers=anna["headers"]).json()) == 1
    assert len(client.get(f"/api/v1/campaigns/{cid}/orders", headers=gm).json()) == 1
    assert client.get(f"/api/v1/campaigns/{cid}/orders", headers=borys["headers"]).json() == []
    assert client.get(f"/api/v1/campaigns/{cid}/orders", headers=outsider).status_code == 404
    assert client.get(f"/api/v1/campaigns/{cid}/orders").status_code == 401
    # Nothing else tells: warbands, the map, events and the chronicle look the same to Borys.
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=borys["headers"]).json() == []
    texts = str(client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=borys["headers"]).json())
    assert "Raiders" not in texts
    assert client.get(f"/api/v1/campaigns/{cid}/map", headers=borys["headers"]).json()["warband_positions"] == []
    to_phase(client, gm, cid, "battles")
    public = client.get(f"/api/v1/campaigns/{cid}/orders", headers=borys["headers"]).json()
    assert [(o["warband_id"], o["event_id"]) for o in public] == [(w["id"], ev["id"])]
    assert client.get(f"/api/v1/campaigns/{cid}/orders", headers=outsider).status_code == 404


def test_r4_6_gm_undoes_before_battles_only(client, world):
    cid, anna, gm, places = world["cid"], world["anna"], world["gm"], world["places"]
    w = warband(client, cid, anna, anna["models"][:2])
    to_phase(client, gm, cid, "orders")
    send(client, cid, anna, w["id"], place_id=places[2]["id"])
    to_phase(client, gm, cid, "battles")
    r = client.delete(f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", headers=gm)
    assert r.status_code == 409 and error_code(r) == "order_undo_phase"
    r = client.delete(f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", headers=anna["headers"])
    assert r.status_code == 403 and error_code(r) == "order_final"
    r = client.delete(f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", headers=world["borys"]["headers"])
    assert r.status_code == 404
    assert len(client.get(f"/api/v1/campaigns/{cid}/orders", headers=gm).json()) == 1


def test_r9_7_orders_follow_paths_from_the_players_places(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, modules={"paths": True})["id"]
    home, near, far, other_home = (add_place(client, gm, cid, n) for n in ("Home", "Near", "Far", "Other"))
    client.post(f"/api/v1/campaigns/{cid}/paths", json={"from_id": home["id"], "to_id": near["id"]}, headers=gm)
    client.post(f"/api/v1/campaigns/{cid}/paths", json={"from_id": near["id"], "to_id": far["id"]}, headers=gm)
    client.post(f"/api/v1/campaigns/{cid}/paths", json={"from_id": far["id"], "to_id": home["id"], "one_way": True}, headers=gm)
    anna, borys = join(client, gm, cid, "anna"), join(client, gm, cid, "borys")
    client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm)
    client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": home["id"]}, headers=anna["headers"])
    client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": other_home["id"]}, headers=borys["headers"])
    client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "running"}, headers=gm)
    models = buy(client, cid, anna, *ORC_BAND, faction="orcs")
    bands = [warband(client, cid, anna, [models[0], models[i]], f"B{i}") for i in (1,)]
    more = buy(client, cid, anna, "orcs.krusher", "orcs.ax")
    bands.append(warband(client, cid, anna, more, "B2"))
    to_phase(client, gm, cid, "orders")
    r = send(client, cid, anna, bands[0]["id"], place_id=far["id"])  # two steps away; Far→Home is one-way inbound
    assert r.status_code == 409 and error_code(r) == "order_unreachable"
    assert send(client, cid, anna, bands[0]["id"], place_id=near["id"]).status_code == 200
    assert send(client, cid, anna, bands[1]["id"], place_id=home["id"]).status_code == 200


def test_r5_5_r4_4_ending_an_event_in_orders_undoes_its_orders_and_returns_fees(client, world, engine):
    cid, anna, gm, places = world["cid"], world["anna"], world["gm"], world["places"]
    w = warband(client, cid, anna, anna["models"], mercenary="merc.kuzlo-and-madfall")
    ev = event(client, gm, cid, places[2]["id"], "Cancelled fair")
    to_phase(client, gm, cid, "orders")
    before = gold(client, cid, anna)
    send(client, cid, anna, w["id"], event_id=ev["id"])
    assert gold(client, cid, anna) == before - 46
    assert client.delete(f"/api/v1/campaigns/{cid}/events/{ev['id']}", headers=gm).status_code == 200
    assert gold(client, cid, anna) == before
    assert client.get(f"/api/v1/campaigns/{cid}/orders", headers=gm).json() == []
    with Session(engine) as s:
        assert balance_matches_ledger(s, anna["player_id"])

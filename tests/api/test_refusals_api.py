"""Refusals that change nothing (issue 10): results closed from Twilight, places that hold
something are not deleted, orders of a round that never reached Battles stay secret
(R6.8, R11.2, R11.5)."""

import pytest
from sqlmodel import Session, func, select

from app.events.models import Event
from app.gold.service import balance_matches_ledger
from app.maps.models import Place
from app.warbands.models import Order
from tests.builders.accounts import user
from tests.builders.battles import two_player_battle
from tests.builders.campaigns import create_campaign, running_campaign
from tests.builders.companies import buy, warband
from tests.builders.maps import add_place
from tests.builders.responses import error_code
from tests.builders.rounds import event, force_phase, to_phase


@pytest.mark.parametrize("action", ["result", "confirm", "dispute"])
def test_r6_8_r11_5_participants_act_on_results_in_battles_only(client, engine, action):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    url = f"/api/v1/campaigns/{cid}/battles/{bid}"
    if action != "result":
        assert (
            client.post(f"{url}/result", json={"winner_player_ids": [anna["player_id"]]}, headers=anna["headers"]).status_code
            == 200
        )
    before = client.get(url, headers=gm).json()
    body = {"winner_player_ids": []} if action == "result" else {"reason": "Too late"} if action == "dispute" else None
    for phase, code in (("settlement", "results_gm_now"), ("twilight", "results_closed")):
        to_phase(client, gm, cid, phase) if phase == "settlement" else force_phase(engine, cid, phase)  # past the gate (R7.2)
        r = client.post(f"{url}/{action}", json=body, headers=borys["headers"])
        assert r.status_code == 409 and error_code(r) == code, (phase, r.text)
        assert client.get(url, headers=gm).json() == before


def test_r6_8_the_gm_decides_until_settlement_ends_then_results_are_closed(client, engine):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    url = f"/api/v1/campaigns/{cid}/battles/{bid}"
    to_phase(client, gm, cid, "settlement")
    r = client.post(f"{url}/resolve", json={"winner_player_ids": [borys["player_id"]]}, headers=gm)
    assert r.status_code == 200 and r.json()["winners"] == [borys["player_id"]]
    force_phase(engine, cid, "twilight")  # past the Twilight gate (R7.2), which waits for settlements
    r = client.post(f"{url}/resolve", json={"winner_player_ids": [anna["player_id"]]}, headers=gm)
    assert r.status_code == 409 and error_code(r) == "results_closed"
    assert client.get(url, headers=gm).json()["winners"] == [borys["player_id"]]


def _count(engine, model):
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(model)).one()


def test_r11_5_a_place_holding_a_hideout_on_its_inner_map_is_not_deleted(client, engine):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    city = add_place(client, gm, cid, "City", hideout_slot=False)
    docks = add_place(client, gm, cid, "Docks", parent_id=city["id"])
    add_place(client, gm, cid, "Keep")
    from tests.builders.campaigns import join

    players = [join(client, gm, cid, n) for n in ("anna", "borys")]
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm).status_code == 200
    r = client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": docks["id"]}, headers=players[0]["headers"])
    assert r.status_code == 201
    places = _count(engine, Place)
    for target in (city, docks):
        r = client.delete(f"/api/v1/campaigns/{cid}/places/{target['id']}", headers=gm)
        assert r.status_code == 409 and error_code(r) == "place_owned" and "Docks" in r.json()["error"]["message"]
    assert _count(engine, Place) == places


def test_r11_5_a_place_with_orders_or_an_active_event_is_not_deleted_and_no_fee_is_lost(client, engine):
    gm, cid, (anna, borys), places = running_campaign(client, 2)
    field = places[2]
    models = buy(client, cid, anna, "orcs.krusher", "orcs.ax", "orcs.ax", "orcs.ax", faction="orcs")
    w = warband(client, cid, anna, models, mercenary="merc.kuzlo-and-madfall")
    ev = event(client, gm, cid, field["id"], "Ambush")
    r = client.delete(f"/api/v1/campaigns/{cid}/places/{field['id']}", headers=gm)
    assert r.status_code == 409 and error_code(r) == "place_has_event" and "Ambush" in r.json()["error"]["message"]
    to_phase(client, gm, cid, "orders")
    assert (
        client.put(
            f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", json={"event_id": ev["id"]}, headers=anna["headers"]
        ).status_code
        == 200
    )
    assert client.delete(f"/api/v1/campaigns/{cid}/events/{ev['id']}", headers=gm).status_code in (200, 204)
    # The event's end undid the order and refunded the fee; a fresh order to the bare place:
    assert (
        client.put(
            f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", json={"place_id": field["id"]}, headers=anna["headers"]
        ).status_code
        == 200
    )
    r = client.delete(f"/api/v1/campaigns/{cid}/places/{field['id']}", headers=gm)
    assert r.status_code == 409 and error_code(r) == "place_has_orders"
    assert _count(engine, Order) == 1 and _count(engine, Event) == 1
    with Session(engine) as s:
        assert balance_matches_ledger(s, anna["player_id"])


def test_r11_5_a_place_with_battles_is_not_deleted(client, engine):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    battle = client.get(f"/api/v1/campaigns/{cid}/battles/{bid}", headers=gm).json()
    r = client.delete(f"/api/v1/campaigns/{cid}/places/{battle['place_id']}", headers=gm)
    assert r.status_code == 409 and error_code(r) == "place_has_battles"


def test_r11_5_an_empty_place_is_deleted(client, engine):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    city = add_place(client, gm, cid, "City")
    add_place(client, gm, cid, "Docks", parent_id=city["id"])
    assert client.delete(f"/api/v1/campaigns/{cid}/places/{city['id']}", headers=gm).status_code == 204
    assert _count(engine, Place) == 0


def test_r4_7_r11_2_a_finished_campaign_keeps_unrevealed_orders_secret(client):
    gm, cid, (anna, borys), places = running_campaign(client, 2)
    models = buy(client, cid, anna, "orcs.krusher", "orcs.ax", faction="orcs")
    w = warband(client, cid, anna, models, "Hidden Blades")
    to_phase(client, gm, cid, "orders")
    client.put(f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", json={"place_id": places[2]["id"]}, headers=anna["headers"])
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=gm).status_code == 200
    assert client.get(f"/api/v1/campaigns/{cid}/orders", headers=borys["headers"]).json() == []
    assert len(client.get(f"/api/v1/campaigns/{cid}/orders", headers=anna["headers"]).json()) == 1
    assert len(client.get(f"/api/v1/campaigns/{cid}/orders", headers=gm).json()) == 1

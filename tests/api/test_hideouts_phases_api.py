"""Hideout selection (R1.5), lifecycle (R1.6) and the phases (R2.1-R2.3) over the API."""

from sqlmodel import Session, func, select

from app.chronicle.models import ChronicleEntry
from app.maps.models import Hideout
from tests.builders.accounts import user
from tests.builders.campaigns import campaign_with_players, running_campaign
from tests.builders.maps import add_place
from tests.builders.responses import error_code


def status(client, gm, cid, target):
    return client.post(f"/api/v1/campaigns/{cid}/status", json={"status": target}, headers=gm)


def test_r1_5_entering_hideout_selection_needs_players_and_free_flags(client):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "C"}, headers=gm).json()["id"]
    r = status(client, gm, cid, "hideouts")
    assert r.status_code == 409 and error_code(r) == "too_few_players"
    from tests.builders.campaigns import join

    join(client, gm, cid, "anna")
    join(client, gm, cid, "borys")
    add_place(client, gm, cid, "Flagged")
    add_place(client, gm, cid, "Plain", hideout_slot=False)
    r = status(client, gm, cid, "hideouts")
    assert r.status_code == 409 and error_code(r) == "too_few_hideout_places"
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["status"] == "setup"
    add_place(client, gm, cid, "Second flag")
    assert status(client, gm, cid, "hideouts").json()["status"] == "hideouts"


def test_r1_5_claims_and_their_refusals(client, engine):
    gm, cid, players, places = campaign_with_players(client, 2, n_places=3)
    plain = add_place(client, gm, cid, "No flag", hideout_slot=False)
    anna, borys = players
    url = f"/api/v1/campaigns/{cid}/hideouts"
    r = client.post(url, json={"place_id": places[0]["id"]}, headers=anna["headers"])
    assert r.status_code == 409 and error_code(r) == "wrong_status"  # still setup
    status(client, gm, cid, "hideouts")
    r = client.post(url, json={"place_id": places[0]["id"]}, headers=anna["headers"])
    assert r.status_code == 201 and r.json()["hideouts"] == [places[0]["id"]] and r.json()["places"] == [places[0]["id"]]
    refusals = [
        (borys, places[0]["id"], 409, "hideout_taken"),
        (borys, plain["id"], 422, "hideout_not_flagged"),
        (borys, 9999, 404, "not_found"),
        (anna, places[1]["id"], 409, "hideout_already_chosen"),
        ({"headers": gm}, places[1]["id"], 403, "not_a_player"),
    ]
    for who, place_id, code_status, code in refusals:
        r = client.post(url, json={"place_id": place_id}, headers=who["headers"])
        assert r.status_code == code_status and error_code(r) == code, code
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Hideout)).one() == 1
    r = status(client, gm, cid, "running")
    assert r.status_code == 409 and error_code(r) == "hideouts_missing" and "player1" in r.json()["error"]["message"]
    client.post(url, json={"place_id": places[1]["id"]}, headers=borys["headers"])
    started = status(client, gm, cid, "running").json()
    assert (started["status"], started["round"], started["phase"]) == ("running", 1, "preparation")
    mapped = {p["id"]: p for p in client.get(f"/api/v1/campaigns/{cid}/places", headers=anna["headers"]).json()}
    assert mapped[places[0]["id"]]["owner_player_id"] == anna["player_id"] and mapped[places[0]["id"]]["hideout"] is True
    assert mapped[places[2]["id"]]["owner_player_id"] is None


def test_r2_1_r2_2_the_gm_moves_through_the_phases(client):
    gm, cid, players, _ = running_campaign(client)
    url = f"/api/v1/campaigns/{cid}/phase"
    r = client.post(url, json={"phase": "orders"}, headers=players[0]["headers"])
    assert r.status_code == 403 and error_code(r) == "gm_only"
    assert client.post(url, json={"phase": "orders"}, headers=gm).json()["phase"] == "orders"
    assert client.post(url, json={"phase": "preparation"}, headers=gm).json()["phase"] == "preparation"
    for phase in ("orders", "battles"):
        assert client.post(url, json={"phase": phase}, headers=gm).status_code == 200
    for target, code in (
        ("orders", "phase_backward"),
        ("twilight", "phase_skip"),
        ("battles", "phase_same"),
        ("nap", "phase_unknown"),
    ):
        r = client.post(url, json={"phase": target}, headers=gm)
        assert r.status_code == (422 if code == "phase_unknown" else 409) and error_code(r) == code
        assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["phase"] == "battles"
    client.post(url, json={"phase": "settlement"}, headers=gm)
    r = client.post(url, json={"phase": "battles"}, headers=gm)
    assert r.status_code == 409 and error_code(r) == "phase_backward"


def test_r2_3_end_round_names_its_round_and_runs_once(client, engine):
    gm, cid, _players, _ = running_campaign(client)
    url = f"/api/v1/campaigns/{cid}/end-round"
    r = client.post(url, json={"round": 1}, headers=gm)
    assert r.status_code == 409 and error_code(r) == "end_round_phase"
    for phase in ("orders", "battles", "settlement", "twilight"):
        client.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": phase}, headers=gm)
    r = client.post(url, json={"round": 1}, headers=gm)
    assert r.status_code == 200 and (r.json()["round"], r.json()["phase"]) == (2, "preparation")
    again = client.post(url, json={"round": 1}, headers=gm)
    assert again.status_code == 409 and error_code(again) == "end_round_mismatch"
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["round"] == 2
    with Session(engine) as s:
        ends = s.exec(select(func.count()).select_from(ChronicleEntry).where(ChronicleEntry.kind == "round_ended")).one()
    assert ends == 1


def test_r11_1_chronicle_logs_lifecycle_and_phases_paginated(client):
    gm, cid, players, _ = running_campaign(client)
    client.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": "orders"}, headers=gm)
    page = client.get(f"/api/v1/campaigns/{cid}/chronicle?per_page=3", headers=players[0]["headers"]).json()
    assert page["page"] == 1 and page["total"] >= 8 and page["pages"] == -(-page["total"] // 3)
    assert page["items"][0]["kind"] == "phase_changed"
    assert "Preparation" in page["items"][0]["text"] and "Orders" in page["items"][0]["text"]
    kinds = {e["kind"] for e in client.get(f"/api/v1/campaigns/{cid}/chronicle?per_page=200", headers=gm).json()["items"]}
    assert {
        "campaign_created",
        "player_joined",
        "hideouts_opened",
        "hideout_claimed",
        "campaign_started",
        "phase_changed",
    } <= kinds
    r = client.get(f"/api/v1/campaigns/{cid}/chronicle?page=0", headers=gm)
    assert r.status_code == 422


def test_r11_5_phase_body_errors_are_clear(client):
    gm, cid, _players, _ = running_campaign(client)
    for body in ({}, {"phase": 5}, {"phase": None}):
        r = client.post(f"/api/v1/campaigns/{cid}/phase", json=body, headers=gm)
        assert r.status_code == 422 and r.json()["error"]["details"], body
    r = client.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": "two"}, headers=gm)
    assert r.status_code == 422
    r = client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "paused"}, headers=gm)
    assert r.status_code == 422 and r.json()["error"]["details"][0]["field"] == "status"

"""Concurrent requests: exactly one hideout claim wins (R1.5); End round runs once (R2.3);
a phase change is not applied twice."""

import threading

from sqlmodel import Session, func, select

from app.chronicle.models import ChronicleEntry
from app.maps.models import Hideout
from tests.builders.campaigns import campaign_with_players, running_campaign


def race(make_client, calls):
    """Runs each call in its own client and thread, released together."""
    clients = [make_client() for _ in calls]
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i):
        barrier.wait()
        results[i] = calls[i](clients[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_r1_5_concurrent_claims_of_one_place_have_exactly_one_winner(client, make_client, engine):
    gm, cid, players, places = campaign_with_players(client, 6, n_places=6)
    client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm)
    target = places[0]["id"]
    calls = [
        (lambda c, p=p: c.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": target}, headers=p["headers"]))
        for p in players
    ]
    statuses = sorted(r.status_code for r in race(make_client, calls))
    assert statuses == [201, 409, 409, 409, 409, 409]
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Hideout).where(Hideout.place_id == target)).one() == 1


def test_r1_5_one_player_claiming_two_places_at_once_gets_one(client, make_client, engine):
    gm, cid, players, places = campaign_with_players(client, 2, n_places=4)
    client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm)
    anna = players[0]
    calls = [
        (lambda c, pid=pl["id"]: c.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": pid}, headers=anna["headers"]))
        for pl in places
    ]
    statuses = sorted(r.status_code for r in race(make_client, calls))
    assert statuses == [201, 409, 409, 409]
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Hideout).where(Hideout.player_id == anna["player_id"])).one() == 1


def test_r2_3_concurrent_end_round_requests_end_the_round_once(client, make_client, engine):
    gm, cid, _players, _places = running_campaign(client)
    for phase in ("orders", "battles", "settlement", "twilight"):
        client.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": phase}, headers=gm)
    calls = [lambda c: c.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": 1}, headers=gm)] * 6
    statuses = sorted(r.status_code for r in race(make_client, calls))
    assert statuses == [200, 409, 409, 409, 409, 409]
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["round"] == 2
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(ChronicleEntry).where(ChronicleEntry.kind == "round_ended")).one() == 1


def test_r2_2_double_clicked_phase_change_applies_once(client, make_client, engine):
    gm, cid, _players, _places = running_campaign(client)
    calls = [lambda c: c.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": "orders"}, headers=gm)] * 4
    statuses = sorted(r.status_code for r in race(make_client, calls))
    assert statuses == [200, 409, 409, 409]
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(ChronicleEntry).where(ChronicleEntry.kind == "phase_changed")).one() == 1

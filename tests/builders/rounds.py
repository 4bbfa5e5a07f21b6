"""A round as the GM and the players play it: phases, events, orders."""

from __future__ import annotations


def to_phase(client, gm: dict, cid: int, phase: str) -> None:
    from app.campaigns.rules import PHASES

    current = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["phase"]
    for p in PHASES[PHASES.index(current) + 1 : PHASES.index(phase) + 1]:
        r = client.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": p}, headers=gm)
        assert r.status_code == 200, r.text


def force_phase(engine, cid: int, phase: str) -> None:
    """Moves the campaign straight to `phase` in the database, for tests of what a phase
    refuses that do not play the round up to it (Twilight's gate, R7.2, would wait for
    every result and settlement)."""
    from sqlmodel import Session

    from app.campaigns.models import Campaign

    with Session(engine) as s:
        campaign = s.get(Campaign, cid)
        campaign.phase = phase
        s.add(campaign)
        s.commit()


def event(client, gm: dict, cid: int, place_id: int, title: str = "Ambush", **extra) -> dict:
    r = client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": place_id, "title": title, **extra}, headers=gm)
    assert r.status_code == 201, r.text
    return r.json()


def send(client, cid, player, **target):
    """Orders `player["band"]` to `target` (place_id=… or event_id=…)."""
    r = client.put(f"/api/v1/campaigns/{cid}/warbands/{player['band']['id']}/order", json=target, headers=player["headers"])
    assert r.status_code == 200, r.text


def fight(client, gm, cid, players, **target):
    """Orders: every player's warband goes to `target`; then Battles begin."""
    to_phase(client, gm, cid, "orders")
    for p in players:
        send(client, cid, p, **target)
    to_phase(client, gm, cid, "battles")

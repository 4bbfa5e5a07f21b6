"""Small helpers that drive the real API, as an integrator would."""
from __future__ import annotations

PASSWORD = "correct horse battery"


def register(client, nickname: str, password: str = PASSWORD, locale: str | None = None) -> dict:
    body = {"nickname": nickname, "password": password}
    if locale:
        body["locale"] = locale
    r = client.post("/api/v1/users", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def token_headers(client, nickname: str, password: str = PASSWORD) -> dict:
    r = client.post("/api/v1/auth/tokens", json={"nickname": nickname, "password": password})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def user(client, nickname: str, locale: str | None = None) -> dict:
    register(client, nickname, locale=locale)
    return token_headers(client, nickname)


def create_campaign(client, gm: dict, **body) -> dict:
    body.setdefault("name", "Winter of the Lost Crown")
    r = client.post("/api/v1/campaigns", json=body, headers=gm)
    assert r.status_code == 201, r.text
    return r.json()


def add_place(client, gm: dict, cid: int, name: str, hideout_slot: bool = True, **extra) -> dict:
    body = {"name": name, "income": 5, "hideout_slot": hideout_slot, "x": 10, "y": 20, **extra}
    r = client.post(f"/api/v1/campaigns/{cid}/places", json=body, headers=gm)
    assert r.status_code == 201, r.text
    return r.json()


def join(client, gm: dict, cid: int, nickname: str) -> dict:
    headers = user(client, nickname)
    r = client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": nickname}, headers=gm)
    assert r.status_code == 201, r.text
    r = client.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=headers)
    assert r.status_code == 200, r.text
    return {"headers": headers, "player_id": r.json()["player_id"], "nickname": nickname}


def campaign_with_players(client, n_players: int = 2, n_places: int | None = None) -> tuple[dict, int, list[dict], list[dict]]:
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    places = [add_place(client, gm, cid, f"Place {i}") for i in range(n_places or n_players + 1)]
    players = [join(client, gm, cid, f"player{i}") for i in range(n_players)]
    return gm, cid, players, places


def start_campaign(client, gm: dict, cid: int, players: list[dict], places: list[dict]) -> None:
    """Hideout selection, each player taking the place beside them in `places`, then running."""
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm).status_code == 200
    for p, place in zip(players, places):
        r = client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": place["id"]}, headers=p["headers"])
        assert r.status_code == 201, r.text
    r = client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "running"}, headers=gm)
    assert r.status_code == 200, r.text


def running_campaign(client, n_players: int = 2):
    gm, cid, players, places = campaign_with_players(client, n_players)
    start_campaign(client, gm, cid, players, places)
    return gm, cid, players, places


def error_code(response) -> str:
    return response.json()["error"]["code"]


def buy(client, cid: int, player: dict, *profiles: str, faction: str | None = None) -> list[dict]:
    """Chooses `faction` (when given) and buys the profiles; returns the models."""
    if faction:
        r = client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": faction}, headers=player["headers"])
        assert r.status_code == 200, r.text
    models = []
    for key in profiles:
        r = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": key}, headers=player["headers"])
        assert r.status_code == 201, r.text
        models.append(r.json())
    return models


def warband(client, cid: int, player: dict, models: list[dict], name: str = "Raiders", mercenary: str | None = None) -> dict:
    body = {"name": name, "model_ids": [m["id"] for m in models]}
    if mercenary:
        body["mercenary"] = mercenary
    r = client.post(f"/api/v1/campaigns/{cid}/warbands", json=body, headers=player["headers"])
    assert r.status_code == 201, r.text
    return r.json()


def event(client, gm: dict, cid: int, place_id: int, title: str = "Ambush", **extra) -> dict:
    r = client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": place_id, "title": title, **extra}, headers=gm)
    assert r.status_code == 201, r.text
    return r.json()


def to_phase(client, gm: dict, cid: int, phase: str) -> None:
    from app.campaigns.rules import PHASES

    current = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["phase"]
    for p in PHASES[PHASES.index(current) + 1: PHASES.index(phase) + 1]:
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

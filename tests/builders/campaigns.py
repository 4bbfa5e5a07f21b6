"""Campaigns, their players, and a campaign started: hideouts chosen, running."""

from __future__ import annotations

from tests.builders.accounts import user
from tests.builders.maps import add_place


def create_campaign(client, gm: dict, **body) -> dict:
    body.setdefault("name", "Winter of the Lost Crown")
    r = client.post("/api/v1/campaigns", json=body, headers=gm)
    assert r.status_code == 201, r.text
    return r.json()


def join(client, gm: dict, cid: int, nickname: str) -> dict:
    headers = user(client, nickname)
    r = client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": nickname}, headers=gm)
    assert r.status_code == 201, r.text
    r = client.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=headers)
    assert r.status_code == 200, r.text
    return {"headers": headers, "player_id": r.json()["player_id"], "nickname": nickname}


def campaign_with_players(
    client,
    n_players: int = 2,
    n_places: int | None = None,
    *,
    names: list[str] | tuple[str, ...] | None = None,
    gm_name: str = "gamemaster",
    gm_locale: str | None = None,
    **campaign,
) -> tuple[dict, int, list[dict], list[dict]]:
    """A campaign still gathering: the GM `gm_name`, places "Place 0"… (one more than the
    players unless `n_places`), players `names` (player0… by default) who joined.
    `campaign`: settings of the new campaign."""
    gm = user(client, gm_name, locale=gm_locale)
    cid = create_campaign(client, gm, **campaign)["id"]
    places = [add_place(client, gm, cid, f"Place {i}") for i in range(n_places or n_players + 1)]
    players = [join(client, gm, cid, name) for name in (names or [f"player{i}" for i in range(n_players)])]
    return gm, cid, players, places


def start_campaign(client, gm: dict, cid: int, players: list[dict], places: list[dict]) -> None:
    """Hideout selection, each player taking the place beside them in `places`, then running."""
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm).status_code == 200
    for p, place in zip(players, places):
        r = client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": place["id"]}, headers=p["headers"])
        assert r.status_code == 201, r.text
    r = client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "running"}, headers=gm)
    assert r.status_code == 200, r.text


def running_campaign(client, n_players: int = 2, n_places: int | None = None, **options):
    """`campaign_with_players` (same options), started: round 1, Preparation, player i's
    hideout at places[i]."""
    gm, cid, players, places = campaign_with_players(client, n_players, n_places, **options)
    start_campaign(client, gm, cid, players, places)
    return gm, cid, players, places


def running_trio(client, **campaign):
    """A running campaign (round 1, Preparation) with three players of 400 gold each:
    anna sends, borys receives, cecylia looks on. `campaign`: settings of the new campaign."""
    gm, cid, players, _ = running_campaign(client, 3, 4, names=("anna", "borys", "cecylia"), **campaign)
    return gm, cid, players

"""Places on a campaign's map, and who holds them."""

from __future__ import annotations

from sqlmodel import Session


def add_place(client, gm: dict, cid: int, name: str, hideout_slot: bool = True, **extra) -> dict:
    body = {"name": name, "income": 5, "hideout_slot": hideout_slot, "x": 10, "y": 20, **extra}
    r = client.post(f"/api/v1/campaigns/{cid}/places", json=body, headers=gm)
    assert r.status_code == 201, r.text
    return r.json()


def give_hideout(engine, place_id: int, player_id: int) -> None:
    """Setup only: the player holds one more hideout (in play a captured hideout does this,
    R7.3), so that a warband can gather in, or fall back to, more than one."""
    from app.maps.models import Hideout, Place

    with Session(engine) as s:
        place = s.get(Place, place_id)
        place.owner_player_id = player_id
        s.add(place)
        s.add(Hideout(campaign_id=place.campaign_id, place_id=place_id, player_id=player_id))
        s.commit()

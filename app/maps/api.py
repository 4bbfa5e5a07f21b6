from __future__ import annotations

from fastapi import APIRouter, Response

from app.accounts.deps import ApiUser, SessionDep
from app.maps import service
from app.maps.models import Place
from app.maps.schemas import PlaceIn, PlaceOut, PlacePatch
from app.visibility import viewer_for

router = APIRouter(tags=["places"])


def place_out(place: Place, hideout_ids: set[int]) -> PlaceOut:
    return PlaceOut(
        id=place.id, name=place.name, description=place.description, income=place.income,
        hideout_slot=place.hideout_slot, x=place.x, y=place.y, parent_id=place.parent_id,
        has_map=place.has_map, entry=place.entry, owner_player_id=place.owner_player_id,
        hideout=place.id in hideout_ids,
    )


@router.get("/campaigns/{cid}/places", response_model=list[PlaceOut])
def list_places(cid: int, user: ApiUser, session: SessionDep):
    viewer_for(session, user, cid)
    hideouts = service.hideout_place_ids(session, cid)
    return [place_out(p, hideouts) for p in service.places(session, cid)]


@router.post("/campaigns/{cid}/places", status_code=201, response_model=PlaceOut)
def create_place(cid: int, body: PlaceIn, user: ApiUser, session: SessionDep):
    place = service.create_place(session, actor=user, campaign_id=cid, data=body.model_dump())
    return place_out(place, set())


@router.patch("/campaigns/{cid}/places/{pid}", response_model=PlaceOut)
def update_place(cid: int, pid: int, body: PlacePatch, user: ApiUser, session: SessionDep):
    place = service.update_place(session, actor=user, campaign_id=cid, place_id=pid, changes=body.model_dump(exclude_unset=True))
    return place_out(place, service.hideout_place_ids(session, cid))


@router.delete("/campaigns/{cid}/places/{pid}", status_code=204)
def delete_place(cid: int, pid: int, user: ApiUser, session: SessionDep):
    service.delete_place(session, actor=user, campaign_id=cid, place_id=pid)
    return Response(status_code=204)

"""Ready maps over the API (R12.13): an empty draft's map filled from a shipped template."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict

from app.accounts.deps import ApiUser, SessionDep
from app.core.types import PathId
from app.maps.ready import service as ready

router = APIRouter(tags=["maps"])


class ReadyMapIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    template: Literal["region", "city"]  # ready.KEYS


class ReadyMapOut(BaseModel):
    template: str
    name: str
    places: int
    paths: int


def media_dir(request: Request):
    return request.app.state.settings.var_dir / "media"


@router.post("/campaigns/{cid}/map-template", status_code=201, response_model=ReadyMapOut)
def fill_map(cid: PathId, body: ReadyMapIn, request: Request, user: ApiUser, session: SessionDep):
    """GM, a campaign in setup whose map has no place yet: the map image, places (a city's
    districts with their own maps), paths and the paths module on, from a ready map; place
    names in the caller's language."""
    locale = getattr(request.state, "locale", "en")
    filled = ready.fill_map(session, actor=user, campaign_id=cid, key=body.template, locale=locale, media_dir=media_dir(request))
    return ReadyMapOut(template=filled.ready.key, name=filled.ready.name(locale), places=filled.places, paths=filled.paths)

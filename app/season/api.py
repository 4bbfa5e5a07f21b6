"""Deadlines over the API (API.md `deadline`)."""
from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.accounts.deps import ApiUser, SessionDep
from app.core.templating import request_gettext
from app.core.types import PathId
from app.season import service
from app.season.schemas import DeadlineIn, DeadlineOut

router = APIRouter(tags=["season"])


@router.get("/campaigns/{cid}/deadline", response_model=DeadlineOut)
def get_deadline(cid: PathId, request: Request, user: ApiUser, session: SessionDep):
    """The current phase's deadline (members); `ends_at` null when it has none."""
    return service.read(session, actor=user, campaign_id=cid).as_dict(request_gettext(request))


@router.put("/campaigns/{cid}/deadline", response_model=DeadlineOut)
def put_deadline(cid: PathId, body: DeadlineIn, request: Request, user: ApiUser, session: SessionDep):
    """GM: the current phase ends at `ends_at`; with `auto_advance` the round moves on by itself then."""
    view = service.set_deadline(session, actor=user, campaign_id=cid, ends_at=body.ends_at, auto_advance=body.auto_advance,
                                near_minutes=request.app.state.settings.deadline_near_minutes)
    return view.as_dict(request_gettext(request))


@router.delete("/campaigns/{cid}/deadline", status_code=204)
def delete_deadline(cid: PathId, user: ApiUser, session: SessionDep):
    """GM: the current phase has no deadline any more."""
    service.clear_deadline(session, actor=user, campaign_id=cid)
    return Response(status_code=204)

from __future__ import annotations

from fastapi import APIRouter, Request

from app.accounts.deps import ApiUser, SessionDep
from app.campaigns.service import campaign_of
from app.campaigns.terms import campaign_words
from app.chronicle import service
from app.chronicle.schemas import ChronicleOut, ChroniclePage
from app.chronicle.texts import entry_text
from app.core.pagination import Paging
from app.core.templating import request_gettext
from app.core.types import PathId

router = APIRouter(tags=["chronicle"])


@router.get("/campaigns/{cid}/chronicle", response_model=ChroniclePage)
def chronicle(
    cid: PathId,
    request: Request,
    user: ApiUser,
    session: SessionDep,
    paging: Paging,
):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    result = service.list_entries(session, viewer, page=paging.page, per_page=paging.per_page)
    gettext = request_gettext(request)
    words = campaign_words(viewer.campaign, gettext)
    return ChroniclePage.of(
        result,
        lambda e: ChronicleOut(
            id=e.id, round=e.round, phase=e.phase, kind=e.kind, text=entry_text(e, gettext, words), created_at=e.created_at
        ),
    )

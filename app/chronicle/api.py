from __future__ import annotations

from fastapi import APIRouter, Query, Request

from app.core.types import PathId
from app.accounts.deps import ApiUser, SessionDep
from app.chronicle import service
from app.core.templating import request_gettext
from app.chronicle.schemas import ChronicleOut, ChroniclePage
from app.campaigns.service import campaign_of
from app.chronicle.texts import entry_text
from app.campaigns.terms import campaign_words

router = APIRouter(tags=["chronicle"])


@router.get("/campaigns/{cid}/chronicle", response_model=ChroniclePage)
def chronicle(
    cid: PathId, request: Request, user: ApiUser, session: SessionDep,
    page: int = Query(1, ge=1, le=100_000), per_page: int = Query(50, ge=1, le=200),
):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    result = service.list_entries(session, campaign_id=cid, page=page, per_page=per_page)
    gettext = request_gettext(request)
    words = campaign_words(viewer.campaign, gettext)
    return ChroniclePage(
        items=[
            ChronicleOut(id=e.id, round=e.round, phase=e.phase, kind=e.kind, text=entry_text(e, gettext, words), created_at=e.created_at)
            for e in result.items
        ],
        page=result.page, pages=result.pages, total=result.total,
    )

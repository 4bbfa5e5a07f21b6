from __future__ import annotations

from fastapi import APIRouter, Request

from app.core.types import PathId, QueryPage
from app.accounts.deps import PageLogin, SessionDep
from app.chronicle import service
from app.core.templating import render, request_gettext
from app.campaigns.service import campaign_of
from app.chronicle.texts import entry_text
from app.campaigns.terms import campaign_words

router = APIRouter()


@router.get("/campaigns/{cid}/chronicle")
def chronicle(cid: PathId, request: Request, user: PageLogin, session: SessionDep, page: int = QueryPage()):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    result = service.list_entries(session, campaign_id=cid, page=page, per_page=30)
    gettext = request_gettext(request)
    words = campaign_words(viewer.campaign, gettext)
    entries = [(e, entry_text(e, gettext, words)) for e in result.items]
    return render(
        request, "chronicle/chronicle.html", viewer=viewer, campaign=viewer.campaign,
        entries=entries, page=result, tab="chronicle",
    )

from __future__ import annotations

from fastapi import APIRouter

from app.battles import photos
from app.campaigns.deps import CampaignPage
from app.campaigns.terms import campaign_words
from app.chronicle import service
from app.chronicle.texts import entry_text
from app.core.templating import render, request_gettext
from app.core.types import QueryPage

router = APIRouter()


@router.get("/campaigns/{cid}/chronicle")
def chronicle(context: CampaignPage, page: int = QueryPage()):
    request, session, viewer, cid = context.request, context.session, context.viewer, context.cid
    result = service.list_entries(session, viewer, page=page, per_page=30, rows=True)
    gettext = request_gettext(request)
    words = campaign_words(viewer.campaign, gettext)
    entries = [(e, entry_text(e, gettext, words)) for e in result.items]
    # R12.3: a decided battle's entry shows the photos of its table.
    of_entry = {
        e.id: e.params["battle_id"] for e in result.items if isinstance(e.params, dict) and type(e.params.get("battle_id")) is int
    }
    shots = photos.listed(session, list(of_entry.values()), campaign_id=cid)
    return render(
        request,
        "chronicle/chronicle.html",
        viewer=viewer,
        campaign=viewer.campaign,
        entries=entries,
        photos={entry_id: shots[bid] for entry_id, bid in of_entry.items() if shots.get(bid)},
        page=result,
        tab="chronicle",
    )

from __future__ import annotations

from functools import partial
from typing import NamedTuple

from fastapi import APIRouter

from app.battles import photos
from app.campaigns.deps import CampaignPage
from app.campaigns.terms import campaign_words
from app.chronicle import service
from app.chronicle.texts import entry_text
from app.core.templating import render, request_gettext
from app.core.types import QueryPage
from app.versions.remembered import remembered

router = APIRouter()


class Shot(NamedTuple):
    """What the chronicle shows of a battle's photo."""

    id: int
    battle_id: int
    width: int
    height: int


@router.get("/campaigns/{cid}/chronicle")
def chronicle(context: CampaignPage, page: int = QueryPage()):
    request, session, viewer = context.request, context.session, context.viewer
    locale = getattr(request.state, "locale", "en")
    # The first page alone is remembered: any member could fill the memory with every page.
    result, entries, shown = remembered(
        session, viewer, "chronicle", locale, partial(_read, context, page), public=True, keep=page == 1
    )
    return render(
        request,
        "chronicle/chronicle.html",
        viewer=viewer,
        campaign=viewer.campaign,
        entries=entries,
        photos=shown,
        page=result,
        tab="chronicle",
    )


def _read(context, page: int) -> tuple:
    """One page of the chronicle, its entries' texts in the reader's language and its photos:
    remembered while nothing the viewer may see has changed (app/versions/remembered.py)."""
    session, viewer = context.session, context.viewer
    result = service.list_entries(session, viewer, page=page, per_page=30, rows=True)
    gettext = request_gettext(context.request)
    words = campaign_words(viewer.campaign, gettext)
    entries = [(e, entry_text(e, gettext, words)) for e in result.items]
    # R12.3: a decided battle's entry shows the photos of its table.
    of_entry = {
        e.id: e.params["battle_id"] for e in result.items if isinstance(e.params, dict) and type(e.params.get("battle_id")) is int
    }
    shots = photos.listed(session, list(of_entry.values()), campaign_id=context.cid)
    # Values, not the session's objects: kept, they outlive it and are shared.
    shown = {e: [Shot(p.id, p.battle_id, p.width, p.height) for p in shots[b]] for e, b in of_entry.items() if shots.get(b)}
    return result, entries, shown

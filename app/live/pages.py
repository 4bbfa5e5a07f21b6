"""Pages follow the live stream (R11.4): the campaign layout connects to it with htmx's SSE
extension after the newest event its viewer could see when the page was drawn, so nothing
between drawing and connecting is lost; static/live.js refreshes the parts of the page that an
event concerns."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import inspect
from sqlalchemy.orm import object_session

from app.accounts.models import User
from app.core.db import unit_of_work
from app.core.live import seal_id
from app.live import service
from app.visibility import viewer_for

router = APIRouter()


def _resume_point(request, viewer) -> str:
    """The sealed id of the newest event this viewer may see ("0": none kept). Not the moment
    of drawing, nor the campaign's newest event: both change when nothing this viewer may see
    did, and a page must stay the same byte for byte then (SPEC R11.2, issue 27 item 7)."""
    session = object_session(viewer.campaign)
    if session is not None:
        last = service.page_last_seen(session, viewer)
    else:  # drawn after its unit of work ended (its rows detached): a short read of its own
        with unit_of_work(request.app.state.engine, write=False) as own:
            user = own.get(User, request.state.user.id)
            last = service.last_seen(own, viewer_for(own, user, inspect(viewer.campaign).identity[0]))
    return seal_id(request.app.state.secret_key.encode(), last) if last else "0"


def live_stream(context: dict) -> dict:
    """Template hook: a member's campaign pages get `live_url()`, the stream to connect to."""
    campaign, viewer, request = context.get("campaign"), context.get("viewer"), context.get("request")
    if campaign is None or request is None or not getattr(viewer, "is_member", False):
        return {}

    def live_url() -> str:
        return f"/api/v1/campaigns/{campaign.id}/stream?after={_resume_point(request, viewer)}"

    return {"live_url": live_url}

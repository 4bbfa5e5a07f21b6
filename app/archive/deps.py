"""R12.4: a finished campaign is read-only — the one place that refuses every API write to it
(app/main.py gives this dependency to every API router). A member (or its GM) is answered 409
`campaign_read_only` before the route runs, so nothing changes; anybody else gets what the
route would say (401, 404), so a finished campaign is not told apart from a missing one.

The few writes that stay open: copying the campaign (R12.13), marking a letter read or
unread (the recipient's own), removing a webhook and revoking a club screen (both stop
something going out)."""

from __future__ import annotations

from fastapi import Request
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from app.accounts.deps import SessionDep, api_user_optional
from app.campaigns.models import Campaign
from app.core.db import WRITE_METHODS
from app.core.errors import DomainError
from app.core.routing import refused_method
from app.core.rows import row_by_id
from app.core.types import MAX_ID
from app.visibility import viewer_for

OPEN_WHEN_FINISHED = {
    ("POST", "/campaigns/{cid}/copy"),
    ("POST", "/campaigns/{cid}/letters/{lid}/read"),
    ("POST", "/campaigns/{cid}/letters/{lid}/unread"),
    ("DELETE", "/campaigns/{cid}/webhooks/{hid}"),
    ("DELETE", "/campaigns/{cid}/screen-links/{lid}"),
}


def _is_id(value) -> bool:
    return isinstance(value, str) and value.isdigit() and 0 < int(value) <= MAX_ID


def route_path(request: Request) -> str:
    route = request.scope.get("route")
    path = getattr(route, "path", "") or ""
    return path.removeprefix("/api/v1")


async def refuse_finished(request: Request, session: SessionDep) -> None:
    """Who asks is read only for a finished campaign (the route reads it again, cached by
    nothing: a dependency here would add the bearer scheme to every operation's schema).
    Async, so that a read pays no hop to a worker thread; a write's check reads the database
    in one."""
    if request.method in WRITE_METHODS:
        await run_in_threadpool(_refuse_finished_write, request, session)


def _refuse_finished_write(request: Request, session: Session) -> None:
    cid = request.path_params.get("cid")
    if not (isinstance(cid, str) and cid.isdigit() and 0 < int(cid) <= MAX_ID):
        return  # the route's own validation answers
    if refused_method(request) or not all(_is_id(v) for k, v in request.path_params.items() if k != "target"):
        return  # PATCH /events/library is no event's: the route's 405 or 404, finished or not
    if (request.method, route_path(request)) in OPEN_WHEN_FINISHED:
        return
    campaign = row_by_id(session, Campaign, int(cid))
    if campaign is None or campaign.status != "finished":
        return
    user = api_user_optional(request, session)
    if user is None:
        return  # not logged in: the route says so
    viewer_for(session, user, campaign.id, invitee_ok=True)  # an outsider: not found, as the route says
    raise DomainError("campaign_read_only")

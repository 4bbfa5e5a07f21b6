"""The season's end over the API (R12.4, R12.5, R12.7): the standings, the club screen's links
and the member's calendar link. The map through time is GET /map?round=N (maps/api.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.accounts.deps import ApiUser, SessionDep
from app.archive import links
from app.archive.schemas import CalendarLinkOut, ScreenLinkOut, StandingOut, StandingsOut
from app.archive.standings import standings
from app.campaigns.service import campaign_of
from app.core.types import PathId

router = APIRouter(tags=["season"])


def absolute(request: Request, path: str) -> str:
    return str(request.base_url).rstrip("/") + path


@router.get("/campaigns/{cid}/standings", response_model=StandingsOut)
def get_standings(cid: PathId, user: ApiUser, session: SessionDep):
    """Member: per player, places and hideouts held, battles fought and won (decided ones),
    the experience of their company's models and the gold spent on purchases (R12.4)."""
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return StandingsOut(items=[StandingOut(**vars(s)) for s in standings(session, viewer)])


@router.post("/campaigns/{cid}/screen-links", status_code=201, response_model=ScreenLinkOut)
def create_screen_link(cid: PathId, request: Request, user: ApiUser, session: SessionDep):
    """GM: a public read-only club screen (R12.5); its address is shown once, the token kept hashed."""
    link, token = links.new_screen_link(session, actor=user, campaign_id=cid)
    return ScreenLinkOut(id=link.id, url=absolute(request, f"/screen/{token}"))


@router.delete("/campaigns/{cid}/screen-links/{lid}", status_code=204)
def revoke_screen_link(cid: PathId, lid: PathId, user: ApiUser, session: SessionDep):
    """GM: the screen stops at once (its next refresh is not found); also in a finished campaign."""
    links.revoke_screen_link(session, actor=user, campaign_id=cid, link_id=lid)
    return Response(status_code=204)


@router.post("/campaigns/{cid}/calendar-link", status_code=201, response_model=CalendarLinkOut)
def create_calendar_link(cid: PathId, request: Request, user: ApiUser, session: SessionDep):
    """Member: their private iCalendar feed of the campaign's phases and deadlines (R12.7);
    the member's previous link stops working."""
    token = links.new_calendar_link(session, actor=user, campaign_id=cid)
    return CalendarLinkOut(url=absolute(request, f"/calendar/{token}.ics"))

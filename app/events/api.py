from __future__ import annotations

from fastapi import APIRouter

from app.accounts.deps import ApiUser, SessionDep
from app.campaigns.service import campaign_of
from app.catalog.deps import CatalogDep
from app.core.types import PathId
from app.events import rules, service
from app.events.models import Event
from app.events.schemas import EventIn, EventOut, EventPatch

router = APIRouter(tags=["events"])


def event_out(event: Event, current_round: int, undone_orders: int = 0) -> EventOut:
    return EventOut(
        undone_orders=undone_orders,
        id=event.id,
        place_id=event.place_id,
        title=event.title,
        text=event.text,
        round_added=event.round_added,
        duration=event.duration,
        last_round=rules.last_round(event.round_added, event.duration),
        active=rules.is_active(event.round_added, event.duration, event.ended_round, current_round),
        scenario=event.scenario,
        other_mission=event.other_mission,
        roles=event.roles,
        blockade=event.blockade,
        points_limit=event.points_limit,
        reward=event.reward,
        notes=event.notes,
    )


@router.get("/campaigns/{cid}/events", response_model=list[EventOut])
def list_events(cid: PathId, user: ApiUser, session: SessionDep):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return [event_out(e, viewer.campaign.round) for e in service.active_events(session, viewer.campaign)]


@router.get("/campaigns/{cid}/events/library", response_model=list[EventOut])
def event_library(cid: PathId, user: ApiUser, session: SessionDep):
    """R12.13: the events that are over (and a copy's), to run again; the GM's."""
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return [event_out(e, viewer.campaign.round) for e in service.library(session, viewer)]


@router.post("/campaigns/{cid}/events/{eid}/reuse", status_code=201, response_model=EventOut)
def reuse_event(cid: PathId, eid: PathId, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    """R12.13: a library event runs again from this round, as a new event."""
    event = service.reuse_event(session, actor=user, campaign_id=cid, event_id=eid, catalog=catalog)
    return event_out(event, max(event.round_added, 1))


@router.post("/campaigns/{cid}/events", status_code=201, response_model=EventOut)
def create_event(cid: PathId, body: EventIn, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    event = service.create_event(session, actor=user, campaign_id=cid, data=body.model_dump(), catalog=catalog)
    return event_out(event, max(event.round_added, 1))


@router.patch("/campaigns/{cid}/events/{eid}", response_model=EventOut)
def update_event(cid: PathId, eid: PathId, body: EventPatch, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    change = service.update_event(
        session, actor=user, campaign_id=cid, event_id=eid, changes=body.model_dump(exclude_unset=True), catalog=catalog
    )
    return event_out(change.event, campaign_of(session, actor=user, campaign_id=cid).campaign.round, len(change.undone))


@router.delete("/campaigns/{cid}/events/{eid}", response_model=EventOut)
def end_event(cid: PathId, eid: PathId, user: ApiUser, session: SessionDep):
    change = service.end_event(session, actor=user, campaign_id=cid, event_id=eid)
    return event_out(change.event, campaign_of(session, actor=user, campaign_id=cid).campaign.round, len(change.undone))

"""Event use cases (R5.1, R5.4, R5.5): only the GM creates, edits and ends events."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import bindparam
from sqlmodel import Session, col, func, select

from app.accounts.models import User
from app.audit import service as audit
from app.campaigns.models import Campaign
from app.catalog.catalog import Catalog
from app.chronicle import service as chronicle
from app.core.db import read_rows
from app.core.errors import DomainError
from app.core.ports import Port
from app.events import rules
from app.events.models import Event
from app.maps.models import Place
from app.visibility import Viewer, campaign_row, gm_viewer, require_gm
from app.warbands.models import Order
from app.warbands.undo import undo_order

FIELDS = ("title", "text", "duration", "scenario", "other_mission", "roles", "blockade", "points_limit", "reward", "notes")


# The events that may be active in a round (`rules.is_active` decides): not ended, added by then.
_MAYBE_ACTIVE = (
    Event.campaign_id == bindparam("campaign_id"),
    Event.ended_round.is_(None),
    Event.round_added <= bindparam("round"),
)
_ACTIVE = select(Event).where(*_MAYBE_ACTIVE).order_by(Event.id)
# What a list of orders or warbands shows of an event: its title (issue 37: the events'
# whole rows, texts and notes included, were a fifth of the GM's Orders page).
_ACTIVE_TITLES = (
    select(Event.id, Event.title, Event.round_added, Event.duration, Event.ended_round).where(*_MAYBE_ACTIVE).order_by(Event.id)
)


def _in_round(campaign: Campaign) -> dict:
    return {"campaign_id": campaign.id, "round": campaign.round}


def active_events(session: Session, campaign: Campaign) -> list[Event]:
    """Events active in the campaign's current round, oldest first."""
    rows = session.exec(_ACTIVE, params=_in_round(campaign)).all()
    return [e for e in rows if rules.is_active(e.round_added, e.duration, e.ended_round, campaign.round)]


def active_event_titles(session: Session, campaign: Campaign) -> dict[int, str]:
    """`active_events`' titles by id, from the few columns they need."""
    rows = read_rows(session, _ACTIVE_TITLES, _in_round(campaign))
    return {eid: title for eid, title, added, duration, ended in rows if rules.is_active(added, duration, ended, campaign.round)}


def is_active(event: Event, campaign: Campaign) -> bool:
    return rules.is_active(event.round_added, event.duration, event.ended_round, campaign.round)


def _event(session: Session, campaign_id: int, event_id: int) -> Event:
    return campaign_row(session, Event, event_id, campaign_id)


def create_event(session: Session, *, actor: User, campaign_id: int, data: dict, catalog: Catalog) -> Event:
    return _add_event(session, gm_viewer(session, actor, campaign_id), data, catalog)


def _add_event(session: Session, viewer: Viewer, data: dict, catalog: Catalog, clock: dict | None = None) -> Event:
    campaign_id = viewer.campaign.id
    place = campaign_row(session, Place, data["place_id"], campaign_id)
    rules.check_scenario(data.get("scenario"), data.get("other_mission"), set(catalog.scenarios))
    # Before round 1 an event counts from round 1.
    event = Event(
        campaign_id=campaign_id,
        place_id=place.id,
        round_added=max(viewer.campaign.round, 1),
        clock=clock,
        **{k: v for k, v in data.items() if k in FIELDS},
    )
    event.title = event.title.strip()
    session.add(event)
    session.flush()
    chronicle.record(session, viewer.campaign, "event_added", title=event.title, place=place.name)
    audit.record(session, viewer.campaign, viewer.user, "event_added", f"event:{event.id}", after=audit.snapshot(event, FIELDS))
    return event


@dataclass
class EventChange:
    """An edited or ended event, and the orders the change undid (R5.5)."""

    event: Event
    undone: list[Order] = field(default_factory=list)


def _standing_orders(session: Session, campaign: Campaign, event: Event) -> list[Order]:
    return list(
        session.exec(select(Order).where(Order.event_id == event.id, Order.round == campaign.round).order_by(Order.id)).all()
    )


def standing_counts(session: Session, campaign: Campaign) -> dict[int, int]:
    """R5.5: how many orders of this round stand at each event (for the GM's End the event
    question), in one statement."""
    rows = session.exec(
        select(Order.event_id, func.count(Order.id))
        .where(Order.campaign_id == campaign.id, Order.round == campaign.round, Order.event_id.is_not(None))
        .group_by(Order.event_id)
    ).all()
    return dict(rows)


def update_event(
    session: Session, *, actor: User, campaign_id: int, event_id: int, changes: dict, catalog: Catalog
) -> EventChange:
    """R5.5: an edit that makes the event refuse orders standing at it (a blockade, a points
    limit under a sent warband) undoes them before Battles and is refused after."""
    viewer = gm_viewer(session, actor, campaign_id)
    campaign = viewer.campaign
    event = _event(session, campaign_id, event_id)
    if event.ended_round is not None:
        raise DomainError("event_ended")
    merged = {"scenario": event.scenario, "other_mission": event.other_mission, **changes}
    rules.check_scenario(merged["scenario"], merged["other_mission"], set(catalog.scenarios))
    blockade = changes.get("blockade", event.blockade)
    limit = changes.get("points_limit", event.points_limit)
    refused = [
        (o, why)
        for o in _standing_orders(session, campaign, event)
        if (why := rules.refusal_of(blockade=bool(blockade), points_limit=limit, order_points=o.points))
    ]
    rules.check_undo_phase(campaign.phase, len(refused))
    before = audit.snapshot(event, FIELDS)
    for key in FIELDS:
        if key in changes:
            setattr(event, key, changes[key].strip() if key == "title" else changes[key])
    session.add(event)
    if (after := audit.snapshot(event, FIELDS)) != before:
        audit.record(session, campaign, actor, "event_edited", f"event:{event.id}", before=before, after=after)
    for order, why in refused:
        undo_order(
            session, campaign=campaign, order=order, actor_user_id=actor.id, reason=why, event_title=event.title, limit=limit
        )
    return EventChange(event, [o for o, _why in refused])


# Another domain undoes what it made for an event that ends before Battles (mission alliances,
# R8.7; a port, wired in app/wiring.py).
EventEnded = Callable[[Session, Campaign, Event], None]
event_ended = Port[EventEnded]("an event ended before Battles")


def end_event(session: Session, *, actor: User, campaign_id: int, event_id: int) -> EventChange:
    """Ending an event before Battles also undoes the orders sent to it, fees returned (R5.5);
    after Battles are announced, an event with orders standing at it is not ended."""
    viewer = gm_viewer(session, actor, campaign_id)
    campaign = viewer.campaign
    event = _event(session, campaign_id, event_id)
    if event.ended_round is not None:
        raise DomainError("event_ended")
    standing = _standing_orders(session, campaign, event)
    rules.check_undo_phase(campaign.phase, len(standing))
    event.ended_round = campaign.round
    session.add(event)
    if campaign.phase in rules.UNDO_PHASES:
        for order in standing:
            undo_order(session, campaign=campaign, order=order, actor_user_id=actor.id, reason="ended", event_title=event.title)
        for hook in event_ended():
            hook(session, campaign, event)
    chronicle.record(session, viewer.campaign, "event_ended", title=event.title)
    audit.record(
        session, campaign, actor, "event_ended", f"event:{event.id}", after={"title": event.title, "round": campaign.round}
    )
    return EventChange(event, standing)


_LIBRARY = (
    select(Event)
    .where(Event.campaign_id == bindparam("campaign_id"), col(Event.ended_round).is_not(None))
    .order_by(col(Event.id).desc())
)


def library(session: Session, viewer: Viewer) -> list[Event]:
    """R12.13: the events the GM may run again, newest first — every event that is over
    (ended or expired), and those a campaign copy brought along (kept ended before round 1)."""
    require_gm(viewer)
    return list(session.exec(_LIBRARY, params={"campaign_id": viewer.campaign.id}).all())


def reuse_event(session: Session, *, actor: User, campaign_id: int, event_id: int, catalog: Catalog) -> Event:
    """R12.13: an event of the library runs again from this round, as a new event with its
    place, texts, scenario, limits and clock; the old one stays in the log as it was."""
    viewer = gm_viewer(session, actor, campaign_id)
    old = _event(session, campaign_id, event_id)
    if old.ended_round is None:
        raise DomainError("event_not_in_library")
    data = {"place_id": old.place_id, **{key: getattr(old, key) for key in FIELDS}}
    return _add_event(session, viewer, data, catalog, clock=old.clock)


def expire_events(session: Session, *, campaign: Campaign, next_round: int) -> list[Event]:
    """Ends the events whose last round is over; End round (R2.3) calls this."""
    ended = []
    for event in session.exec(select(Event).where(Event.campaign_id == campaign.id, Event.ended_round.is_(None))).all():
        if rules.expired(event.round_added, event.duration, event.ended_round, next_round):
            event.ended_round = rules.last_round(event.round_added, event.duration)
            session.add(event)
            ended.append(event)
    return ended


def events_by_place(session: Session, campaign: Campaign) -> dict[int, list[Event]]:
    result: dict[int, list[Event]] = {}
    for event in active_events(session, campaign):
        result.setdefault(event.place_id, []).append(event)
    return result


def guard_place_delete(session: Session, campaign: Campaign, places: dict) -> None:
    """A place with an active event is not removed under it (the GM ends the event first)."""
    for event in active_events(session, campaign):
        if event.place_id in places:
            raise DomainError("place_has_event", place=places[event.place_id].name, title=event.title)

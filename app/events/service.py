"""Event use cases (R5.1, R5.4, R5.5): only the GM creates, edits and ends events."""
from __future__ import annotations

from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.catalog.catalog import Catalog
from app.chronicle import service as chronicle
from app.core.errors import N_, DomainError
from app.events import rules
from app.events.models import Event
from app.gold import service as gold
from app.maps import service as maps
from app.maps.models import Place
from app.visibility import campaign_row, gm_viewer
from app.warbands.models import Order

FIELDS = ("title", "text", "duration", "scenario", "other_mission", "roles", "blockade", "points_limit", "reward", "notes")


def active_events(session: Session, campaign: Campaign) -> list[Event]:
    """Events active in the campaign's current round, oldest first."""
    rows = session.exec(
        select(Event).where(Event.campaign_id == campaign.id, Event.ended_round.is_(None), Event.round_added <= campaign.round)
        .order_by(Event.id)
    ).all()
    return [e for e in rows if rules.is_active(e.round_added, e.duration, e.ended_round, campaign.round)]


def is_active(event: Event, campaign: Campaign) -> bool:
    return rules.is_active(event.round_added, event.duration, event.ended_round, campaign.round)


def _event(session: Session, campaign_id: int, event_id: int) -> Event:
    return campaign_row(session, Event, event_id, campaign_id)


def create_event(session: Session, *, actor: User, campaign_id: int, data: dict, catalog: Catalog) -> Event:
    viewer = gm_viewer(session, actor, campaign_id)
    place = campaign_row(session, Place, data["place_id"], campaign_id)
    rules.check_scenario(data.get("scenario"), data.get("other_mission"), set(catalog.scenarios))
    # Before round 1 an event counts from round 1.
    event = Event(campaign_id=campaign_id, place_id=place.id, round_added=max(viewer.campaign.round, 1),
                  **{k: v for k, v in data.items() if k in FIELDS})
    event.title = event.title.strip()
    session.add(event)
    session.flush()
    chronicle.record(session, viewer.campaign, "event_added", title=event.title, place=place.name)
    return event


def update_event(session: Session, *, actor: User, campaign_id: int, event_id: int, changes: dict, catalog: Catalog) -> Event:
    gm_viewer(session, actor, campaign_id)
    event = _event(session, campaign_id, event_id)
    if event.ended_round is not None:
        raise DomainError("event_ended")
    merged = {"scenario": event.scenario, "other_mission": event.other_mission, **changes}
    rules.check_scenario(merged["scenario"], merged["other_mission"], set(catalog.scenarios))
    for key in FIELDS:
        if key in changes:
            setattr(event, key, changes[key].strip() if key == "title" else changes[key])
    session.add(event)
    return event


# Another domain undoes what it made for an event that ends before Battles (mission alliances,
# R8.7): (session, campaign, event).
END_HOOKS: list = []


def add_end_hook(hook) -> None:
    if hook not in END_HOOKS:
        END_HOOKS.append(hook)


def end_event(session: Session, *, actor: User, campaign_id: int, event_id: int) -> Event:
    """Ending an event before Battles also undoes the orders sent to it, fees returned."""
    viewer = gm_viewer(session, actor, campaign_id)
    campaign = viewer.campaign
    event = _event(session, campaign_id, event_id)
    if event.ended_round is not None:
        raise DomainError("event_ended")
    event.ended_round = campaign.round
    session.add(event)
    if campaign.phase in ("preparation", "orders"):
        for order in session.exec(select(Order).where(Order.event_id == event.id, Order.round == campaign.round)).all():
            if order.fee:
                gold.credit(session, campaign=campaign, player_id=order.player_id, amount=order.fee,
                            kind="mercenary_fee", note=N_("Refund · %(event)s"), params={"event": event.title})
            session.delete(order)
        for hook in END_HOOKS:
            hook(session, campaign, event)
    chronicle.record(session, viewer.campaign, "event_ended", title=event.title)
    return event


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


def _guard_place_delete(session: Session, campaign: Campaign, places: dict) -> None:
    """A place with an active event is not removed under it (the GM ends the event first)."""
    for event in active_events(session, campaign):
        if event.place_id in places:
            raise DomainError("place_has_event", place=places[event.place_id].name, title=event.title)


maps.add_delete_guard(_guard_place_delete)

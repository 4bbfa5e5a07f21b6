"""Orders (R4.4-R4.7, R9.7, R9.8): where a player may send a warband, sending it, the GM's
undo, and a round's orders as each viewer may see them."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from app.accounts.models import User
from app.audit import service as audit
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.catalog.catalog import Catalog
from app.companies import service as companies
from app.core.errors import N_, DomainError
from app.core.rows import row_by_id
from app.events import service as events
from app.events.models import Event
from app.gold import rules as gold_rules
from app.gold import service as gold
from app.maps import rules as map_rules
from app.maps import service as maps
from app.maps.models import Place
from app.movement import service as movement
from app.visibility import Viewer, acting_player, orders_public, require_writable, viewer_for, visible_orders
from app.warbands import reads, rules
from app.warbands.models import Order, Warband
from app.warbands.service import (
    current_orders,
    evaluate,
    faction_alignment,
    members_of,
    mercenary_of,
    order_of,
    owned_warband,
    problem_details,
    warband_limit,
)
from app.warbands.undo import undo_order


@dataclass(frozen=True)
class Sent:
    """What sending a warband did (issue 31: services answer what happened, the edges put it into
    words): the order, the warband's name, where it went (the place's label, and the event's
    title when it went to one) and the mercenary fee paid (R4.4)."""

    order: Order
    warband: str
    place: str
    event: str | None = None
    fee: int = 0

    @property
    def destination(self) -> str:
        """'Siege of the Tower · City › Docks', or the place's label alone."""
        return f"{self.event} · {self.place}" if self.event else self.place


def destinations(session: Session, campaign: Campaign, player_id: int) -> set[int] | None:
    """With the paths module, the places a player may send to (None: anywhere)."""
    if not campaign.modules.get(maps.PATHS_MODULE):
        return None
    own = set(session.exec(select(Place.id).where(Place.campaign_id == campaign.id, Place.owner_player_id == player_id)).all())
    if not own:
        return None
    return map_rules.reachable(own, maps.path_graph(session, campaign.id))


def send(
    session: Session,
    *,
    actor: User,
    campaign_id: int,
    warband_id: int,
    catalog: Catalog,
    event_id: int | None = None,
    place_id: int | None = None,
) -> Sent:
    """R4.5-R4.7, R9.7, R9.8: a warband goes to an event or a place this round; its mercenary's
    fee is paid now."""
    viewer = acting_player(session, actor, campaign_id, lock_player=True)
    campaign = viewer.campaign
    warband = owned_warband(session, viewer, warband_id)
    if campaign.status != "running" or campaign.phase != "orders":
        raise DomainError("orders_closed")
    if viewer.player.id in campaigns.away_now(session, campaign):
        raise DomainError("player_away")  # R12.11: their warbands stay home and defend
    if (event_id is None) == (place_id is None):
        raise DomainError("order_destination")
    if order_of(session, campaign, warband.id):
        raise DomainError("order_exists", warband=warband.name)
    event, place = _destination(session, campaign, viewer.player.id, event_id, place_id)
    _require_move(session, campaign, viewer.player.id, warband, place)
    members = _fit_members(session, warband)
    mercenary = mercenary_of(warband)
    total = _points_within(session, campaign, viewer.player.id, catalog, warband, members, mercenary, event)
    fee = gold_rules.price(mercenary.points, campaign.gold_per_point) if mercenary else 0
    order = Order(
        campaign_id=campaign.id,
        warband_id=warband.id,
        player_id=viewer.player.id,
        round=campaign.round,
        event_id=event.id if event else None,
        place_id=place.id,
        fee=fee,
        points=total,
        from_place_id=warband.location_place_id,
    )
    session.add(order)
    session.flush()
    if fee:
        gold.pay(
            session,
            campaign=campaign,
            player_id=viewer.player.id,
            amount=fee,
            kind="mercenary_fee",
            note=N_("%(mercenary)s · %(warband)s"),
            params={"mercenary": mercenary.name, "warband": warband.name},
        )
    label = maps.labels(session, campaign.id).get(place.id, "")
    return Sent(order, warband.name, label, event.title if event else None, fee)


def _destination(
    session: Session, campaign: Campaign, player_id: int, event_id: int | None, place_id: int | None
) -> tuple[Event | None, Place]:
    """The order's event (active, not blockaded) and place, one order per event and per place
    without events for each player."""
    mine = current_orders(session, campaign, player_id)
    event = None
    if event_id is not None:
        event = row_by_id(session, Event, event_id)
        if event is None or event.campaign_id != campaign.id:
            raise DomainError("not_found")
        if not events.is_active(event, campaign):
            raise DomainError("order_event_inactive", title=event.title)
        if event.blockade:
            raise DomainError("order_blockade", title=event.title)
        if any(o.event_id == event.id for o in mine):
            raise DomainError("order_event_taken", title=event.title)
        place = row_by_id(session, Place, event.place_id)
    else:
        place = row_by_id(session, Place, place_id)
        if place is None or place.campaign_id != campaign.id:
            raise DomainError("not_found")
        if events.events_by_place(session, campaign).get(place.id):
            raise DomainError("order_place_has_events", place=place.name)
        if any(o.event_id is None and o.place_id == place.id for o in mine):
            raise DomainError("order_place_taken", place=place.name)
    return event, place


def _require_move(session: Session, campaign: Campaign, player_id: int, warband: Warband, place: Place) -> None:
    moves = movement.allowed_places(session, campaign, warband)
    if moves is not None:
        # R9.8: with movement, a warband sets out from where it stands (one path step with paths).
        if warband.location_place_id is None:
            raise DomainError("warband_scattered", warband=warband.name)
        if place.id not in moves:
            raise DomainError("order_not_a_move", warband=warband.name, place=place.name)
    else:
        reachable = destinations(session, campaign, player_id)
        if reachable is not None and place.id not in reachable:
            raise DomainError("order_unreachable", place=place.name)


def _fit_members(session: Session, warband: Warband) -> list[rules.Member]:
    """R4.7: every model of a sent warband must be able to fight."""
    links = list(session.exec(reads.MEMBER_IDS, params={"warband_id": warband.id}).all())
    members = list(members_of(session, links).values())
    unfit = rules.unavailable(members)
    if unfit:
        raise DomainError(
            "order_model_unavailable",
            warband=warband.name,
            unfit=rules.Unfit(tuple((m.name, m.status) for m in unfit)),
            details=[{"code": rules.unfit_code(m.status), "model": m.name, "model_id": m.model_id} for m in unfit],
        )
    return members


def _points_within(
    session: Session,
    campaign: Campaign,
    player_id: int,
    catalog: Catalog,
    warband: Warband,
    members: list[rules.Member],
    mercenary: rules.Mercenary | None,
    event: Event | None,
) -> int:
    """The warband's points, within the warband rules and an event's lower points limit (V4-V8)."""
    alignment = faction_alignment(catalog, companies.company_of(session, player_id))
    base = warband_limit(session, campaign, player_id)
    limit = rules.effective_limit(base, event.points_limit if event else None)
    total, found = evaluate(members, mercenary, alignment, limit)
    if event is not None and limit < base and total > limit:
        raise DomainError("order_points_limit", title=event.title, limit=limit, warband=warband.name, points=total)
    if found:
        raise DomainError("warband_invalid", details=problem_details(found))
    return total


def cancel(session: Session, *, actor: User, campaign_id: int, warband_id: int) -> Order:
    """R4.6: a sent warband is final for its owner („Pomyłkę cofa prowadzący”); the GM undoes
    any order before Battles, and the mercenary fee comes back (R4.4)."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    campaign = viewer.campaign
    warband = row_by_id(session, Warband, warband_id)
    if (
        warband is None
        or warband.campaign_id != campaign.id
        or not (viewer.is_gm or (viewer.player and viewer.player.id == warband.player_id))
    ):
        raise DomainError("not_found")
    order = order_of(session, campaign, warband.id)
    if order is None:
        raise DomainError("order_none", warband=warband.name)
    if not viewer.is_gm:
        raise DomainError("order_final", warband=warband.name)
    if campaign.status != "running" or campaign.phase not in ("preparation", "orders"):
        raise DomainError("order_undo_phase")
    undo_order(session, campaign=campaign, order=order, actor_user_id=actor.id, reason="gm")
    audit.record(
        session,
        campaign,
        actor,
        "order_undone",
        f"warband:{warband.id}",
        before={"place_id": order.place_id, "event_id": order.event_id},
    )
    return order


@dataclass
class OrdersSeen:
    viewer: Viewer
    orders: list[Order]
    public: bool


def orders_seen(session: Session, *, actor: User, campaign_id: int, round_: int | None = None) -> OrdersSeen:
    """A round's orders as this actor may see them (R4.7, R11.2): `visibility.visible_orders`."""
    return orders_seen_by(session, viewer_for(session, actor, campaign_id), round_)


def orders_seen_by(session: Session, viewer: Viewer, round_: int | None = None, *, rows: bool = False) -> OrdersSeen:
    """`orders_seen` for a viewer already seated: a page's, read with its login (issue 37);
    `rows`: as `visible_orders`."""
    shown = viewer.campaign.round if round_ is None else round_
    return OrdersSeen(viewer, visible_orders(session, viewer, shown, rows=rows), orders_public(viewer.campaign, shown))


def not_sent_yet(viewer: Viewer, orders: list[Order], nicknames: dict[int, str], away: set[int] = frozenset()) -> list[str]:
    """The GM's view of Orders: who has sent nothing yet this round — names only, never what
    the others sent (R11.2); nobody waits for a player away this round (R12.11). Nobody else is told."""
    if not viewer.is_gm or viewer.campaign.status != "running" or viewer.campaign.phase not in ("preparation", "orders"):
        return []
    sent = {o.player_id for o in orders} | set(away)
    return sorted((name for pid, name in nicknames.items() if pid not in sent), key=str.lower)

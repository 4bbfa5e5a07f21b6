"""Warband movement (R9.8, module `movement`, off by default): where warbands stand, where they
may go, who defends a place, and where everybody stands after End round. With the module off
every function here answers "no change", so a campaign without it behaves as before."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import bindparam
from sqlmodel import Session, select

from app.accounts.models import User
from app.battles.models import Arrival, Battle, BattleWarband
from app.campaigns.models import Campaign
from app.chronicle import service as chronicle
from app.core.errors import DomainError
from app.core.rows import row_by_id
from app.maps import service as maps
from app.maps.models import Hideout, Place
from app.movement import rules
from app.visibility import campaign_row, gm_viewer
from app.warbands.models import Order, Warband, WarbandMember

MODULE = "movement"
# Read on every order sent and every warband built or changed while the module is on: built once
# (issue 37: a statement built costs a write about 80 µs).
_HIDEOUTS_OF = select(Hideout.place_id).where(Hideout.player_id == bindparam("player_id")).order_by(Hideout.place_id)
_PLACES_OF = select(Place.id).where(Place.campaign_id == bindparam("campaign_id"))


def on(campaign: Campaign) -> bool:
    return bool((campaign.modules or {}).get(MODULE))


def hideouts_of(session: Session, player_id: int) -> list[int]:
    return list(session.exec(_HIDEOUTS_OF, params={"player_id": player_id}).all())


def gathering_place(session: Session, campaign: Campaign, player_id: int, chosen: int | None) -> int | None:
    """A new warband gathers in a hideout of its player: the one they pick, or their first."""
    if not on(campaign):
        return None
    hideouts = hideouts_of(session, player_id)
    if chosen is not None:
        if chosen not in hideouts:
            raise DomainError("warband_gather_hideout")
        return chosen
    return hideouts[0] if hideouts else None


def require_in_hideout(session: Session, campaign: Campaign, warband: Warband) -> None:
    """R9.8: a warband's roster changes only in a hideout of its player."""
    if on(campaign) and warband.location_place_id not in hideouts_of(session, warband.player_id):
        place = row_by_id(session, Place, warband.location_place_id) if warband.location_place_id else None
        raise DomainError("warband_away", warband=warband.name, place=place.name if place else "—")


def allowed_places(session: Session, campaign: Campaign, warband: Warband) -> set[int] | None:
    """Where this warband may be sent (R9.8, R9.7): one path step from where it stands in the
    path's direction, or anywhere without paths. None: the module is off (the usual rules)."""
    if not on(campaign):
        return None
    paths_on = bool(campaign.modules.get(maps.PATHS_MODULE))
    everywhere = set(session.exec(_PLACES_OF, params={"campaign_id": campaign.id}).all())
    graph = maps.path_graph(session, campaign.id) if paths_on else {}
    return rules.moves(warband.location_place_id, paths_on, graph, everywhere)


def defenders(session: Session, campaign: Campaign, orders: list[Order]) -> dict[int, list[Warband]]:
    """R9.8: warbands without an order this round defend the place where they stand, by place."""
    if not on(campaign):
        return {}
    sent = {o.warband_id for o in orders}
    places = {o.place_id for o in orders}
    if not places:
        return {}
    rows = session.exec(
        select(Warband).where(Warband.campaign_id == campaign.id, Warband.location_place_id.in_(places)).order_by(Warband.id)
    ).all()
    result: dict[int, list[Warband]] = defaultdict(list)
    for w in rows:
        if w.id not in sent:
            result[w.location_place_id].append(w)
    return result


@dataclass(frozen=True)
class Move:
    warband_id: int
    how: str  # stay / arrive / return / fall_back / scattered
    place_id: int | None


def end_round(session: Session, campaign: Campaign) -> list[Move]:
    """End round (R9.8), after the captures: a warband stays where it got to; a lost or drawn
    attack goes back where it came from; a defender beaten at its own place falls back to the
    nearest hideout of its player; with no hideout left it is scattered and the GM places it."""
    if not on(campaign):
        return []
    warbands = list(session.exec(select(Warband).where(Warband.campaign_id == campaign.id).order_by(Warband.id)).all())
    if not warbands:
        return []
    orders = {
        o.warband_id: o
        for o in session.exec(select(Order).where(Order.campaign_id == campaign.id, Order.round == campaign.round)).all()
    }
    fought = {}
    for bw, battle in session.exec(
        select(BattleWarband, Battle)
        .join(Battle, Battle.id == BattleWarband.battle_id)
        .where(Battle.campaign_id == campaign.id, Battle.round == campaign.round)
    ).all():
        winners = set(battle.winners or [])
        fought[bw.warband_id] = rules.DRAWN if not winners else (rules.WON if bw.player_id in winners else rules.LOST)
    for a in session.exec(select(Arrival).where(Arrival.campaign_id == campaign.id, Arrival.round == campaign.round)).all():
        fought.setdefault(a.warband_id, rules.WON if a.kind == "unopposed" else rules.LEFT_OUT)
    paths_on = bool(campaign.modules.get(maps.PATHS_MODULE))
    graph = maps.path_graph(session, campaign.id) if paths_on else {}
    place_rows = session.exec(select(Place.id, Place.parent_id, Place.x, Place.y).where(Place.campaign_id == campaign.id)).all()
    parents = {pid: parent for pid, parent, _x, _y in place_rows}
    points = {pid: (x, y) for pid, _parent, x, y in place_rows}
    hideouts: dict[int, set[int]] = defaultdict(set)
    for player_id, place_id in session.exec(
        select(Hideout.player_id, Hideout.place_id).where(Hideout.campaign_id == campaign.id)
    ).all():
        hideouts[player_id].add(place_id)
    names = dict(session.exec(select(Place.id, Place.name).where(Place.campaign_id == campaign.id)).all())
    moves = []
    for w in warbands:
        order = orders.get(w.id)
        origin = order.from_place_id if order else w.location_place_id
        if order is None and origin is None:
            continue  # already scattered: it waits for the GM
        outcome = rules.Outcome(origin, order.place_id if order else None, fought.get(w.id, rules.STAYED))
        how, where = rules.after_round(outcome)
        if how == "fall_back":
            where = rules.nearest_hideout(
                origin, hideouts[w.player_id], paths_on=paths_on, graph=graph, parents=parents, points=points
            )
            if where is None:
                how = "scattered"
                chronicle.record(session, campaign, "warband_scattered", warband=w.name, place=names.get(origin, ""))
        if where != w.location_place_id:
            w.location_place_id = where
            session.add(w)
        moves.append(Move(w.id, how, where))
    return moves


def place_warband(session: Session, *, actor: User, campaign_id: int, warband_id: int, place_id: int) -> Warband:
    """The GM places a scattered warband (or corrects a position) — R9.8."""
    viewer = gm_viewer(session, actor, campaign_id)
    maps.require_module(viewer.campaign, MODULE)
    warband = campaign_row(session, Warband, warband_id, campaign_id)
    place = campaign_row(session, Place, place_id, campaign_id)
    warband.location_place_id = place.id
    session.add(warband)
    # A warband already sent this round sets out from where the GM put it (a lost attack
    # goes back there, R9.8).
    for order in session.exec(select(Order).where(Order.warband_id == warband.id, Order.round == viewer.campaign.round)).all():
        order.from_place_id = place.id
        session.add(order)
    return warband


@dataclass(frozen=True)
class Position:
    warband_id: int
    name: str
    player_id: int
    place_id: int | None


def positions(session: Session, campaign: Campaign) -> list[Position]:
    """Every warband's position: public on the map (R9.8); orders stay secret. One statement."""
    if not on(campaign):
        return []
    rows = session.exec(
        select(Warband.id, Warband.name, Warband.player_id, Warband.location_place_id)
        .where(Warband.campaign_id == campaign.id)
        .order_by(Warband.id)
    ).all()
    return [Position(*row) for row in rows]


def away_models(session: Session, campaign: Campaign, player_id: int) -> dict[int, str]:
    """Models in this player's warbands that stand away from a hideout (their items stay put)."""
    if not on(campaign):
        return {}
    hideouts = set(hideouts_of(session, player_id))
    rows = session.exec(
        select(WarbandMember.model_id, Warband.name, Warband.location_place_id)
        .join(Warband, Warband.id == WarbandMember.warband_id)
        .where(Warband.player_id == player_id)
    ).all()
    return {model_id: name for model_id, name, place_id in rows if place_id not in hideouts}


def guard_place_delete(session: Session, campaign: Campaign, places: dict) -> None:
    """A warband standing at a place would be scattered by its removal: the GM moves it first."""
    standing = session.exec(
        select(Warband.name, Warband.location_place_id).where(
            Warband.campaign_id == campaign.id, Warband.location_place_id.in_(list(places))
        )
    ).first()
    if standing is not None:
        raise DomainError("place_has_warbands", place=places[standing[1]].name, warband=standing[0])

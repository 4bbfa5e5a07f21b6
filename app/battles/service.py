"""Announcing battles when Battles begins, and their results (R6.1-R6.8, R5.2, R5.3, V9, V10)."""
from __future__ import annotations

import gc
import random
import secrets
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import func, insert
from sqlalchemy.orm import defer
from sqlmodel import Session, select

from app.accounts.models import User
from app.battles import rules
from app.battles.models import Arrival, Battle, BattleConfirmation, BattleWarband
from app.campaigns.models import Campaign, Player
from app.catalog.catalog import Catalog
from app.chronicle import service as chronicle
from app.companies.models import CompanyItem, CompanyModel
from app.core.db import utcnow
from app.core.errors import DomainError
from app.events.models import Event
from app.live import service as live
from app.maps import service as maps
from app.maps.models import Place
from app.visibility import Viewer, require_gm, require_writable, viewer_for
from app.warbands.models import Order, Warband, WarbandMember
from app.warbands import rules as warband_rules, service as warband_service
from app.movement import service as movement
from app.core.pagination import Page, paginate

BEACON = "light-the-beacon"
# Participants report, confirm and dispute in Battles; the GM resolves or corrects in Battles
# and Settlement; from Twilight on results are closed (R6.8, R7.2).
PLAYER_RESULT_PHASES = ("battles",)
# A battle's result is final once confirmed by the others or resolved by the GM.
DECIDED_RESULTS = ("confirmed", "resolved")
GM_RESULT_PHASES = ("battles", "settlement")


# Guilds and mission alliances plug in here when they exist: each source, given the session
# and the campaign, answers which groups a player belongs to at an event (None: a place
# without events). The battle plan (who stands together, R6.2) and Twilight (who takes a
# place won by allies, R7.3, R8.10) both read it, so they always agree.
GroupsOf = Callable[[int, int | None], list[rules.Group]]
GROUP_SOURCES: list[Callable[[Session, Campaign], GroupsOf]] = []


def add_group_source(source: Callable[[Session, Campaign], GroupsOf]) -> None:
    if source not in GROUP_SOURCES:
        GROUP_SOURCES.append(source)


def groups(session: Session, campaign: Campaign) -> GroupsOf:
    found = [source(session, campaign) for source in GROUP_SOURCES]
    return lambda player_id, event_id: [g for of in found for g in of(player_id, event_id)]


def alliances(session: Session, campaign: Campaign, event_id: int | None) -> Callable[[int, int], bool]:
    """Who stands with whom at a destination (R6.2): players sharing a guild, or a mission
    alliance for this event. Until guilds and alliances exist every player stands alone."""
    if not GROUP_SOURCES:
        return lambda a, b: False
    of = groups(session, campaign)
    return lambda a, b: bool(set(of(a, event_id)) & set(of(b, event_id)))


def _rosters(session: Session, warbands) -> dict[int, list[dict]]:
    """Each warband's models with their items, in two statements of the columns shown.
    `warbands` is a list of ids, or a select of them (issue 17: a round's thousands of
    warbands are named by the orders that send them, not by a list of every id)."""
    members = (select(WarbandMember.warband_id, CompanyModel.id, CompanyModel.name, CompanyModel.types, CompanyModel.points,
                      CompanyModel.stats).join(CompanyModel, CompanyModel.id == WarbandMember.model_id)
               .where(WarbandMember.warband_id.in_(warbands)).order_by(WarbandMember.warband_id, CompanyModel.id))
    items: dict[int, list[str]] = defaultdict(list)
    for model_id, name in session.exec(select(CompanyItem.model_id, CompanyItem.name)
                                       .join(WarbandMember, WarbandMember.model_id == CompanyItem.model_id)
                                       .where(WarbandMember.warband_id.in_(warbands)).order_by(CompanyItem.id)).all():
        items[model_id].append(name)
    rosters: dict[int, list[dict]] = defaultdict(list)
    for warband_id, model_id, name, types, points, stats in session.exec(members).all():
        rosters[warband_id].append({"model_id": model_id, "name": name, "types": types, "points": points, "stats": stats,
                                    "items": items[model_id]})
    return rosters


def _mercenary_entry(warband: Warband, catalog: Catalog) -> dict:
    """Manual ch. 6 („Składy są jawne od razu”): the hired mercenary is on the public roster
    with its points and profile, as it was hired."""
    data = catalog.mercenaries.get(warband.mercenary_key)
    return {"model_id": None, "mercenary": True, "key": warband.mercenary_key, "name": warband.mercenary_name or "",
            "types": list(warband.mercenary_types), "points": warband.mercenary_points,
            "stats": dict(data.stats) if data else {}, "items": []}


def announce(session: Session, *, campaign: Campaign, catalog: Catalog, master_seed: int | None = None) -> int:
    """R6.1-R6.7: the round's orders become battles, each destination split by its own
    stored seed. Runs once, inside the phase change to Battles; returns how many.

    The cyclic garbage collector waits meanwhile (issue 17): announcing makes hundreds of
    thousands of short-lived rows and dicts, and in a server with a large heap each of the
    collections they trigger walks all of it — the time grew faster than the round."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        return _announce(session, campaign, catalog, master_seed)
    finally:
        if was_on:
            gc.enable()


def _announce(session: Session, campaign: Campaign, catalog: Catalog, master_seed: int | None) -> int:
    # Light rows of the columns used (issue 17: thousands of orders and warbands).
    orders = list(session.exec(select(Order.warband_id, Order.player_id, Order.place_id, Order.event_id, Order.points)
                               .where(Order.campaign_id == campaign.id, Order.round == campaign.round)).all())
    master = random.Random(secrets.randbits(63) if master_seed is None else master_seed)
    destinations: dict[tuple, list[Order]] = defaultdict(list)
    for order in orders:
        destinations[("event", order.event_id) if order.event_id else ("place", order.place_id)].append(order)
    events = {e.id: e for e in session.exec(select(Event).where(Event.campaign_id == campaign.id)).all()}
    places = {p.id: p for p in session.exec(select(Place).where(Place.campaign_id == campaign.id)).all()}
    warbands = {w.id: w for w in session.exec(
        select(Warband.id, Warband.name, Warband.player_id, Warband.mercenary_key, Warband.mercenary_name, Warband.mercenary_types,
               Warband.mercenary_points).join(Order, Order.warband_id == Warband.id)
        .where(Order.campaign_id == campaign.id, Order.round == campaign.round)).all()}
    # R9.8: a defender fights with its roster of this moment — the models able to fight
    # (R4.7) — without a mercenary; one with nobody able to fight does not defend.
    defending = _defenders(session, campaign, orders, destinations)
    defender_points = _points(session, [w.id for w, _key in defending])
    defending = [(w, key) for w, key in defending if w.id in defender_points]
    rosters = _rosters(session, select(Order.warband_id).where(Order.campaign_id == campaign.id, Order.round == campaign.round))
    if defending:
        rosters.update(_rosters(session, [w.id for w, _key in defending]))
    for w in warbands.values():
        if w.mercenary_key:
            rosters[w.id].append(_mercenary_entry(w, catalog))
    for w, _key in defending:
        warbands[w.id] = w
        rosters[w.id] = [entry for entry in rosters[w.id] if entry["model_id"] in defender_points[w.id][1]]
    cap = rules.capacity(bool(campaign.modules.get("multi_band_battles")), campaign.modules.get("battle_size_limit"))
    scenarios = {s.key: (s.min_warbands, s.max_warbands, s.roles == "attacker_defender") for s in catalog.scenarios.values()}
    announced: list[tuple[dict, list[dict], tuple[str, dict]]] = []
    arrivals_out: list[dict] = []
    for key in sorted(destinations, key=lambda k: (k[0], k[1])):
        group = destinations[key]
        seed = master.getrandbits(31)
        event = events.get(group[0].event_id) if group[0].event_id else None
        place = places[group[0].place_id]
        arrivals = [rules.Arrival(o.warband_id, o.player_id, o.points) for o in group]
        allied = alliances(session, campaign, event.id if event else None)
        # Defenders join where warbands from outside their alliance arrive (_defenders, R9.8).
        arrivals += [rules.Arrival(w.id, w.player_id, defender_points[w.id][0]) for w, at in defending if at == key]
        plan = rules.plan_destination(arrivals, allied, cap, seed)
        for kind, rows in (("unopposed", plan.unopposed), ("left_out", plan.left_out)):
            arrivals_out += [{"campaign_id": campaign.id, "round": campaign.round, "place_id": place.id, "event_id": event.id if event else None,
                              "warband_id": a.warband_id, "player_id": a.player_id, "kind": kind, "seed": seed} for a in rows]
        for index, sides in enumerate(plan.battles):
            announced.append(_battle(campaign, place, event, seed, index, sides, warbands, rosters, scenarios))
    return _write(session, campaign, announced, arrivals_out)


def _write(session: Session, campaign: Campaign, announced: list, arrivals_out: list[dict]) -> int:
    """Plain rows in a few executemany statements (issue 17: building ORM objects, and the ORM
    inserting battles one by one to learn their ids, cost more than planning). The battles'
    ids are read back in insertion order: announcing runs once per round, under the campaign's
    lock, so the round's battles after the largest id before are exactly these."""
    if arrivals_out:
        session.execute(insert(Arrival), arrivals_out)
    if not announced:
        return 0
    before = session.exec(select(func.max(Battle.id))).one() or 0
    session.execute(insert(Battle), [b for b, _rows, _entry in announced])
    ids = list(session.exec(select(Battle.id).where(Battle.campaign_id == campaign.id, Battle.round == campaign.round,
                                                      Battle.id > before).order_by(Battle.id)).all())
    assert len(ids) == len(announced), (len(ids), len(announced))
    session.execute(insert(BattleWarband), [{**row, "battle_id": battle_id} for battle_id, (_b, rows, _e) in zip(ids, announced)
                                            for row in rows])
    chronicle.record_many(session, campaign, [entry for _b, _rows, entry in announced])
    return len(ids)


def _defenders(session: Session, campaign: Campaign, orders: list[Order], destinations: dict) -> list[tuple[Warband, tuple]]:
    """Warbands without an order that stand where others from outside their alliance arrive
    (the movement module, R9.8), each with the destination it defends: of the destinations at
    its place (an event's, or the place's own) that such warbands come to, the one with the
    most arrivals, ties to the first. Its own player's or its allies' arrivals alone make no
    battle, so a destination of only those is never the one it defends."""
    found = movement.defenders(session, campaign, orders)
    if not found:
        return []
    allied_at: dict[int | None, Callable[[int, int], bool]] = {}

    def hostile(key: tuple, warband: Warband) -> bool:
        group = destinations[key]
        event_id = group[0].event_id
        if event_id not in allied_at:
            allied_at[event_id] = alliances(session, campaign, event_id)
        allied = allied_at[event_id]
        return any(o.player_id != warband.player_id and not allied(o.player_id, warband.player_id) for o in group)

    result = []
    for place_id, standing in found.items():
        here = sorted((k for k, group in destinations.items() if group[0].place_id == place_id),
                      key=lambda k: (-len(destinations[k]), k))
        for w in standing:
            facing = [k for k in here if hostile(k, w)]
            if facing:
                result.append((w, facing[0]))
    return result


def _points(session: Session, warband_ids: list[int]) -> dict[int, tuple[int, set[int]]]:
    """Each defender's points and the models that fight: those able to (not dead, captured or
    resting, R4.7) with their items, without a mercenary. A warband with none is left out."""
    if not warband_ids:
        return {}
    links = session.exec(select(WarbandMember.warband_id, WarbandMember.model_id).where(WarbandMember.warband_id.in_(warband_ids))).all()
    members = warband_service.members_of(session, [m for _w, m in links])
    unable = {m.model_id for m in warband_rules.unavailable(list(members.values()))}
    totals: dict[int, int] = defaultdict(int)
    ready: dict[int, set[int]] = defaultdict(set)
    for warband_id, model_id in links:
        if model_id in members and model_id not in unable:
            totals[warband_id] += warband_rules.points([members[model_id]], None)
            ready[warband_id].add(model_id)
    return {w: (totals[w], ready[w]) for w in ready}


def _battle(campaign, place, event, seed, index, sides, warbands, rosters, scenarios) -> tuple[dict, list[dict], tuple[str, dict]]:
    """One battle as plain rows: the battle, its warbands, and its chronicle entry."""
    rng = random.Random(seed * 1000 + index)
    size = sum(len(s) for s in sides)
    choice = rules.choose_scenario(event.scenario if event else None, bool(event and event.other_mission), size, scenarios, rng,
                                   roles_override=event.roles if event else None)
    battle = {"campaign_id": campaign.id, "round": campaign.round, "place_id": place.id, "event_id": event.id if event else None,
              "seed": seed, "scenario": choice.key, "other_mission": event.other_mission if event else None, "roles": choice.roles,
              "notes": (event.notes if event and size > 2 else ""), "status": "announced", "winners": [], "dispute_reason": "",
              "created_at": utcnow()}
    defender = rules.defender_side([{a.player_id for a in side} for side in sides], place.owner_player_id, rng) if choice.roles else None
    flat = [(i, a) for i, side in enumerate(sides) for a in side]
    dog = rules.underdog([a.points for _i, a in flat], campaign.underdog_points_per_die)
    rows = []
    for (side_index, a), d in zip(flat, dog):
        role = None if defender is None else ("defender" if side_index == defender else "attacker")
        rows.append({"side": side_index, "role": role, "warband_id": a.warband_id, "player_id": a.player_id,
                     "name": warbands[a.warband_id].name, "points": a.points, "roster": rosters.get(a.warband_id, []),
                     "underdog_dice": d.dice, "bonus_points": d.bonus_points})
    entry = ("battle_announced_event" if event else "battle_announced",
             {"place": place.name, "title": event.title if event else "",
              "warbands": " vs ".join(" & ".join(warbands[a.warband_id].name for a in side) for side in sides),
              "rosters": [{"name": r["name"], "points": r["points"],
                           "models": [{"name": m["name"], "points": m["points"], "mercenary": bool(m.get("mercenary"))} for m in r["roster"]]}
                          for r in rows]})
    return battle, rows, entry


def beacon_hint(battle: Battle) -> bool:
    """R5.3: in Light the Beacon the defender may add free Grunt and Warrior models."""
    return bool(battle.roles and battle.scenario and battle.scenario.endswith(BEACON))


# --- reading --------------------------------------------------------------------------------


@dataclass
class BattleView:
    battle: Battle
    warbands: list[BattleWarband]
    confirmations: set[int] = field(default_factory=set)

    @property
    def participants(self) -> list[int]:
        return sorted({w.player_id for w in self.warbands})

    def sides(self) -> list[list[BattleWarband]]:
        grouped: dict[int, list[BattleWarband]] = defaultdict(list)
        for w in self.warbands:
            grouped[w.side].append(w)
        return [grouped[k] for k in sorted(grouped)]


def battles_of(session: Session, campaign: Campaign, round_: int | None = None, battle_ids: list[int] | None = None,
               player_id: int | None = None, rosters: bool = True) -> list[BattleView]:
    """Battles of a round with their warbands and confirmations (three statements); with
    `player_id`, only the battles that player fights; `rosters=False` leaves the warbands'
    rosters unread (a to-do list needs who fights, not with what; reading one then raises)."""
    query = select(Battle).where(Battle.campaign_id == campaign.id)
    if player_id is not None:
        query = query.where(Battle.id.in_(select(BattleWarband.battle_id).where(BattleWarband.player_id == player_id)))
    if battle_ids is not None:
        query = query.where(Battle.id.in_(battle_ids))
    else:
        query = query.where(Battle.round == (campaign.round if round_ is None else round_))
    battles = list(session.exec(query.order_by(Battle.id)).all())
    ids = [b.id for b in battles]
    warbands: dict[int, list[BattleWarband]] = defaultdict(list)
    confirmations: dict[int, set[int]] = defaultdict(set)
    if ids:
        query = select(BattleWarband).where(BattleWarband.battle_id.in_(ids)).order_by(BattleWarband.side, BattleWarband.id)
        if not rosters:
            query = query.options(defer(BattleWarband.roster, raiseload=True))
        for w in session.exec(query).all():
            warbands[w.battle_id].append(w)
        for c in session.exec(select(BattleConfirmation).where(BattleConfirmation.battle_id.in_(ids))).all():
            confirmations[c.battle_id].add(c.player_id)
    return [BattleView(b, warbands[b.id], confirmations[b.id]) for b in battles]


def battle_page(session: Session, campaign: Campaign, round_: int | None, *, page: int, per_page: int) -> Page:
    """One page of a round's battles, sliced in the database (public to members, R6.5)."""
    query = select(Battle.id).where(Battle.campaign_id == campaign.id, Battle.round == (campaign.round if round_ is None else round_))
    ids = paginate(session, query.order_by(Battle.id), page=page, per_page=per_page)
    ids.items = battles_of(session, campaign, battle_ids=list(ids.items)) if ids.items else []
    return ids


def battle(session: Session, *, actor: User, campaign_id: int, battle_id: int) -> tuple[Viewer, BattleView]:
    """Battles and their rosters are public to the campaign's members (R6.5)."""
    viewer = viewer_for(session, actor, campaign_id)
    found = battles_of(session, viewer.campaign, battle_ids=[battle_id])
    if not found:
        raise DomainError("not_found")
    return viewer, found[0]


def arrivals_of(session: Session, campaign: Campaign, round_: int | None = None, place_id: int | None = None) -> list[Arrival]:
    """Warbands that did not fight where they went this round: unopposed or left out (R6.2,
    R6.4). Public like the battles (orders are public from Battles on)."""
    query = select(Arrival).where(Arrival.campaign_id == campaign.id, Arrival.round == (campaign.round if round_ is None else round_))
    if place_id is not None:
        query = query.where(Arrival.place_id == place_id)
    return list(session.exec(query.order_by(Arrival.place_id, Arrival.id)).all())


def warband_names(session: Session, arrivals: list[Arrival]) -> dict[int, str]:
    """Names of the arrivals' warbands, in one statement."""
    ids = sorted({a.warband_id for a in arrivals})
    return dict(session.exec(select(Warband.id, Warband.name).where(Warband.id.in_(ids))).all()) if ids else {}


def waiting_for(views: list[BattleView], player_id: int | None, is_gm: bool, phase: str | None = "battles") -> list[tuple[str, BattleView]]:
    """What a viewer should do about the round's battles: report, confirm, or resolve — each
    only while its phase allows it."""
    todo = []
    for v in views:
        status = v.battle.status
        if is_gm and status == "disputed" and phase in GM_RESULT_PHASES:
            todo.append(("resolve", v))
        elif player_id in v.participants and phase in PLAYER_RESULT_PHASES:
            if status == "announced":
                todo.append(("report", v))
            elif status == "reported" and player_id != v.battle.reported_by_player_id and player_id not in v.confirmations:
                todo.append(("confirm", v))
    return todo


# --- results (R6.8) -------------------------------------------------------------------------


def _locked(session: Session, actor: User, campaign_id: int, battle_id: int) -> tuple[Viewer, BattleView]:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    session.exec(select(Battle.id).where(Battle.id == battle_id).with_for_update()).first()
    found = battles_of(session, viewer.campaign, battle_ids=[battle_id])
    if not found:
        raise DomainError("not_found")
    return viewer, found[0]


def _participant(viewer: Viewer, view: BattleView) -> int:
    if viewer.player is None or viewer.player.id not in view.participants:
        raise DomainError("battle_not_participant")
    return viewer.player.id


def _check_winners(view: BattleView, winners: list[int]) -> list[int]:
    winners = sorted(set(winners))
    if any(w not in view.participants for w in winners):
        raise DomainError("battle_winner_unknown")
    if len(view.warbands) == 2 and len(winners) > 1:
        raise DomainError("battle_one_winner")
    if winners and len(winners) == len(view.participants):
        raise DomainError("battle_everyone_won")
    return winners


def _result_phase(campaign: Campaign, phases: tuple[str, ...] = PLAYER_RESULT_PHASES) -> None:
    if campaign.status == "running" and campaign.phase in phases:
        return
    if campaign.status == "running" and campaign.phase in GM_RESULT_PHASES:
        raise DomainError("results_gm_now")
    raise DomainError("results_closed")


def report(session: Session, *, actor: User, campaign_id: int, battle_id: int, winners: list[int]) -> Battle:
    viewer, view = _locked(session, actor, campaign_id, battle_id)
    player_id = _participant(viewer, view)
    _result_phase(viewer.campaign)
    if view.battle.status != "announced":
        raise DomainError("battle_reported_already")
    battle_ = view.battle
    battle_.winners, battle_.status, battle_.reported_by_player_id = _check_winners(view, winners), "reported", player_id
    session.add(battle_)
    _tell(session, actor, battle_)
    return battle_


def confirm(session: Session, *, actor: User, campaign_id: int, battle_id: int) -> Battle:
    viewer, view = _locked(session, actor, campaign_id, battle_id)
    player_id = _participant(viewer, view)
    _result_phase(viewer.campaign)
    battle_ = view.battle
    if battle_.status != "reported":
        raise DomainError("battle_nothing_to_confirm")
    if player_id == battle_.reported_by_player_id or player_id in view.confirmations:
        raise DomainError("battle_confirmed_already")
    session.add(BattleConfirmation(battle_id=battle_.id, player_id=player_id))
    others = set(view.participants) - {battle_.reported_by_player_id}
    if others <= view.confirmations | {player_id}:
        _decide(session, viewer.campaign, battle_, "confirmed")
    _tell(session, actor, battle_)
    return battle_


def dispute(session: Session, *, actor: User, campaign_id: int, battle_id: int, reason: str) -> Battle:
    viewer, view = _locked(session, actor, campaign_id, battle_id)
    _participant(viewer, view)
    _result_phase(viewer.campaign)
    battle_ = view.battle
    if battle_.status not in ("announced", "reported"):
        raise DomainError("battle_decided")
    if not reason.strip():
        raise DomainError("reason_required")
    battle_.status, battle_.dispute_reason = "disputed", reason.strip()[:2000]
    session.add(battle_)
    _tell(session, actor, battle_)
    return battle_


def resolve(session: Session, *, actor: User, campaign_id: int, battle_id: int, winners: list[int]) -> Battle:
    """The GM's word on a dispute, or an entry or correction of any result."""
    viewer, view = _locked(session, actor, campaign_id, battle_id)
    require_gm(viewer)
    _result_phase(viewer.campaign, GM_RESULT_PHASES)
    battle_ = view.battle
    battle_.winners = _check_winners(view, winners)
    _decide(session, viewer.campaign, battle_, "resolved")
    _tell(session, actor, battle_)
    return battle_


def _tell(session: Session, actor: User, battle_: Battle) -> None:
    """R11.4: the other side's phone offers "Confirm" (or shows the dispute, the decision)."""
    live.publish(session, battle_.campaign_id, "result", subject_id=battle_.id, actor_user_id=actor.id, status=battle_.status)


def _decide(session: Session, campaign: Campaign, battle_: Battle, status: str) -> None:
    battle_.status, battle_.decided_at = status, utcnow()
    session.add(battle_)
    names = dict(session.exec(select(Player.id, User.nickname).join(User, User.id == Player.user_id).where(Player.campaign_id == campaign.id)).all())
    place = session.get(Place, battle_.place_id)
    if battle_.winners:
        chronicle.record(session, campaign, "battle_won", place=place.name, winners=", ".join(names.get(w, "?") for w in battle_.winners))
    else:
        chronicle.record(session, campaign, "battle_drawn", place=place.name)


def _guard_place_delete(session: Session, campaign: Campaign, places: dict) -> None:
    """Battles fought there belong to the campaign's history."""
    fought = session.exec(select(Battle.place_id).where(Battle.campaign_id == campaign.id, Battle.place_id.in_(list(places)))).first()
    if fought is None:
        fought = session.exec(select(Arrival.place_id).where(Arrival.campaign_id == campaign.id, Arrival.place_id.in_(list(places)))).first()
    if fought is not None:
        raise DomainError("place_has_battles", place=places[fought].name)


maps.add_delete_guard(_guard_place_delete, first=True)

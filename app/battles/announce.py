"""The battle plan (R6.1-R6.7, R5.2, V9, V10, R9.8): when Battles begins, the round's orders
become battles and arrivals, each destination split by its own stored seed, in a few
executemany statements (issue 17: thousands of orders in one phase change)."""

from __future__ import annotations

import gc
import random
import secrets
from collections import defaultdict
from collections.abc import Callable

from sqlalchemy import func, insert
from sqlmodel import Session, select

from app.battles import rules
from app.battles.models import Arrival, Battle, BattleWarband
from app.campaigns.models import Campaign
from app.catalog.catalog import Catalog
from app.chronicle import service as chronicle
from app.companies import service as companies
from app.companies.models import CompanyItem, CompanyModel
from app.core.db import utcnow
from app.events.models import Event
from app.maps.models import Place
from app.movement import service as movement
from app.warbands import rules as warband_rules
from app.warbands import service as warband_service
from app.warbands.models import Order, Warband, WarbandMember

# Who stands with whom is the caller's data (rounds/steps.py: guilds and mission alliances):
# given a player and an event (None: a place without events), the groups the player belongs
# to there. The battle plan (R6.2) and Twilight (R7.3, R8.10) read the same one, so they agree.
GroupsOf = Callable[[int, int | None], list[rules.Group]]


def alone(player_id: int, event_id: int | None) -> list[rules.Group]:
    """Without guilds or alliances every player stands alone."""
    return []


def allied_at(groups: GroupsOf, event_id: int | None) -> Callable[[int, int], bool]:
    """Who stands with whom at a destination (R6.2): players sharing a group there."""
    return lambda a, b: bool(set(groups(a, event_id)) & set(groups(b, event_id)))


def _rosters(session: Session, warbands) -> dict[int, list[dict]]:
    """Each warband's models with their items, in two statements of the columns shown.
    `warbands` is a list of ids, or a select of them (issue 17: a round's thousands of
    warbands are named by the orders that send them, not by a list of every id)."""
    members = (
        select(
            WarbandMember.warband_id,
            CompanyModel.id,
            CompanyModel.name,
            CompanyModel.types,
            CompanyModel.points,
            CompanyModel.stats,
        )
        .join(CompanyModel, CompanyModel.id == WarbandMember.model_id)
        .where(WarbandMember.warband_id.in_(warbands))
        .order_by(WarbandMember.warband_id, CompanyModel.id)
    )
    items: dict[int, list[str]] = defaultdict(list)
    for model_id, name in session.exec(
        select(CompanyItem.model_id, CompanyItem.name)
        .join(WarbandMember, WarbandMember.model_id == CompanyItem.model_id)
        .where(WarbandMember.warband_id.in_(warbands))
        .order_by(CompanyItem.id)
    ).all():
        items[model_id].append(name)
    rosters: dict[int, list[dict]] = defaultdict(list)
    rows = session.exec(members).all()
    # Issue 29: the roster names each model as its company does ("Ax 2", or its given name).
    labels = companies.labels_of(session, [row[1] for row in rows])
    for warband_id, model_id, name, types, points, stats in rows:
        rosters[warband_id].append(
            {
                "model_id": model_id,
                "name": labels.get(model_id, name),
                "types": types,
                "points": points,
                "stats": stats,
                "items": items[model_id],
            }
        )
    return rosters


def _mercenary_entry(warband: Warband, catalog: Catalog) -> dict:
    """Manual ch. 6 („Składy są jawne od razu”): the hired mercenary is on the public roster
    with its points and profile, as it was hired."""
    data = catalog.mercenaries.get(warband.mercenary_key)
    return {
        "model_id": None,
        "mercenary": True,
        "key": warband.mercenary_key,
        "name": warband.mercenary_name or "",
        "types": list(warband.mercenary_types),
        "points": warband.mercenary_points,
        "stats": dict(data.stats) if data else {},
        "items": [],
    }


def announce(
    session: Session, *, campaign: Campaign, catalog: Catalog, groups: GroupsOf = alone, master_seed: int | None = None
) -> int:
    """R6.1-R6.7: the round's orders become battles, each destination split by its own
    stored seed. Runs once, inside the phase change to Battles; returns how many.

    The cyclic garbage collector waits meanwhile (issue 17): announcing makes hundreds of
    thousands of short-lived rows and dicts, and in a server with a large heap each of the
    collections they trigger walks all of it — the time grew faster than the round."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        return _announce(session, campaign, catalog, groups, master_seed)
    finally:
        if was_on:
            gc.enable()


def _announce(session: Session, campaign: Campaign, catalog: Catalog, groups: GroupsOf, master_seed: int | None) -> int:
    # Light rows of the columns used (issue 17: thousands of orders and warbands).
    orders = list(
        session.exec(
            select(Order.warband_id, Order.player_id, Order.place_id, Order.event_id, Order.points).where(
                Order.campaign_id == campaign.id, Order.round == campaign.round
            )
        ).all()
    )
    master = random.Random(secrets.randbits(63) if master_seed is None else master_seed)
    destinations: dict[tuple, list[Order]] = defaultdict(list)
    for order in orders:
        destinations[("event", order.event_id) if order.event_id else ("place", order.place_id)].append(order)
    events = {e.id: e for e in session.exec(select(Event).where(Event.campaign_id == campaign.id)).all()}
    places = {p.id: p for p in session.exec(select(Place).where(Place.campaign_id == campaign.id)).all()}
    warbands = _sent_warbands(session, campaign)
    defending, defender_points, rosters = _forces(session, campaign, catalog, orders, destinations, groups, warbands)
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
        allied = allied_at(groups, event.id if event else None)
        # Defenders join where warbands from outside their alliance arrive (_defenders, R9.8).
        arrivals += [rules.Arrival(w.id, w.player_id, defender_points[w.id][0]) for w, at in defending if at == key]
        plan = rules.plan_destination(arrivals, allied, cap, seed)
        arrivals_out += _arrival_rows(campaign, place, event, seed, plan)
        for index, sides in enumerate(plan.battles):
            announced.append(_battle(campaign, place, event, seed, index, sides, warbands, rosters, scenarios))
    return _write(session, campaign, announced, arrivals_out)


def _sent_warbands(session: Session, campaign: Campaign) -> dict[int, Warband]:
    """The round's ordered warbands, as light rows of the columns the plan shows."""
    return {
        w.id: w
        for w in session.exec(
            select(
                Warband.id,
                Warband.name,
                Warband.player_id,
                Warband.mercenary_key,
                Warband.mercenary_name,
                Warband.mercenary_types,
                Warband.mercenary_points,
            )
            .join(Order, Order.warband_id == Warband.id)
            .where(Order.campaign_id == campaign.id, Order.round == campaign.round)
        ).all()
    }


def _forces(
    session: Session,
    campaign: Campaign,
    catalog: Catalog,
    orders: list[Order],
    destinations: dict,
    groups: GroupsOf,
    warbands: dict[int, Warband],
) -> tuple[list[tuple[Warband, tuple]], dict[int, tuple[int, set[int]]], dict[int, list[dict]]]:
    """The defenders with their points, and every fighting warband's roster; the defenders
    join `warbands`, so the battles name them like the sent ones."""
    # R9.8: a defender fights with its roster of this moment — the models able to fight
    # (R4.7) — without a mercenary; one with nobody able to fight does not defend.
    defending = _defenders(session, campaign, orders, destinations, groups)
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
    return defending, defender_points, rosters


def _arrival_rows(campaign: Campaign, place: Place, event: Event | None, seed: int, plan: rules.Split) -> list[dict]:
    """The warbands of a destination that do not fight: unopposed or left out (R6.2, R6.4)."""
    return [
        {
            "campaign_id": campaign.id,
            "round": campaign.round,
            "place_id": place.id,
            "event_id": event.id if event else None,
            "warband_id": a.warband_id,
            "player_id": a.player_id,
            "kind": kind,
            "seed": seed,
        }
        for kind, rows in (("unopposed", plan.unopposed), ("left_out", plan.left_out))
        for a in rows
    ]


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
    ids = list(
        session.exec(
            select(Battle.id)
            .where(Battle.campaign_id == campaign.id, Battle.round == campaign.round, Battle.id > before)
            .order_by(Battle.id)
        ).all()
    )
    assert len(ids) == len(announced), (len(ids), len(announced))
    session.execute(
        insert(BattleWarband),
        [{**row, "battle_id": battle_id} for battle_id, (_b, rows, _e) in zip(ids, announced) for row in rows],
    )
    chronicle.record_many(session, campaign, [entry for _b, _rows, entry in announced])
    return len(ids)


def _defenders(
    session: Session, campaign: Campaign, orders: list[Order], destinations: dict, groups: GroupsOf
) -> list[tuple[Warband, tuple]]:
    """Warbands without an order that stand where others from outside their alliance arrive
    (the movement module, R9.8), each with the destination it defends: of the destinations at
    its place (an event's, or the place's own) that such warbands come to, the one with the
    most arrivals, ties to the first. Its own player's or its allies' arrivals alone make no
    battle, so a destination of only those is never the one it defends."""
    found = movement.defenders(session, campaign, orders)
    if not found:
        return []
    allied_by_event: dict[int | None, Callable[[int, int], bool]] = {}

    def hostile(key: tuple, warband: Warband) -> bool:
        group = destinations[key]
        event_id = group[0].event_id
        if event_id not in allied_by_event:
            allied_by_event[event_id] = allied_at(groups, event_id)
        allied = allied_by_event[event_id]
        return any(o.player_id != warband.player_id and not allied(o.player_id, warband.player_id) for o in group)

    result = []
    for place_id, standing in found.items():
        here = sorted(
            (k for k, group in destinations.items() if group[0].place_id == place_id), key=lambda k: (-len(destinations[k]), k)
        )
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
    links = session.exec(
        select(WarbandMember.warband_id, WarbandMember.model_id).where(WarbandMember.warband_id.in_(warband_ids))
    ).all()
    members = warband_service.members_of(session, [m for _w, m in links])
    unable = {m.model_id for m in warband_rules.unavailable(list(members.values()))}
    totals: dict[int, int] = defaultdict(int)
    ready: dict[int, set[int]] = defaultdict(set)
    for warband_id, model_id in links:
        if model_id in members and model_id not in unable:
            totals[warband_id] += warband_rules.points([members[model_id]], None)
            ready[warband_id].add(model_id)
    return {w: (totals[w], ready[w]) for w in ready}


def _battle(
    campaign, place, event, seed, index, sides, warbands, rosters, scenarios
) -> tuple[dict, list[dict], tuple[str, dict]]:
    """One battle as plain rows: the battle, its warbands, and its chronicle entry."""
    rng = random.Random(seed * 1000 + index)
    size = sum(len(s) for s in sides)
    choice = rules.choose_scenario(
        event.scenario if event else None,
        bool(event and event.other_mission),
        size,
        scenarios,
        rng,
        roles_override=event.roles if event else None,
    )
    battle = _battle_row(campaign, place, event, seed, choice, size)
    defender = (
        rules.defender_side([{a.player_id for a in side} for side in sides], place.owner_player_id, rng) if choice.roles else None
    )
    # V10: Underdog per side, by the side's total; each warband's row carries its side's
    # figures, fixed at announcing like the rest of the battle (the setting may change later).
    dog = rules.side_underdog([[a.points for a in side] for side in sides], campaign.underdog_points_per_die)
    rows = []
    for side_index, a in ((i, a) for i, side in enumerate(sides) for a in side):
        d = dog[side_index]
        role = None if defender is None else ("defender" if side_index == defender else "attacker")
        rows.append(
            {
                "side": side_index,
                "role": role,
                "warband_id": a.warband_id,
                "player_id": a.player_id,
                "name": warbands[a.warband_id].name,
                "points": a.points,
                "roster": rosters.get(a.warband_id, []),
                "underdog_dice": d.dice,
                "bonus_points": d.bonus_points,
            }
        )
    return battle, rows, _announced_entry(place, event, sides, warbands, rows)


def _battle_row(
    campaign: Campaign, place: Place, event: Event | None, seed: int, choice: rules.ScenarioChoice, size: int
) -> dict:
    return {
        "campaign_id": campaign.id,
        "round": campaign.round,
        "place_id": place.id,
        "event_id": event.id if event else None,
        "seed": seed,
        "scenario": choice.key,
        "other_mission": event.other_mission if event else None,
        "roles": choice.roles,
        "notes": (event.notes if event and size > 2 else ""),
        "status": "announced",
        "winners": [],
        "dispute_reason": "",
        "created_at": utcnow(),
    }


def _announced_entry(place: Place, event: Event | None, sides, warbands: dict, rows: list[dict]) -> tuple[str, dict]:
    """The chronicle's word on a battle: who fights whom, with what (rosters are public, R6.5)."""
    return (
        "battle_announced_event" if event else "battle_announced",
        {
            "place": place.name,
            "title": event.title if event else "",
            "warbands": " vs ".join(" & ".join(warbands[a.warband_id].name for a in side) for side in sides),
            "rosters": [
                {
                    "name": r["name"],
                    "points": r["points"],
                    "models": [
                        {"name": m["name"], "points": m["points"], "mercenary": bool(m.get("mercenary"))} for m in r["roster"]
                    ],
                }
                for r in rows
            ],
        },
    )

"""Warbands (R4.1-R4.7, V4-V8, V16): building them, checking them, reading them for the pages;
the orders that send them are in orders.py."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.campaigns import house_rules
from app.campaigns.models import Campaign
from app.catalog.catalog import Catalog
from app.catalog.names import ALIGNMENT_NAMES, SLOT_NAMES
from app.companies import service as companies
from app.companies.models import Company, CompanyModel
from app.companies.rules import Carried
from app.core.db import read_rows
from app.core.errors import DomainError, Msg
from app.core.rows import row_by_id
from app.movement import service as movement
from app.visibility import OWN_ROUND_ORDERS, ROUND_ORDERS, Viewer, acting_player, kept, viewer_for
from app.warbands import reads, rules
from app.warbands.models import Order, Warband, WarbandMember


@dataclass
class WarbandView:
    warband: Warband
    members: list[rules.Member]
    mercenary: rules.Mercenary | None
    points: int
    problems: list[rules.Problem] = field(default_factory=list)
    order: Order | None = None


def members_of(session: Session, model_ids: list[int]) -> dict[int, rules.Member]:
    """Company models as warband members, with the items they carry (two statements)."""
    if not model_ids:
        return {}
    siblings = session.exec(reads.SIBLINGS, params={"model_ids": model_ids}).all()
    labels = companies.labels_from(siblings)
    wanted = set(model_ids)
    models = [m for m in siblings if m.id in wanted]
    carried: dict[int, list[tuple[Carried, int]]] = {}
    for item in session.exec(reads.CARRIED, params={"model_ids": model_ids}).all():
        carried.setdefault(item.model_id, []).append((Carried(item.slot, item.rarity), item.points))
    return {
        m.id: rules.Member(
            m.id,
            labels.get(m.id, m.name),
            m.profile_key,
            tuple(m.types),
            m.points,
            m.unique,
            tuple(carried.get(m.id, ())),
            m.status,
        )
        for m in models
    }


def mercenary_of(warband: Warband) -> rules.Mercenary | None:
    if warband.mercenary_key is None:
        return None
    return rules.Mercenary(
        warband.mercenary_key,
        warband.mercenary_name or "",
        tuple(warband.mercenary_types),
        warband.mercenary_points,
        warband.mercenary_alignment or "Neutral",
        warband.mercenary_unique,
    )


def faction_alignment(catalog: Catalog, company: Company | None) -> str:
    faction = catalog.factions.get(company.faction) if company and company.faction else None
    return faction.alignment if faction else "Neutral"


def evaluate(
    members: list[rules.Member], mercenary: rules.Mercenary | None, alignment: str, limit: int
) -> tuple[int, list[rules.Problem]]:
    return rules.points(members, mercenary), rules.problems(members, mercenary, alignment, limit)


def problem_details(found: list[rules.Problem]) -> list[dict]:
    """Every problem as its code and parameters; names that are themselves messages (a slot,
    an alignment) are marked to be translated with the rest at the edge."""
    details = []
    for p in found:
        params = dict(p.params)
        if "slot" in params:
            params["slot"] = Msg(SLOT_NAMES.get(params["slot"], params["slot"]))
        for key in ("alignment", "faction"):
            if key in params:
                params[key] = Msg(ALIGNMENT_NAMES.get(params[key], params[key]))
        details.append({"code": p.code, **params})
    return details


def current_orders(session: Session, campaign: Campaign, player_id: int | None = None) -> list[Order]:
    params = {"campaign_id": campaign.id, "round": campaign.round, "player_id": player_id}
    return list(session.exec(OWN_ROUND_ORDERS if player_id is not None else ROUND_ORDERS, params=params).all())


def sent_models(session: Session, campaign: Campaign, player_id: int) -> dict[int, str]:
    """R4.6: {model id: warband name} for the player's warbands sent this round (companies asks)."""
    sent = [o.warband_id for o in current_orders(session, campaign, player_id)]
    if not sent:
        return {}
    return dict(session.exec(reads.SENT_MODELS, params={"warband_ids": sent}).all())


def warband_limit(session: Session, campaign: Campaign, player_id: int) -> int:
    """R4.3 with V16: the campaign's warband size, less the points the company's retinue
    roles beyond the free ones cost (house default: 3 points each after the first)."""
    retinue = session.exec(reads.RETINUE, params={"player_id": player_id}).one()
    return max(0, campaign.warband_points - house_rules.retinue_cost(retinue, house_rules.of(campaign.settlement_rules)))


def own_warband_limit(session: Session, viewer: Viewer) -> int:
    """The viewer's own `warband_limit`, worked out once per request (kept on the viewer): the
    warbands page asks for its list and for its header (issue 37)."""
    assert viewer.player is not None
    player_id = viewer.player.id
    return kept(viewer, "_warband_limit", lambda: warband_limit(session, viewer.campaign, player_id))


def list_warbands(session: Session, *, actor: User, campaign_id: int, catalog: Catalog) -> tuple[Viewer, list[WarbandView]]:
    """A player's own warbands (R4.1); other players' rosters stay hidden until battles."""
    return warbands_for(session, viewer_for(session, actor, campaign_id), catalog)


def warbands_for(session: Session, viewer: Viewer, catalog: Catalog) -> tuple[Viewer, list[WarbandView]]:
    """`list_warbands` for a viewer already seated: a page's, read with its login (issue 37)."""
    if viewer.player is None:
        return viewer, []
    campaign = viewer.campaign
    warbands = session.exec(reads.OWN_WARBANDS, params={"player_id": viewer.player.id}).all()
    ids = [w.id for w in warbands]
    links = session.exec(reads.LINKS, params={"warband_ids": ids}).all() if ids else []
    members = members_of(session, [link.model_id for link in links])
    orders = {o.warband_id: o for o in current_orders(session, campaign, viewer.player.id)}
    alignment = faction_alignment(catalog, companies.own_company(session, viewer))
    limit = own_warband_limit(session, viewer)
    views = []
    for w in warbands:
        own = [members[link.model_id] for link in links if link.warband_id == w.id and link.model_id in members]
        mercenary = mercenary_of(w)
        total, found = evaluate(own, mercenary, alignment, limit)
        views.append(WarbandView(w, own, mercenary, total, found, orders.get(w.id)))
    return viewer, views


def _resolve(
    session: Session, viewer: Viewer, model_ids: list[int], mercenary_key: str | None, catalog: Catalog, warband_id: int | None
) -> tuple[list[rules.Member], rules.Mercenary | None]:
    company = companies.own_company(session, viewer)
    if len(set(model_ids)) != len(model_ids):
        raise DomainError("warband_model_unknown", model_id=model_ids[0])
    owned = set(read_rows(session, reads.COMPANY_MODEL_IDS, {"company_id": company.id if company else -1}).scalars())
    for mid in model_ids:
        if mid not in owned:
            raise DomainError("warband_model_unknown", model_id=mid)
    members = members_of(session, model_ids)
    if model_ids:
        taken = session.exec(reads.TAKEN, params={"model_ids": model_ids, "warband_id": warband_id or -1}).first()
        if taken:
            raise DomainError("warband_model_taken", model=members[taken[0]].name, warband=taken[1])
    mercenary = None
    if mercenary_key:
        data = catalog.mercenaries.get(mercenary_key)
        if data is None:
            raise DomainError("mercenary_unknown", mercenary=mercenary_key)
        mercenary = rules.Mercenary(data.key, data.name, tuple(data.types), data.points, data.alignment or "Neutral", data.unique)
    return [members[mid] for mid in model_ids], mercenary


def _check(session: Session, viewer: Viewer, members, mercenary, catalog: Catalog) -> None:
    alignment = faction_alignment(catalog, companies.own_company(session, viewer))
    _total, found = evaluate(members, mercenary, alignment, warband_limit(session, viewer.campaign, viewer.player.id))
    if found:
        raise DomainError("warband_invalid", details=problem_details(found))


def _apply(session: Session, warband: Warband, members, mercenary) -> None:
    for link in session.exec(reads.MEMBER_LINKS, params={"warband_id": warband.id}).all():
        session.delete(link)
    session.flush()
    session.add_all(WarbandMember(warband_id=warband.id, model_id=m.model_id) for m in members)
    warband.mercenary_key = mercenary.key if mercenary else None
    warband.mercenary_name = mercenary.name if mercenary else None
    warband.mercenary_points = mercenary.points if mercenary else 0
    warband.mercenary_types = list(mercenary.types) if mercenary else []
    warband.mercenary_alignment = mercenary.alignment if mercenary else None
    warband.mercenary_unique = bool(mercenary and mercenary.unique)
    session.add(warband)
    session.flush()


def preview_for(
    session: Session,
    viewer: Viewer,
    model_ids: list[int],
    mercenary_key: str | None,
    catalog: Catalog,
    warband_id: int | None = None,
) -> tuple[int, list[rules.Problem]]:
    """The builder's live check: points and every problem, without saving (for the viewer the
    builder's login seated: it runs at every tap, issue 37)."""
    if viewer.player is None:
        raise DomainError("not_a_player")
    members, mercenary = _resolve(session, viewer, model_ids, mercenary_key, catalog, warband_id)
    alignment = faction_alignment(catalog, companies.own_company(session, viewer))
    return evaluate(members, mercenary, alignment, own_warband_limit(session, viewer))


def create_warband(
    session: Session,
    *,
    actor: User,
    campaign_id: int,
    name: str,
    model_ids: list[int],
    mercenary_key: str | None,
    catalog: Catalog,
    location_place_id: int | None = None,
) -> Warband:
    """With the movement module, the new warband gathers in a hideout of its player (R9.8):
    `location_place_id` picks which one when they have several."""
    viewer = acting_player(session, actor, campaign_id, lock_player=True)
    rules.check_building(viewer.campaign.status, viewer.campaign.phase)
    members, mercenary = _resolve(session, viewer, model_ids, mercenary_key, catalog, None)
    _check(session, viewer, members, mercenary, catalog)
    where = movement.gathering_place(session, viewer.campaign, viewer.player.id, location_place_id)
    warband = Warband(campaign_id=campaign_id, player_id=viewer.player.id, name=name.strip(), location_place_id=where)
    session.add(warband)
    session.flush()
    _apply(session, warband, members, mercenary)
    return warband


def owned_warband(session: Session, viewer: Viewer, warband_id: int) -> Warband:
    warband = row_by_id(session, Warband, warband_id)
    if warband is None or warband.player_id != (viewer.player.id if viewer.player else None):
        raise DomainError("not_found")
    return warband


# Built once (issue 37: every order sent, changed or undone asked it, built anew).
_ORDER_OF = select(Order).where(Order.warband_id == bindparam("warband_id"), Order.round == bindparam("round"))


def order_of(session: Session, campaign: Campaign, warband_id: int) -> Order | None:
    return session.exec(_ORDER_OF, params={"warband_id": warband_id, "round": campaign.round}).first()


def update_warband(
    session: Session,
    *,
    actor: User,
    campaign_id: int,
    warband_id: int,
    catalog: Catalog,
    name: str | None = None,
    model_ids: list[int] | None = None,
    mercenary_key: str | bool | None = False,
) -> Warband:
    """Change name, models or mercenary (`mercenary_key=False` keeps the mercenary)."""
    viewer = acting_player(session, actor, campaign_id, lock_player=True)
    warband = owned_warband(session, viewer, warband_id)
    if order_of(session, viewer.campaign, warband.id):
        raise DomainError("warband_frozen", warband=warband.name)
    rules.check_building(viewer.campaign.status, viewer.campaign.phase)
    if name is not None:
        warband.name = name.strip()
    if model_ids is not None or mercenary_key is not False:
        current = list(session.exec(reads.MEMBER_IDS, params={"warband_id": warband.id}).all())
        key = warband.mercenary_key if mercenary_key is False else mercenary_key
        # The builder posts the whole roster with a rename: only a real change needs a hideout (R9.8).
        if (model_ids is not None and set(model_ids) != set(current)) or key != warband.mercenary_key:
            movement.require_in_hideout(session, viewer.campaign, warband)
        members, mercenary = _resolve(session, viewer, current if model_ids is None else model_ids, key, catalog, warband.id)
        _check(session, viewer, members, mercenary, catalog)
        _apply(session, warband, members, mercenary)
    session.add(warband)
    return warband


def disband(session: Session, *, actor: User, campaign_id: int, warband_id: int) -> None:
    viewer = acting_player(session, actor, campaign_id, lock_player=True)
    warband = owned_warband(session, viewer, warband_id)
    if order_of(session, viewer.campaign, warband.id):
        raise DomainError("warband_frozen", warband=warband.name)
    rules.check_building(viewer.campaign.status, viewer.campaign.phase)
    movement.require_in_hideout(session, viewer.campaign, warband)
    session.delete(warband)


def take_out(session: Session, *, actor: User, campaign_id: int, warband_id: int, model_id: int) -> tuple[str, str]:
    """R4.7: a model that cannot fight leaves its warband in one tap, even when what remains
    breaks the rules (the warband list says what). Dead and captured models are gone wherever
    the warband stands; a resting one walks home with it, so away from a hideout it stays (R9.8).
    Answers (warband name, model name)."""
    viewer = acting_player(session, actor, campaign_id, lock_player=True)
    warband = owned_warband(session, viewer, warband_id)
    if order_of(session, viewer.campaign, warband.id):
        raise DomainError("warband_frozen", warband=warband.name)
    rules.check_building(viewer.campaign.status, viewer.campaign.phase)
    link = session.exec(reads.MEMBER_LINK, params={"warband_id": warband.id, "model_id": model_id}).first()
    if link is None:
        raise DomainError("not_found")
    model = row_by_id(session, CompanyModel, model_id)
    if model.status == "ready":
        raise DomainError("warband_take_out_fit", model=model.name)
    if model.status not in ("dead", "captured"):
        movement.require_in_hideout(session, viewer.campaign, warband)
    session.delete(link)
    return warband.name, model.name


# --- reading for the pages ----------------------------------------------------------------


def memberships(session: Session, player_id: int) -> dict[int, tuple[int, str]]:
    """model id -> (warband id, warband name) for one player's warbands."""
    rows = session.exec(reads.MEMBERSHIPS, params={"player_id": player_id}).all()
    return {mid: (wid, name) for mid, wid, name in rows}


def warband_to_send(session: Session, *, actor: User, campaign_id: int, warband_id: int) -> tuple[Viewer, Warband]:
    """The send page's warband: only its owner sees it (R4.7); others get 404."""
    viewer = viewer_for(session, actor, campaign_id)
    return viewer, owned_warband(session, viewer, warband_id)


def own_warband(session: Session, player_id: int, warband_id: int) -> tuple[Warband, list[int]]:
    warband = row_by_id(session, Warband, warband_id)
    if warband is None or warband.player_id != player_id:
        raise DomainError("not_found")
    ids = list(session.exec(reads.MEMBER_IDS, params={"warband_id": warband_id}).all())
    return warband, ids


_NAMES = select(Warband.id, Warband.name).where(col(Warband.id).in_(bindparam("ids", expanding=True)))


def names_by_id(session: Session, ids: list[int]) -> dict[int, str]:
    """Warband id -> name in one statement, built once (a list of orders, a round's arrivals:
    forty Warband objects cost the orders page about a millisecond, issue 37)."""
    ids = sorted(set(ids))
    return dict(read_rows(session, _NAMES, {"ids": ids}).all()) if ids else {}


def names_read_with(rows) -> dict[int, str]:
    """Warband id -> name, as `names_by_id` gives them, of rows read with their warband's name
    outer-joined as `warband_name` (None for a warband no longer there, left out): a list's
    names without a statement of their own."""
    return {row.warband_id: row.warband_name for row in rows if row.warband_name is not None}


def unsent_warbands(session: Session, campaign: Campaign, player_id: int) -> list[Warband]:
    """A player's warbands without an order this round."""
    sent = {o.warband_id for o in current_orders(session, campaign, player_id)}
    rows = session.exec(reads.OWN_WARBANDS, params={"player_id": player_id}).all()
    return [w for w in rows if w.id not in sent]


def guard_place_delete(session: Session, campaign: Campaign, places: dict) -> None:
    """Orders sent there this round would vanish with their mercenary fees: undo them first."""
    sent = session.exec(
        select(Order.place_id).where(
            Order.campaign_id == campaign.id, Order.round == campaign.round, Order.place_id.in_(list(places))
        )
    ).first()
    if sent is not None:
        raise DomainError("place_has_orders", place=places[sent].name)

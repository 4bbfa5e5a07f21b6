"""Settlement use cases (R7.1, V11-V17): each side settles each battle for each of its
warbands in six steps, saved as a draft until closed; closing applies everything at once;
the GM can reopen until Twilight. Ransom is the only gold that moves (V17)."""
from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field

from sqlmodel import Session, select

from app.accounts.models import User
from app.battles import service as battles
from app.battles.models import BattleWarband
from app.campaigns import house_rules
from app.campaigns.service import nicknames
from app.campaigns.models import Campaign
from app.companies.models import Company, CompanyItem, CompanyModel
from app.core.db import utcnow
from app.core.errors import DomainError, N_
from app.gold import service as gold
from app.live import service as live
from app.settlement import rules
from app.settlement.models import Ransom, Settlement
from app.visibility import Viewer, may_see_settlement, require_gm, require_writable, viewer_for, visible_ransoms, visible_settlements

DECIDED = battles.DECIDED_RESULTS
MODEL_FIELDS = ("status", "miss_round", "xp", "rank", "injuries", "upgrades", "role")
RANSOM_PHASES = ("settlement", "twilight")


@dataclass
class SettlementView:
    """A settlement as its owner or the GM sees it: the steps as they stand (saved, checked,
    defaults filled in), what the house rules propose, and the company's models and items."""

    viewer: Viewer
    battle: battles.BattleView
    warband: BattleWarband
    settlement: Settlement | None
    ctx: rules.Context
    steps: dict
    problem: DomainError | None = None
    models: dict[int, CompanyModel] = field(default_factory=dict)
    ransoms: list[Ransom] = field(default_factory=list)

    @property
    def status(self) -> str:
        return self.settlement.status if self.settlement else "draft"

    @property
    def closed(self) -> bool:
        return self.status == "closed"

    @property
    def rolls(self) -> dict[int, list[dict]]:
        return {int(k): v for k, v in (self.settlement.rolls if self.settlement else {}).items()}

    @property
    def healer(self) -> bool:
        return rules.healer_in(self.ctx)

    @property
    def healer_used(self) -> bool:
        return bool(self.settlement and self.settlement.healer_used)

    @property
    def editable(self) -> bool:
        c = self.viewer.campaign
        return (not self.closed and c.status == "running" and c.phase == "settlement" and c.round == self.battle.battle.round
                and self.viewer.player is not None and self.viewer.player.id == self.warband.player_id)

    @property
    def reopenable(self) -> bool:
        c = self.viewer.campaign
        return self.closed and self.viewer.is_gm and c.status == "running" and c.phase == "settlement" and c.round == self.battle.battle.round

    def retinue_cost(self) -> int:
        return rules.retinue_cost(len(self.steps["retinue"]["retinue_ids"]), self.ctx.settings)


# --- loading ------------------------------------------------------------------------------


def _battle_warband(session: Session, viewer: Viewer, battle_id: int, warband_id: int) -> tuple[battles.BattleView, BattleWarband]:
    found = battles.battles_of(session, viewer.campaign, battle_ids=[battle_id])
    bw = next((w for w in found[0].warbands if w.warband_id == warband_id), None) if found else None
    if bw is None or not may_see_settlement(viewer, bw.player_id):
        raise DomainError("not_found")
    return found[0], bw


def _company_rows(session: Session, player_id: int) -> tuple[dict[int, CompanyModel], list[CompanyItem]]:
    models = {m.id: m for m in session.exec(
        select(CompanyModel).join(Company, Company.id == CompanyModel.company_id).where(Company.player_id == player_id)
        .order_by(CompanyModel.id)).all()}
    items = list(session.exec(
        select(CompanyItem).join(Company, Company.id == CompanyItem.company_id).where(Company.player_id == player_id)
        .order_by(CompanyItem.id)).all())
    return models, items


def _member(m: CompanyModel) -> rules.Member:
    return rules.Member(m.id, m.name, tuple(m.types), m.healer, m.status, m.xp, m.rank, m.role)


def context(campaign: Campaign, view: battles.BattleView, bw: BattleWarband, models: dict[int, CompanyModel],
            items: list[CompanyItem]) -> rules.Context:
    roster = [m["model_id"] for m in bw.roster if m.get("model_id") in models]
    enemies = [w for w in view.warbands if w.side != bw.side]
    decided = view.battle.status in DECIDED
    return rules.Context(
        player_id=bw.player_id, round=view.battle.round,
        result=rules.result_for(view.battle.winners, bw.player_id) if decided else None,
        members=[_member(models[mid]) for mid in roster],
        company=[_member(m) for m in models.values()],
        items=[rules.Item(i.id, i.name, i.slot, i.rarity, i.model_id) for i in items if i.model_id is None or i.model_id in roster],
        opponents=sorted({w.player_id for w in enemies}), enemy_models=sum(len(w.roster) for w in enemies),
        settings=house_rules.of(campaign.settlement_rules),
    )


def _rolls(settlement: Settlement | None) -> dict[int, dict]:
    """The roll that stands for each model (the last one: the Healer's re-roll replaces)."""
    return {int(k): v[-1] for k, v in (settlement.rolls if settlement else {}).items() if v}


def _settlement_row(session: Session, battle_id: int, warband_id: int, lock: bool = False) -> Settlement | None:
    query = select(Settlement).where(Settlement.battle_id == battle_id, Settlement.warband_id == warband_id)
    return session.exec(query.with_for_update() if lock else query).first()


def _view(session: Session, viewer: Viewer, battle_id: int, warband_id: int, lock: bool = False) -> SettlementView:
    view, bw = _battle_warband(session, viewer, battle_id, warband_id)
    row = _settlement_row(session, battle_id, warband_id, lock)
    models, items = _company_rows(session, bw.player_id)
    ctx = context(viewer.campaign, view, bw, models, items)
    problem = None
    if row is not None and row.status == "closed" and row.applied.get("steps"):
        steps = row.applied["steps"]
    else:
        try:
            steps = rules.resolve(ctx, row.steps if row else {}, _rolls(row))
        except DomainError as exc:  # saved before something changed: show what was saved
            problem = exc
            steps = rules.resolve(ctx, {}, {})
    ransoms = [r for r in visible_ransoms(session, viewer) if row is not None and r.settlement_id == row.id]
    return SettlementView(viewer, view, bw, row, ctx, steps, problem, models, ransoms)


def get(session: Session, *, actor: User, campaign_id: int, battle_id: int, warband_id: int) -> SettlementView:
    return _view(session, viewer_for(session, actor, campaign_id), battle_id, warband_id)


# --- writing ------------------------------------------------------------------------------


def _writable(session: Session, actor: User, campaign_id: int, battle_id: int, warband_id: int) -> SettlementView:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    sv = _view(session, viewer, battle_id, warband_id, lock=True)
    if viewer.player is None or viewer.player.id != sv.warband.player_id:
        raise DomainError("settlement_owner_only")
    campaign = viewer.campaign
    if campaign.status != "running" or campaign.phase != "settlement" or campaign.round != sv.battle.battle.round:
        raise DomainError("settlement_phase")
    if sv.closed:
        raise DomainError("settlement_closed")
    if sv.settlement is None:
        sv.settlement = Settlement(campaign_id=campaign.id, round=sv.battle.battle.round, battle_id=battle_id,
                                   warband_id=warband_id, player_id=sv.warband.player_id)
        session.add(sv.settlement)
    return sv


def save(session: Session, *, actor: User, campaign_id: int, battle_id: int, warband_id: int, changes: dict) -> SettlementView:
    """Saves any of the six steps; a step left out keeps what was saved. Every step is
    checked against the others before anything is stored."""
    sv = _writable(session, actor, campaign_id, battle_id, warband_id)
    row = sv.settlement
    merged = {**row.steps, **{k: v for k, v in changes.items() if k in rules.STEPS and v is not None}}
    resolved = rules.resolve(sv.ctx, merged, _rolls(row))
    merged["course"] = {k: v for k, v in resolved["course"].items() if k != "result"}
    row.steps, row.updated_at = merged, utcnow()
    session.add(row)
    session.flush()
    sv.steps = resolved
    return sv


def roll(session: Session, *, actor: User, campaign_id: int, battle_id: int, warband_id: int, model_id: int,
         reroll: bool = False, seed: int | None = None) -> SettlementView:
    """V12: the service rolls on the campaign's casualty table; the seed is stored with the
    result. With a Healer in the warband, one rolled result per battle may be re-rolled."""
    sv = _writable(session, actor, campaign_id, battle_id, warband_id)
    row = sv.settlement
    course = rules.check_course(sv.ctx, row.steps.get("course") or {})
    rules.check_roll(sv.ctx, course, _rolls(row), model_id, reroll, row.healer_used)
    seed = secrets.randbits(31) if seed is None else seed
    result = rules.roll(sv.ctx.settings["casualty_table"], random.Random(seed))
    rolls = {k: list(v) for k, v in row.rolls.items()}
    rolls.setdefault(str(model_id), []).append({"seed": seed, **result, "healer": reroll})
    row.rolls = rolls
    row.healer_used = row.healer_used or reroll
    # The rolled result replaces whatever was typed for the model.
    row.steps = {**row.steps, "injuries": [i for i in row.steps.get("injuries") or [] if i.get("model_id") != model_id]}
    row.updated_at = utcnow()
    session.add(row)
    session.flush()
    sv.steps = rules.resolve(sv.ctx, row.steps, _rolls(row))
    return sv


def close(session: Session, *, actor: User, campaign_id: int, battle_id: int, warband_id: int) -> SettlementView:
    """Applies every step in one transaction; final for the player."""
    sv = _writable(session, actor, campaign_id, battle_id, warband_id)
    row = sv.settlement
    plan = rules.plan(sv.ctx, row.steps, _rolls(row))
    applied: dict = {"steps": plan.steps, "models": {}, "items": {}, "lost_items": []}
    for change in plan.models:
        model = sv.models[change.model_id]
        before = {f: getattr(model, f) for f in MODEL_FIELDS}
        model.status, model.miss_round = change.status, change.miss_round if change.status == "miss_next" else model.miss_round
        model.xp, model.rank = change.xp, change.rank
        model.injuries = list(model.injuries) + change.injuries
        model.upgrades = list(model.upgrades) + change.upgrades
        applied["models"][str(model.id)] = {"before": before}
    for model_id, role in plan.roles.items():
        model = sv.models[model_id]
        applied["models"].setdefault(str(model_id), {"before": {f: getattr(model, f) for f in MODEL_FIELDS}})
        model.role = role
    for model_id, entry in applied["models"].items():
        model = sv.models[int(model_id)]
        entry["after"] = {f: getattr(model, f) for f in MODEL_FIELDS}
        session.add(model)
    items = {i.id: i for i in _company_rows(session, sv.warband.player_id)[1]}
    for item_id, (target, lost) in plan.items.items():
        item = items[item_id]
        if lost:
            applied["lost_items"].append({"id": item.id, "company_id": item.company_id, "model_id": item.model_id, "item_key": item.item_key,
                                          "name": item.name, "rarity": item.rarity, "slot": item.slot, "points": item.points,
                                          "price": item.price, "reward": item.reward})
            session.delete(item)
        elif item.model_id != target:
            applied["items"][str(item.id)] = {"before": item.model_id, "after": target}
            item.model_id = target
            session.add(item)
    for model_id, captor in plan.captures:
        session.add(Ransom(campaign_id=sv.viewer.campaign.id, round=row.round, settlement_id=row.id, model_id=model_id,
                           owner_player_id=row.player_id, captor_player_id=captor))
    row.status, row.closed_at, row.applied, row.updated_at = "closed", utcnow(), applied, utcnow()
    session.add(row)
    session.flush()
    sv.steps = plan.steps
    live.publish(session, row.campaign_id, "settlement", subject_id=battle_id, actor_user_id=actor.id,
                 player_id=row.player_id, warband_id=warband_id, action="closed")
    return sv


def reopen(session: Session, *, actor: User, campaign_id: int, battle_id: int, warband_id: int) -> SettlementView:
    """The GM reopens a closed settlement until Twilight: what closing changed is undone
    (where nothing else has changed it since), and the player may revise and close again."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    sv = _view(session, viewer, battle_id, warband_id, lock=True)
    campaign = viewer.campaign
    if campaign.status != "running" or campaign.phase != "settlement" or campaign.round != sv.battle.battle.round:
        raise DomainError("settlement_reopen_phase")
    row = sv.settlement
    if row is None or row.status != "closed":
        raise DomainError("settlement_not_closed")
    ransoms = list(session.exec(select(Ransom).where(Ransom.settlement_id == row.id)).all())
    if any(r.status == "paid" for r in ransoms):
        raise DomainError("settlement_ransom_paid")
    for r in ransoms:
        session.delete(r)
    for model_id, entry in row.applied.get("models", {}).items():
        model = sv.models.get(int(model_id))
        if model is None:
            continue
        for f in MODEL_FIELDS:
            if getattr(model, f) == entry["after"].get(f):
                setattr(model, f, entry["before"].get(f))
        session.add(model)
    items = {i.id: i for i in _company_rows(session, row.player_id)[1]}
    for item_id, moved in row.applied.get("items", {}).items():
        item = items.get(int(item_id))
        if item is not None and item.model_id == moved["after"]:
            item.model_id = moved["before"]
            session.add(item)
    for data in row.applied.get("lost_items", []):
        session.add(CompanyItem(**data))
    row.status, row.closed_at, row.applied, row.updated_at = "draft", None, {}, utcnow()
    session.add(row)
    session.flush()
    live.publish(session, campaign.id, "settlement", subject_id=battle_id, actor_user_id=actor.id,
                 player_id=row.player_id, warband_id=warband_id, action="reopened")
    return _view(session, viewer, battle_id, warband_id)


# --- ransom (V12, V17) --------------------------------------------------------------------


def ransoms(session: Session, *, actor: User, campaign_id: int) -> tuple[Viewer, list[Ransom], dict[int, str]]:
    viewer = viewer_for(session, actor, campaign_id)
    found = visible_ransoms(session, viewer)
    names = dict(session.exec(select(CompanyModel.id, CompanyModel.name).where(CompanyModel.id.in_([r.model_id for r in found])))
                 .all()) if found else {}
    return viewer, found, names


def _ransom(session: Session, actor: User, campaign_id: int, ransom_id: int) -> tuple[Viewer, Ransom]:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    found = visible_ransoms(session, viewer, lock=True, ransom_id=ransom_id)
    if not found:
        raise DomainError("not_found")
    if viewer.campaign.status != "running" or viewer.campaign.phase not in RANSOM_PHASES or viewer.campaign.round != found[0].round:
        raise DomainError("ransom_phase")
    if found[0].status not in ("awaiting", "offered"):
        raise DomainError("ransom_decided")
    return viewer, found[0]


def offer(session: Session, *, actor: User, campaign_id: int, ransom_id: int, price: int) -> Ransom:
    """The captor names (or changes) the price while the owner has not answered."""
    viewer, ransom = _ransom(session, actor, campaign_id, ransom_id)
    if viewer.player is None or viewer.player.id != ransom.captor_player_id:
        raise DomainError("ransom_captor_only")
    ransom.price, ransom.status = price, "offered"
    session.add(ransom)
    return ransom


def answer(session: Session, *, actor: User, campaign_id: int, ransom_id: int, pay: bool) -> Ransom:
    """The owner pays the price (a ledger entry on both sides) and the model comes back, or
    refuses and the model is lost to them."""
    viewer, ransom = _ransom(session, actor, campaign_id, ransom_id)
    if viewer.player is None or viewer.player.id != ransom.owner_player_id:
        raise DomainError("ransom_owner_only")
    if ransom.status != "offered":
        raise DomainError("ransom_no_offer")
    model = session.get(CompanyModel, ransom.model_id)
    if pay:
        if ransom.price:
            # Both ledgers say whose prisoner it was and who got the gold (V12), in the reader's language.
            names = nicknames(session, viewer.campaign.id)
            model_name = model.name if model else ""
            gold.pay(session, campaign=viewer.campaign, player_id=ransom.owner_player_id, amount=ransom.price, kind="ransom",
                     note=N_("%(model)s · to %(player)s"), params={"model": model_name, "player": names.get(ransom.captor_player_id, "")})
            gold.credit(session, campaign=viewer.campaign, player_id=ransom.captor_player_id, amount=ransom.price, kind="ransom",
                        note=N_("%(model)s · from %(player)s"), params={"model": model_name, "player": names.get(ransom.owner_player_id, "")})
        if model is not None and model.status == "captured":
            model.status, model.miss_round = "ready", None
            session.add(model)
    ransom.status, ransom.decided_at = ("paid" if pay else "refused"), utcnow()
    session.add(ransom)
    return ransom


def lapse_ransoms(session: Session, *, campaign: Campaign) -> int:
    """End round: a ransom nobody paid lapses and the prisoner is lost to its owner."""
    rows = list(session.exec(select(Ransom).where(Ransom.campaign_id == campaign.id, Ransom.status.in_(("awaiting", "offered")))).all())
    for r in rows:
        r.status, r.decided_at = "lapsed", utcnow()
        session.add(r)
    return len(rows)


def rest_over(session: Session, *, campaign: Campaign, ended_round: int) -> int:
    """End round: a model that missed this round's battle is ready again."""
    rows = list(session.exec(
        select(CompanyModel).join(Company, Company.id == CompanyModel.company_id)
        .where(Company.campaign_id == campaign.id, CompanyModel.status == "miss_next", CompanyModel.miss_round <= ended_round)).all())
    for m in rows:
        m.status, m.miss_round = "ready", None
        session.add(m)
    return len(rows)


# --- the round's settlements (the Twilight gate, the dashboard) -----------------------------


@dataclass
class Pending:
    """A warband of a battle whose settlement is not closed."""

    battle_id: int
    place_id: int
    warband_id: int
    warband: str
    player_id: int
    status: str  # "none" (never saved) or "draft"


def pending_seen_by(session: Session, viewer: Viewer, views: list[battles.BattleView]) -> list[Pending]:
    """Who still has to settle: the GM sees everybody, a player only their own warbands."""
    me = None if viewer.is_gm else (viewer.player.id if viewer.player else -1)
    return pending(session, viewer.campaign, views, me)


def pending(session: Session, campaign: Campaign, views: list[battles.BattleView], player_id: int | None = None) -> list[Pending]:
    """Every warband of these battles without a closed settlement (one statement)."""
    ids = [v.battle.id for v in views]
    rows = {(s.battle_id, s.warband_id): s.status for s in session.exec(
        select(Settlement).where(Settlement.battle_id.in_(ids))).all()} if ids else {}
    result = []
    for v in views:
        for w in v.warbands:
            if player_id is not None and w.player_id != player_id:
                continue
            status = rows.get((v.battle.id, w.warband_id), "none")
            if status != "closed":
                result.append(Pending(v.battle.id, v.battle.place_id, w.warband_id, w.name, w.player_id, status))
    return result


def round_settlements(session: Session, *, actor: User, campaign_id: int, round_: int | None = None) -> tuple[Viewer, list[Settlement]]:
    viewer = viewer_for(session, actor, campaign_id)
    return viewer, visible_settlements(session, viewer, viewer.campaign.round if round_ is None else round_)

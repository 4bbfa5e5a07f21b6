"""A settlement as its owner or the GM sees it (R7.1, V11-V17): loaded with its battle, the
warband's company and the steps as they stand; and the same view locked for writing."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import bindparam
from sqlmodel import Session, select

from app.accounts.models import User
from app.battles import service as battles
from app.battles.models import BattleWarband
from app.campaigns import house_rules
from app.campaigns.models import Campaign
from app.companies import rules as company_rules
from app.companies.models import Company, CompanyItem, CompanyModel
from app.core.errors import DomainError
from app.settlement import rules
from app.settlement.models import Ransom, Settlement
from app.visibility import Viewer, may_see_settlement, require_writable, viewer_for, visible_ransoms

DECIDED = battles.DECIDED_RESULTS


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
        return (
            not self.closed
            and c.status == "running"
            and c.phase == "settlement"
            and c.round == self.battle.battle.round
            and self.viewer.player is not None
            and self.viewer.player.id == self.warband.player_id
        )

    @property
    def reopenable(self) -> bool:
        c = self.viewer.campaign
        return (
            self.closed
            and self.viewer.is_gm
            and c.status == "running"
            and c.phase == "settlement"
            and c.round == self.battle.battle.round
        )

    def retinue_cost(self) -> int:
        return rules.retinue_cost(len(self.steps["retinue"]["retinue_ids"]), self.ctx.settings)


# --- loading ------------------------------------------------------------------------------


def _battle_warband(
    session: Session, viewer: Viewer, battle_id: int, warband_id: int
) -> tuple[battles.BattleView, BattleWarband]:
    found = battles.battles_of(session, viewer.campaign, battle_ids=[battle_id])
    bw = next((w for w in found[0].warbands if w.warband_id == warband_id), None) if found else None
    if bw is None or not may_see_settlement(viewer, bw.player_id):
        raise DomainError("not_found")
    return found[0], bw


# A settlement's reads, built once (issue 37: built on each call, they cost its page and its
# API read more than running them).
_COMPANY_MODELS = (
    select(CompanyModel)
    .join(Company, Company.id == CompanyModel.company_id)
    .where(Company.player_id == bindparam("player_id"))
    .order_by(CompanyModel.id)
)
_COMPANY_ITEMS = (
    select(CompanyItem)
    .join(Company, Company.id == CompanyItem.company_id)
    .where(Company.player_id == bindparam("player_id"))
    .order_by(CompanyItem.id)
)
_SETTLEMENT = select(Settlement).where(
    Settlement.battle_id == bindparam("battle_id"), Settlement.warband_id == bindparam("warband_id")
)
_SETTLEMENT_LOCKED = _SETTLEMENT.with_for_update()


def _company_rows(session: Session, player_id: int) -> tuple[dict[int, CompanyModel], list[CompanyItem]]:
    owner = {"player_id": player_id}
    models = {m.id: m for m in session.exec(_COMPANY_MODELS, params=owner).all()}
    return models, list(session.exec(_COMPANY_ITEMS, params=owner).all())


def _member(m: CompanyModel, labels: dict[int, str]) -> rules.Member:
    return rules.Member(m.id, labels.get(m.id, m.name), tuple(m.types), m.healer, m.status, m.xp, m.rank, m.role)


def context(
    campaign: Campaign, view: battles.BattleView, bw: BattleWarband, models: dict[int, CompanyModel], items: list[CompanyItem]
) -> rules.Context:
    roster = [m["model_id"] for m in bw.roster if m.get("model_id") in models]
    enemies = [w for w in view.warbands if w.side != bw.side]
    decided = view.battle.status in DECIDED
    labels = company_rules.model_labels([(m.id, m.profile_key, m.name, m.given_name) for m in models.values()])
    return rules.Context(
        player_id=bw.player_id,
        round=view.battle.round,
        result=rules.result_for(view.battle.winners, bw.player_id) if decided else None,
        members=[_member(models[mid], labels) for mid in roster],
        company=[_member(m, labels) for m in models.values()],
        items=[
            rules.Item(i.id, i.name, i.slot, i.rarity, i.model_id) for i in items if i.model_id is None or i.model_id in roster
        ],
        opponents=sorted({w.player_id for w in enemies}),
        enemy_models=sum(len(w.roster) for w in enemies),
        settings=house_rules.of(campaign.settlement_rules),
    )


def _rolls(settlement: Settlement | None) -> dict[int, dict]:
    """The roll that stands for each model (the last one: the Healer's re-roll replaces)."""
    return {int(k): v[-1] for k, v in (settlement.rolls if settlement else {}).items() if v}


def _settlement_row(session: Session, battle_id: int, warband_id: int, lock: bool = False) -> Settlement | None:
    keys = {"battle_id": battle_id, "warband_id": warband_id}
    return session.exec(_SETTLEMENT_LOCKED if lock else _SETTLEMENT, params=keys).first()


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
        sv.settlement = Settlement(
            campaign_id=campaign.id,
            round=sv.battle.battle.round,
            battle_id=battle_id,
            warband_id=warband_id,
            player_id=sv.warband.player_id,
        )
        session.add(sv.settlement)
    return sv

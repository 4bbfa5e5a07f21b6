"""Closing a settlement applies its six steps at once (R7.1, V11-V17) and records what they
changed, so that the GM can reopen it until Twilight and undo exactly that."""

from __future__ import annotations

from sqlmodel import Session, select

from app.accounts.models import User
from app.audit import service as audit
from app.companies.models import CompanyItem
from app.core.db import utcnow
from app.core.errors import DomainError
from app.live import service as live
from app.settlement import rules
from app.settlement.models import Ransom
from app.settlement.view import SettlementView, _company_rows, _rolls, _view, _writable
from app.visibility import require_gm, require_writable, viewer_for

MODEL_FIELDS = ("status", "miss_round", "xp", "rank", "injuries", "upgrades", "role")


def close(session: Session, *, actor: User, campaign_id: int, battle_id: int, warband_id: int) -> SettlementView:
    """Applies every step in one transaction; final for the player."""
    sv = _writable(session, actor, campaign_id, battle_id, warband_id)
    row = sv.settlement
    plan = rules.plan(sv.ctx, row.steps, _rolls(row))
    applied: dict = {"steps": plan.steps, "models": {}, "items": {}, "lost_items": []}
    # V12, R7.1: a prisoner whose ransom was refused before the GM reopened this settlement
    # stays lost; closing again neither changes it nor asks for a price a second time.
    refused = _refused_prisoners(session, row.id)
    _apply_models(session, sv, plan, refused, applied)
    _apply_items(session, sv, plan, applied)
    prisoners = [
        Ransom(
            campaign_id=sv.viewer.campaign.id,
            round=row.round,
            settlement_id=row.id,
            model_id=model_id,
            owner_player_id=row.player_id,
            captor_player_id=captor,
        )
        for model_id, captor in plan.captures
        if model_id not in refused
    ]
    session.add_all(prisoners)
    row.status, row.closed_at, row.applied, row.updated_at = "closed", utcnow(), applied, utcnow()
    session.add(row)
    session.flush()
    sv.steps = plan.steps
    _tell_closed(session, sv, actor, battle_id, warband_id, prisoners)
    return sv


def _apply_models(session: Session, sv: SettlementView, plan: rules.Plan, refused: set[int], applied: dict) -> None:
    """Each model's new state and the company's roles, with what they were before (for reopening)."""
    for change in plan.models:
        if change.model_id in refused:
            continue
        model = sv.models[change.model_id]
        before = {f: getattr(model, f) for f in MODEL_FIELDS}
        model.status, model.miss_round = change.status, change.miss_round if change.status == "miss_next" else model.miss_round
        model.xp, model.rank = change.xp, change.rank
        model.injuries = list(model.injuries) + change.injuries
        model.upgrades = list(model.upgrades) + change.upgrades
        applied["models"][str(model.id)] = {"before": before}
    for model_id, role in plan.roles.items():
        if model_id in refused:
            continue
        model = sv.models[model_id]
        applied["models"].setdefault(str(model_id), {"before": {f: getattr(model, f) for f in MODEL_FIELDS}})
        model.role = role
    for model_id, entry in applied["models"].items():
        model = sv.models[int(model_id)]
        entry["after"] = {f: getattr(model, f) for f in MODEL_FIELDS}
        session.add(model)


def _apply_items(session: Session, sv: SettlementView, plan: rules.Plan, applied: dict) -> None:
    """Each item to its new place; a lost item is deleted, its row kept in `applied` for reopening."""
    items = {i.id: i for i in _company_rows(session, sv.warband.player_id)[1]}
    for item_id, (target, lost) in plan.items.items():
        item = items[item_id]
        if lost:
            applied["lost_items"].append(
                {
                    "id": item.id,
                    "company_id": item.company_id,
                    "model_id": item.model_id,
                    "item_key": item.item_key,
                    "name": item.name,
                    "rarity": item.rarity,
                    "slot": item.slot,
                    "points": item.points,
                    "price": item.price,
                    "reward": item.reward,
                }
            )
            session.delete(item)
        elif item.model_id != target:
            applied["items"][str(item.id)] = {"before": item.model_id, "after": target}
            item.model_id = target
            session.add(item)


def _tell_closed(
    session: Session, sv: SettlementView, actor: User, battle_id: int, warband_id: int, prisoners: list[Ransom]
) -> None:
    row = sv.settlement
    live.publish(
        session,
        row.campaign_id,
        "settlement",
        subject_id=battle_id,
        actor_user_id=actor.id,
        player_id=row.player_id,
        warband_id=warband_id,
        action="closed",
    )
    for r in prisoners:  # R11.4: the captor is told that a prisoner waits for their price
        live.publish(
            session,
            row.campaign_id,
            "ransom",
            subject_id=r.id,
            actor_user_id=actor.id,
            owner_player_id=r.owner_player_id,
            captor_player_id=r.captor_player_id,
            model=sv.models[r.model_id].name,
        )


def _refused_prisoners(session: Session, settlement_id: int) -> set[int]:
    return set(
        session.exec(select(Ransom.model_id).where(Ransom.settlement_id == settlement_id, Ransom.status == "refused")).all()
    )


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
    # A refused ransom stays refused (V12): its prisoner stays lost, the refusal stays on
    # record; a ransom still waiting goes, and closing again asks for it anew.
    kept = {r.model_id for r in ransoms if r.status == "refused"}
    for r in ransoms:
        if r.model_id not in kept:
            session.delete(r)
    for model_id, entry in row.applied.get("models", {}).items():
        model = sv.models.get(int(model_id))
        if model is None or model.id in kept:
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
    audit.record(session, campaign, actor, "settlement_reopened", f"warband:{warband_id}", after={"battle_id": battle_id})
    live.publish(
        session,
        campaign.id,
        "settlement",
        subject_id=battle_id,
        actor_user_id=actor.id,
        player_id=row.player_id,
        warband_id=warband_id,
        action="reopened",
    )
    return _view(session, viewer, battle_id, warband_id)

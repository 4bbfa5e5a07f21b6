"""Settlement use cases (R7.1, V11-V17): each side settles each battle for each of its
warbands in six steps, saved as a draft until closed; closing applies everything at once;
the GM can reopen until Twilight. Ransom is the only gold that moves (V17).

Loading is in view, closing and reopening in closing, ransom in ransom; this module saves and
rolls, lists the round's settlements, and is where callers find every use case."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.battles import service as battles
from app.campaigns.models import Campaign
from app.campaigns.service import nicknames
from app.companies.models import Company, CompanyModel
from app.core.db import read_rows, utcnow
from app.settlement import rules
from app.settlement.closing import MODEL_FIELDS, close, reopen
from app.settlement.models import Settlement
from app.settlement.ransom import RANSOM_PHASES, answer, lapse_ransoms, offer, ransoms
from app.settlement.view import DECIDED, SettlementView, _rolls, _writable, context, get
from app.visibility import Viewer, viewer_for, visible_settlements

__all__ = [
    "DECIDED",
    "MODEL_FIELDS",
    "RANSOM_PHASES",
    "Pending",
    "SettlementView",
    "answer",
    "close",
    "context",
    "get",
    "lapse_ransoms",
    "nicknames",
    "offer",
    "pending",
    "pending_seen_by",
    "ransoms",
    "reopen",
    "rest_over",
    "roll",
    "round_settlements",
    "save",
]


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


def roll(
    session: Session,
    *,
    actor: User,
    campaign_id: int,
    battle_id: int,
    warband_id: int,
    model_id: int,
    reroll: bool = False,
    seed: int | None = None,
) -> SettlementView:
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


def rest_over(session: Session, *, campaign: Campaign, ended_round: int) -> int:
    """End round: a model that missed this round's battle is ready again."""
    rows = list(
        session.exec(
            select(CompanyModel)
            .join(Company, Company.id == CompanyModel.company_id)
            .where(Company.campaign_id == campaign.id, CompanyModel.status == "miss_next", CompanyModel.miss_round <= ended_round)
        ).all()
    )
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


# Each settlement's state in these battles, built once: a to-do list reads it on every page.
_STATUSES = select(Settlement.battle_id, Settlement.warband_id, Settlement.status).where(
    col(Settlement.battle_id).in_(bindparam("ids", expanding=True))
)


def pending(session: Session, campaign: Campaign, views: list[battles.BattleView], player_id: int | None = None) -> list[Pending]:
    """Every warband of these battles without a closed settlement (one statement)."""
    ids = [v.battle.id for v in views]
    found = read_rows(session, _STATUSES, {"ids": ids}) if ids else []
    rows = {(battle_id, warband_id): status for battle_id, warband_id, status in found}
    result = []
    for v in views:
        for w in v.warbands:
            if player_id is not None and w.player_id != player_id:
                continue
            status = rows.get((v.battle.id, w.warband_id), "none")
            if status != "closed":
                result.append(Pending(v.battle.id, v.battle.place_id, w.warband_id, w.name, w.player_id, status))
    return result


def round_settlements(
    session: Session, *, actor: User, campaign_id: int, round_: int | None = None
) -> tuple[Viewer, list[Settlement]]:
    viewer = viewer_for(session, actor, campaign_id)
    return viewer, visible_settlements(session, viewer, viewer.campaign.round if round_ is None else round_)

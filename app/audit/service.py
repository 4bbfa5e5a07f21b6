"""The GM's audit trail (R12.8, R12.9): every GM action writes one row through `record` — who,
when, what, on what, before and after — in the action's own transaction. Reading is the GMs'
(a co-GM's too). Undoing, which needs the domains the actions changed, is app/audit/undo.py,
high in the layers; this module imports no domain service, so every domain may record."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.audit.models import AuditEntry
from app.campaigns.models import Campaign
from app.core.errors import N_
from app.core.pagination import Listing, Page, paginate
from app.visibility import Viewer, require_gm

# Every action a row may name, with its label for the page's filter (translated where shown).
ACTIONS = {
    "phase_changed": N_("Phase changed"),
    "round_ended": N_("Round ended"),
    "result_decided": N_("Result decided"),
    "gold_adjusted": N_("Gold adjusted"),
    "reward_given": N_("Reward given"),
    "place_added": N_("Place added"),
    "place_edited": N_("Place edited"),
    "place_deleted": N_("Place deleted"),
    "event_added": N_("Event added"),
    "event_edited": N_("Event edited"),
    "event_ended": N_("Event ended"),
    "order_undone": N_("Order undone"),
    "settlement_reopened": N_("Settlement reopened"),
    "game_master_added": N_("Game master added"),
    "game_master_removed": N_("Game master removed"),
    "seat_handed_over": N_("Seat handed over"),
}


def plain(value: Any) -> Any:
    """A value as JSON keeps it (dates as ISO text)."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def snapshot(row: Any, fields: tuple[str, ...]) -> dict:
    return {f: plain(getattr(row, f)) for f in fields}


def record(
    session: Session,
    campaign: Campaign,
    actor: User | None,
    action: str,
    target: str = "",
    *,
    before: dict | None = None,
    after: dict | None = None,
) -> AuditEntry:
    """One row of the trail, written with the change (a refusal rolls both back)."""
    assert action in ACTIONS, action
    entry = AuditEntry(
        campaign_id=campaign.id,
        actor_user_id=actor.id if actor is not None else None,
        action=action,
        target=target,
        before=plain(before) if before is not None else None,
        after=plain(after) if after is not None else None,
    )
    session.add(entry)
    return entry


@dataclass
class AuditRow:
    entry: AuditEntry
    actor_nickname: str


def _trail(by_action: bool, by_actor: bool) -> Listing:
    query = (
        select(AuditEntry, User.nickname)
        .outerjoin(User, User.id == AuditEntry.actor_user_id)
        .where(AuditEntry.campaign_id == bindparam("campaign_id"))
        .order_by(col(AuditEntry.id).desc())
    )
    if by_action:
        query = query.where(AuditEntry.action == bindparam("action"))
    if by_actor:
        query = query.where(AuditEntry.actor_user_id == bindparam("actor"))
    return Listing(query)


# The trail's lists, filtered or not, built once (issue 37: built on each visit, the list and
# its count cost more than running them).
_TRAIL = {(by_action, by_actor): _trail(by_action, by_actor) for by_action in (False, True) for by_actor in (False, True)}


def entries(
    session: Session, viewer: Viewer, *, page: int = 1, per_page: int = 50, action: str | None = None, actor: int | None = None
) -> Page:
    """The campaign's trail, newest first, for a GM; `action` and `actor` (a user id) filter."""
    require_gm(viewer)
    params = {"campaign_id": viewer.campaign_id, "action": action, "actor": actor}
    found = paginate(session, _TRAIL[(bool(action), bool(actor))], page=page, per_page=per_page, params=params)
    found.items = [AuditRow(entry, nick or "") for entry, nick in found.items]
    return found


def row_of(session: Session, entry: AuditEntry) -> AuditRow:
    actor = session.get(User, entry.actor_user_id) if entry.actor_user_id else None
    return AuditRow(entry, actor.nickname if actor else "")


# Built once (issue 37: built on each visit of the audit trail).
_ACTORS = (
    select(User.id, User.nickname)
    .join(AuditEntry, AuditEntry.actor_user_id == User.id)
    .where(AuditEntry.campaign_id == bindparam("campaign_id"))
    .distinct()
    .order_by(User.nickname)
)


def actors(session: Session, viewer: Viewer) -> list[tuple[int, str]]:
    """Who appears in the trail (the page's filter)."""
    require_gm(viewer)
    return list(session.exec(_ACTORS, params={"campaign_id": viewer.campaign_id}).all())


def later_change(session: Session, entry: AuditEntry) -> bool:
    """Whether a later change of the same thing, not undone, depends on this one."""
    return (
        session.exec(
            select(AuditEntry.id).where(
                AuditEntry.campaign_id == entry.campaign_id,
                AuditEntry.target == entry.target,
                AuditEntry.id > entry.id,
                col(AuditEntry.undone_at).is_(None),
            )
        ).first()
        is not None
    )

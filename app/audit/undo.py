"""Undoing a GM change from the audit trail (R12.9), where that is safe: a gold adjustment by a
reversing ledger entry, a place or an event edit by putting back what it was before. Nothing
is undone past a later change of the same thing, nor twice; every other kind says why not.
The undo goes through the domain's own use case (its checks, its own audit row)."""

from __future__ import annotations

from sqlmodel import Session, select

from app.accounts.models import User
from app.audit.models import AuditEntry
from app.audit.service import later_change
from app.catalog.catalog import Catalog
from app.core.db import utcnow
from app.core.errors import N_, DomainError, Msg
from app.events import service as events
from app.gold import service as gold
from app.maps import service as maps
from app.visibility import require_gm, require_writable, viewer_for

UNDOABLE = ("gold_adjusted", "place_edited", "event_edited")
# Why a kind is never undone here (shown on the audit page and in the 409).
WHY_NOT = {
    "phase_changed": N_("a phase change moves the whole round on; use the round's own buttons"),
    "round_ended": N_("the round's captures, income and new round cannot be taken back"),
    "result_decided": N_("settlements and Twilight follow from a result; decide it again instead"),
    "reward_given": N_("the reward may already be in a warband; take it out of the company instead"),
    "order_undone": N_("the player sends the warband again"),
    "settlement_reopened": N_("the player closes the settlement again"),
    "place_added": N_("a place added (one, from a list or a ready map) is removed with Delete on the map"),
}
OTHER = N_("this kind of change is not undone from the trail")


def blocker(session: Session, entry: AuditEntry) -> DomainError | None:
    """Why this change cannot be undone now, or None."""
    if entry.undone_at is not None:
        return DomainError("undo_done")
    if entry.action not in UNDOABLE:
        return DomainError("undo_unsafe", reason=Msg(WHY_NOT.get(entry.action, OTHER)))
    if later_change(session, entry):
        return DomainError("undo_later_change")
    return None


def _target_id(entry: AuditEntry) -> int:
    return int(entry.target.split(":", 1)[1])


def undo(session: Session, *, actor: User, campaign_id: int, entry_id: int, catalog: Catalog) -> AuditEntry:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    entry = session.exec(
        select(AuditEntry).where(AuditEntry.id == entry_id, AuditEntry.campaign_id == campaign_id).with_for_update()
    ).first()
    if entry is None:
        raise DomainError("not_found")
    refused = blocker(session, entry)
    if refused is not None:
        raise refused
    entry.undone_at = utcnow()
    session.add(entry)
    session.flush()
    if entry.action == "gold_adjusted":
        after = entry.after or {}
        gold.adjust(
            session,
            actor=actor,
            campaign_id=campaign_id,
            player_id=_target_id(entry),
            amount=-int(after["amount"]),
            reason=f"↺ {after.get('reason', '')}".strip(),
        )
    elif entry.action == "place_edited":
        maps.update_place(
            session, actor=actor, campaign_id=campaign_id, place_id=_target_id(entry), changes=dict(entry.before or {})
        )
    else:
        events.update_event(
            session,
            actor=actor,
            campaign_id=campaign_id,
            event_id=_target_id(entry),
            changes=dict(entry.before or {}),
            catalog=catalog,
        )
    # The undo wrote its own row (the same thing changed again); it is itself the undone change's
    # reversal, so it does not block undoing what came before.
    for row in session.exec(
        select(AuditEntry).where(
            AuditEntry.campaign_id == campaign_id, AuditEntry.target == entry.target, AuditEntry.id > entry.id
        )
    ).all():
        if row.undone_at is None and row.action == entry.action:
            row.undone_at = entry.undone_at
            row.after = {**(row.after or {}), "undoes": entry.id}
            session.add(row)
    return entry

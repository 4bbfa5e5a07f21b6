"""The audit trail in a campaign document (R12.9: the export carries it). Each row as the
trail keeps it — when, who (a nickname), what, on what, before and after — with every id it
names (its target `kind:id`, and the ids inside before and after) written as the number of
that row in the document, and read back into the new rows' ids. A row naming a row the
document leaves out (a secret warband in the GM's copy) names none."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from app.accounts.models import User
from app.audit.models import AuditEntry
from app.audit.service import ACTIONS, plain
from app.campaigns.models import Campaign
from app.core.errors import DomainError

# Target kinds and ids inside before/after, and the document part their numbers are of.
TARGETS = {"place": "places", "event": "events", "player": "players", "battle": "battles", "warband": "warbands"}
INSIDE = {"parent_id": "places", "place_id": "places", "event_id": "events", "battle_id": "battles"}
Look = Callable[[str, int], "int | None"]


def _target(target: str, look: Look, out: bool) -> str:
    kind, _, rest = target.partition(":")
    if kind == "user":
        return "user:"  # an account's id means nothing elsewhere; the nickname is in before/after
    if kind not in TARGETS:
        return target  # "round:3"
    number = rest.removeprefix("#") if not out else rest
    found = look(TARGETS[kind], int(number)) if number.isdigit() else None
    if found is None:
        return f"{kind}:"
    return f"{kind}:#{found}" if out else f"{kind}:{found}"


def _ids(data: dict | None, look: Look) -> dict | None:
    if data is None:
        return None
    return {
        k: (look(INSIDE[k], v) if k in INSIDE and isinstance(v, int) and not isinstance(v, bool) else v) for k, v in data.items()
    }


def write(session: Session, campaign_id: int, look: Look) -> list[dict]:
    rows = session.exec(
        select(AuditEntry, User.nickname)
        .outerjoin(User, User.id == AuditEntry.actor_user_id)
        .where(AuditEntry.campaign_id == campaign_id)
        .order_by(col(AuditEntry.id))
    ).all()
    return [
        {
            "at": plain(e.at),
            "actor": nick,
            "action": e.action,
            "target": _target(e.target, look, out=True),
            "before": _ids(e.before, look),
            "after": _ids(e.after, look),
            "undone_at": plain(e.undone_at),
        }
        for e, nick in rows
    ]


def _moment(value: Any, n: int, field: str, optional: bool = False) -> datetime | None:
    if value is None and optional:
        return None
    try:
        return datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise DomainError("import_row_invalid", part="audit", row=n, field=field) from None


def read(session: Session, campaign: Campaign, rows: Any, look: Look, actor: User) -> None:
    """The document's trail into the new campaign: a row's GM is the importer where the
    nickname is theirs, else nobody (another server's accounts are not this one's)."""
    if not isinstance(rows, list):
        raise DomainError("import_part_invalid", part="audit")
    for n, row in enumerate(rows, 1):
        ok = isinstance(row, dict) and row.get("action") in ACTIONS and isinstance(row.get("target"), str)
        if not ok or len(row["target"]) > 120 or not all(isinstance(row.get(k), dict | None) for k in ("before", "after")):
            raise DomainError("import_row_invalid", part="audit", row=n, field="action")
        session.add(
            AuditEntry(
                campaign_id=campaign.id,
                actor_user_id=actor.id if row.get("actor") == actor.nickname else None,
                at=_moment(row.get("at"), n, "at"),
                action=row["action"],
                target=_target(row["target"], look, out=False),
                before=_ids(row.get("before"), look),
                after=_ids(row.get("after"), look),
                undone_at=_moment(row.get("undone_at"), n, "undone_at", optional=True),
            )
        )

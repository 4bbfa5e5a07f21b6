"""The chronicle: a public, paginated log (R11.1). Only public facts are written here."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import bindparam, insert
from sqlmodel import Session, col, select

from app.campaigns.models import Campaign
from app.chronicle.models import ChronicleEntry
from app.core.db import utcnow
from app.core.pagination import Listing, Page, paginate
from app.core.ports import Port
from app.visibility import Viewer

# Who hears each new entry, inside the writer's transaction (the webhooks' outbox, issue 19), so
# that a rolled-back change tells nobody: a port, wired in app/wiring.py. Entries written in
# bulk come unsaved, without ids.
Listener = Callable[[Session, Campaign, list[ChronicleEntry]], None]
listeners = Port[Listener]("chronicle listeners")


def _tell(session: Session, campaign: Campaign, entries: list[ChronicleEntry]) -> None:
    for listener in listeners():
        listener(session, campaign, entries)


def record(session: Session, campaign: Campaign, kind: str, **params) -> ChronicleEntry:
    entry = ChronicleEntry(campaign_id=campaign.id, round=campaign.round, phase=campaign.phase, kind=kind, params=params)
    session.add(entry)
    _tell(session, campaign, [entry])
    return entry


def record_many(session: Session, campaign: Campaign, entries: list[tuple[str, dict]]) -> None:
    """Many entries in one statement (announcing hundreds of battles)."""
    if entries:
        rows = [
            {
                "campaign_id": campaign.id,
                "round": campaign.round,
                "phase": campaign.phase,
                "kind": kind,
                "params": params,
                "created_at": utcnow(),
            }
            for kind, params in entries
        ]
        session.execute(insert(ChronicleEntry), rows)
        if listeners():
            _tell(session, campaign, [ChronicleEntry(**row) for row in rows])


_ENTRIES = Listing(
    select(ChronicleEntry).where(ChronicleEntry.campaign_id == bindparam("campaign_id")).order_by(col(ChronicleEntry.id).desc())
)


def list_entries(session: Session, viewer: Viewer, *, page: int = 1, per_page: int = 50, rows: bool = False) -> Page:
    """The campaign's public log as a member reads it (R11.1), newest first; `rows`: as
    `paginate`'s, for the page."""
    return paginate(session, _ENTRIES, page=page, per_page=per_page, params={"campaign_id": viewer.campaign.id}, rows=rows)

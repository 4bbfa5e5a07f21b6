"""Publishing what happened (R11.4): services call `publish` in their transaction; the events
are written, and the streams woken, only when it commits."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import event, func, insert, text
from sqlmodel import Session, delete, select

from app.core.db import utcnow
from app.core.live import LOCK_SPACE, campaign_key, wake_after_commit
from app.live.models import LiveEvent

KINDS = ("phase", "battles", "result", "clock", "settlement", "letter", "transfer", "guild", "alliance", "twilight")
RETENTION = timedelta(days=7)
PRUNE_EVERY = 500


def publish(session: Session, campaign_id: int, kind: str, *, subject_id: int | None = None,
            actor_user_id: int | None = None, **data) -> None:
    """Tell the campaign's open streams, once this transaction commits, that `kind` happened
    to `subject_id`. `data` must be public (it is stored and read back for every viewer)."""
    assert kind in KINDS, kind
    session.info.setdefault("live_pending", []).append(
        {"campaign_id": campaign_id, "kind": kind, "subject_id": subject_id, "actor_user_id": actor_user_id,
         "data": data})


@event.listens_for(Session, "after_rollback")
def _drop_pending(session: Session) -> None:
    """A rolled-back change tells nothing (a confirm page runs the action, then rolls it back)."""
    session.info.pop("live_pending", None)


@event.listens_for(Session, "before_commit")
def _write_pending(session: Session) -> None:
    pending = session.info.pop("live_pending", None)
    if not pending:
        return
    campaigns = sorted({row["campaign_id"] for row in pending})
    if session.get_bind().dialect.name == "postgresql":
        # Held to the commit, so that the campaign's events get their ids in commit order (a
        # stream that has read id N never later meets a smaller new one). Taken last, when this
        # transaction holds what it needs: it cannot wait in a cycle.
        for cid in campaigns:
            session.execute(text("SELECT pg_advisory_xact_lock(:space, :cid)"), {"space": LOCK_SPACE, "cid": cid})
    stamp = utcnow()
    session.execute(insert(LiveEvent), [{**row, "created_at": stamp} for row in pending])
    wake_after_commit(session, {campaign_key(cid) for cid in campaigns})
    last = session.execute(select(func.max(LiveEvent.id))).scalar() or 0
    if last % PRUNE_EVERY < len(pending):
        session.execute(delete(LiveEvent).where(LiveEvent.created_at < utcnow() - RETENTION))


def moment(milliseconds: int) -> datetime:
    """A page's drawing time. What was stamped before it, the page shows (events are stamped
    as their transaction commits): replaying it would only fetch the page again, after every
    form a user sends."""
    return datetime.fromtimestamp(milliseconds / 1000, UTC)


def cursor(session: Session, campaign_id: int, *, before: datetime | None = None) -> int:
    """The campaign's last event id (of those stamped before `before`)."""
    query = select(func.max(LiveEvent.id)).where(LiveEvent.campaign_id == campaign_id)
    if before is not None:
        query = query.where(LiveEvent.created_at <= before)
    return session.exec(query).one() or 0


def latest(session: Session, campaign_id: int, limit: int) -> list[LiveEvent]:
    return list(session.exec(select(LiveEvent).where(LiveEvent.campaign_id == campaign_id)
                             .order_by(LiveEvent.id.desc()).limit(limit)).all())


def known(session: Session, campaign_id: int, event_id: int) -> bool:
    return session.exec(select(LiveEvent.id).where(LiveEvent.campaign_id == campaign_id, LiveEvent.id == event_id)).first() is not None


def after(session: Session, campaign_id: int, event_id: int, limit: int) -> list[LiveEvent]:
    """Up to `limit` events of the campaign after `event_id`, oldest first."""
    return list(session.exec(select(LiveEvent).where(LiveEvent.campaign_id == campaign_id, LiveEvent.id > event_id)
                             .order_by(LiveEvent.id).limit(limit)).all())

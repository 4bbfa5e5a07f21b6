"""Publishing what happened (R11.4): services call `publish` in their transaction; the events
are written, and the streams woken, only when it commits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache

from sqlalchemy import bindparam, event, func, insert, text, union_all
from sqlmodel import Session, col, delete, select

from app.core import commit_steps
from app.core.db import read_rows, utcnow
from app.core.live import LOCK_SPACE, campaign_key, wake_after_commit
from app.core.page_head import HeadRead, kept_in_head
from app.live.models import LiveAudience, LiveEvent
from app.live.seen import audiences, viewer_audiences
from app.visibility import Viewer

# Events a stream reads at a time (app/live/api.py).
SCAN_BATCH = 200
KINDS = (
    "phase",
    "battles",
    "result",
    "clock",
    "settlement",
    "letter",
    "transfer",
    "guild",
    "alliance",
    "twilight",
    "order",
    "ransom",
)
RETENTION = timedelta(days=7)
PRUNE_EVERY = 500


def publish(
    session: Session, campaign_id: int, kind: str, *, subject_id: int | None = None, actor_user_id: int | None = None, **data
) -> None:
    """Tell the campaign's open streams, once this transaction commits, that `kind` happened
    to `subject_id`. `data` must be public (it is stored and read back for every viewer)."""
    assert kind in KINDS, kind
    session.info.setdefault("live_pending", []).append(
        {"campaign_id": campaign_id, "kind": kind, "subject_id": subject_id, "actor_user_id": actor_user_id, "data": data}
    )


@event.listens_for(Session, "after_rollback")
def _drop_pending(session: Session) -> None:
    """A rolled-back change tells nothing (a confirm page runs the action, then rolls it back)."""
    session.info.pop("live_pending", None)


# What every change that publishes an event writes, built once (issue 37: built on each).
_ADVISORY_LOCK = text("SELECT pg_advisory_xact_lock(:space, :cid)")
_NEW_EVENTS = insert(LiveEvent).returning(LiveEvent.id, sort_by_parameter_order=True)
_NEW_AUDIENCES = insert(LiveAudience)
_LAST_EVENT = select(func.max(LiveEvent.id))


@commit_steps.before_commit(commit_steps.LIVE_EVENTS)
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
            session.execute(_ADVISORY_LOCK, {"space": LOCK_SPACE, "cid": cid})
    stamp = utcnow()
    ids = session.execute(_NEW_EVENTS, [{**row, "created_at": stamp} for row in pending]).scalars().all()
    heard = [
        {"event_id": event_id, "campaign_id": row["campaign_id"], "audience": name}
        for event_id, row, names in zip(ids, pending, audiences(session, pending), strict=True)
        for name in sorted(names)
    ]
    if heard:
        session.execute(_NEW_AUDIENCES, heard)
    wake_after_commit(session, {campaign_key(cid) for cid in campaigns})
    last = session.execute(_LAST_EVENT).scalar() or 0
    if last % PRUNE_EVERY < len(pending):
        old = select(LiveEvent.id).where(LiveEvent.created_at < utcnow() - RETENTION)
        session.execute(delete(LiveAudience).where(col(LiveAudience.event_id).in_(old)))
        session.execute(delete(LiveEvent).where(col(LiveEvent.id).in_(old)))


# The last moment a datetime holds (9999-12-31T23:59:59.999Z): a later `since` is refused (422).
MAX_MOMENT_MS = 253402300799999


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


def known(session: Session, campaign_id: int, event_id: int) -> bool:
    return (
        session.exec(select(LiveEvent.id).where(LiveEvent.campaign_id == campaign_id, LiveEvent.id == event_id)).first()
        is not None
    )


def after(session: Session, campaign_id: int, event_id: int, limit: int) -> list[LiveEvent]:
    """Up to `limit` events of the campaign after `event_id`, oldest first."""
    return list(
        session.exec(
            select(LiveEvent)
            .where(LiveEvent.campaign_id == campaign_id, LiveEvent.id > event_id)
            .order_by(LiveEvent.id)
            .limit(limit)
        ).all()
    )


def last_seen(session: Session, viewer: Viewer) -> int:
    """The newest kept event this viewer may see (0: none). A page resumes its stream from it
    (issue 27 item 7): it moves only with what the viewer is told, unlike the newest event id
    or the moment the page was drawn, so the page stays the same byte for byte while others
    write letters. One statement, one index seek per audience of the viewer: the work does not
    grow with the events hidden from them either (SPEC R11.2; reading back through them in
    batches made each page draw dearer after others wrote)."""
    read = _last_seen_read(viewer)
    return read_rows(session, read.statement, read.params).scalar() or 0


def page_last_seen(session: Session, viewer: Viewer) -> int:
    """`last_seen` for drawing a page, read with the rest of the page head."""
    return kept_in_head(session, viewer, _last_seen_read(viewer)) or 0


def head_read(viewer: Viewer) -> HeadRead | None:
    """What `page_last_seen` asks (app/core/page_head.py): a member's pages follow the stream."""
    return _last_seen_read(viewer) if viewer.is_member else None


def _last_seen_read(viewer: Viewer) -> HeadRead:
    names = viewer_audiences(viewer)
    params = {"campaign_id": viewer.campaign_id, **{f"a{i}": name for i, name in enumerate(names)}}
    return HeadRead("_live_last_seen", _last_seen_statement(len(names)), params)


@lru_cache(maxsize=8)
def _last_seen_statement(audiences: int):
    """`last_seen`'s statement for a viewer of this many audiences, built once (issue 37)."""
    newest = [
        select(func.max(LiveAudience.event_id).label("id")).where(
            LiveAudience.campaign_id == bindparam("campaign_id"), LiveAudience.audience == bindparam(f"a{i}")
        )
        for i in range(audiences)
    ]
    per_audience = union_all(*newest).subquery()
    return select(func.max(per_audience.c.id))


def seen_after(session: Session, viewer: Viewer, event_id: int, limit: int) -> int:
    """How many events after `event_id` this viewer may see, counted up to `limit` + 1 (issue 28
    item 9: the events hidden from them do not count towards a replay's limit, or the reload
    frame would tell how many letters others wrote). One statement that reads only the
    viewer's own audiences, at most `limit` + 1 events of them."""
    theirs = (
        select(LiveAudience.event_id)
        .where(
            LiveAudience.campaign_id == viewer.campaign_id,
            col(LiveAudience.audience).in_(viewer_audiences(viewer)),
            LiveAudience.event_id > event_id,
        )
        .distinct()
        .order_by(LiveAudience.event_id)
        .limit(limit + 1)
        .subquery()
    )
    return session.execute(select(func.count()).select_from(theirs)).scalar() or 0

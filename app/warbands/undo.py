"""Undoing an order before Battles (R4.4, R4.6, R5.5): the GM's undo and an event edit that
now refuses the order share it. The mercenary fee comes back through the ledger, and the owner
is told: live, and on their dashboard for the rest of the round (the live event is the record
the dashboard reads, so both say the same)."""

from __future__ import annotations

from sqlalchemy import bindparam, exists
from sqlmodel import Session, col, select

from app.campaigns.models import Campaign
from app.core.db import read_rows
from app.core.errors import N_
from app.core.page_head import HeadRead, kept_in_head
from app.gold import service as gold
from app.live import service as live
from app.live.models import LiveEvent
from app.visibility import Viewer
from app.warbands.models import Order, Warband

# Why an order was undone (the live event's `reason`): the GM's own undo, or what the event
# became (R5.5).
REASONS = ("gm", "blockade", "limit", "ended")
NOTICES_SHOWN = 20


def undo_order(
    session: Session,
    *,
    campaign: Campaign,
    order: Order,
    actor_user_id: int | None,
    reason: str,
    event_title: str | None = None,
    limit: int | None = None,
) -> None:
    assert reason in REASONS, reason
    warband = session.get(Warband, order.warband_id)
    name = warband.name if warband else ""
    if order.fee:
        gold.credit(
            session,
            campaign=campaign,
            player_id=order.player_id,
            amount=order.fee,
            kind="mercenary_fee",
            note=N_("Refund · %(warband)s"),
            params={"warband": name},
        )
    # Only the owner and the GM hear of it (live.seen.live_events_seen_by): an order is
    # theirs until Battles (R4.7).
    live.publish(
        session,
        campaign.id,
        "order",
        subject_id=order.player_id,
        actor_user_id=actor_user_id,
        player_id=order.player_id,
        round=order.round,
        warband_id=order.warband_id,
        warband=name,
        event=event_title,
        reason=reason,
        limit=limit,
        fee=order.fee,
    )
    session.delete(order)


def undone_this_round(session: Session, viewer: Viewer) -> list[dict]:
    """The player's orders undone this round, newest first, as their live events said (one
    statement, when any was undone; the events are kept RETENTION long, longer than a round
    is expected to last)."""
    read = head_read(viewer)
    if read is None or not kept_in_head(session, viewer, read):
        return []
    rows = read_rows(session, _UNDONE, read.params).scalars().all()
    return [dict(data) for data in rows if (data or {}).get("round") == viewer.campaign.round]


def head_read(viewer: Viewer) -> HeadRead | None:
    """Whether any of this player's orders was undone (app/core/page_head.py): few ever are, and
    a dashboard then skips `_UNDONE`."""
    if viewer.player is None or viewer.campaign.status != "running":
        return None
    return HeadRead("_orders_undone", _ANY_UNDONE, {"campaign_id": viewer.campaign_id, "player_id": viewer.player.id})


_WHERE_UNDONE = (
    LiveEvent.campaign_id == bindparam("campaign_id"),
    LiveEvent.kind == "order",
    LiveEvent.subject_id == bindparam("player_id"),
)
_ANY_UNDONE = select(exists().where(*_WHERE_UNDONE))
# Built once: a player's dashboard asks on every view (issue 37).
_UNDONE = select(LiveEvent.data).where(*_WHERE_UNDONE).order_by(col(LiveEvent.id).desc()).limit(NOTICES_SHOWN)

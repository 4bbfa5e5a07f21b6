"""Deadlines (issue 19): the GM sets when the current phase ends, members read it, and a new
phase clears it. The scheduler that acts at the deadline is in scheduler.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam
from sqlmodel import Session, delete, select

from app.accounts.models import User
from app.campaigns import rules as campaign_rules
from app.campaigns.models import Campaign
from app.chronicle import service as chronicle
from app.chronicle.texts import add_labels
from app.core.db import utcnow
from app.core.errors import DomainError, Msg, message_for
from app.core.page_head import HeadRead, kept_in_head
from app.live.service import publish
from app.season import rules
from app.season.models import PhaseDeadline
from app.visibility import Viewer, gm_viewer, kept, viewer_for

# The chronicle names the phase a deadline ends, in each reader's language.
add_labels(("deadline_phase",), campaign_rules.PHASE_NAMES)
DEFAULT_NEAR_MINUTES = 60


_ROW = select(PhaseDeadline).where(PhaseDeadline.campaign_id == bindparam("campaign_id"))


def row_of(session: Session, campaign_id: int) -> PhaseDeadline | None:
    return session.exec(_ROW, params={"campaign_id": campaign_id}).first()


_ID = select(PhaseDeadline.id).where(PhaseDeadline.campaign_id == bindparam("campaign_id"))


def _id_read(viewer: Viewer) -> HeadRead:
    return HeadRead("_deadline_id", _ID, {"campaign_id": viewer.campaign_id})


def head_read(viewer: Viewer) -> HeadRead | None:
    """What `page_deadline` asks, read with the rest of the page head (app/core/page_head.py)."""
    return _id_read(viewer) if viewer.campaign.status == "running" and viewer.is_member else None


def page_deadline(session: Session, viewer: Viewer) -> PhaseDeadline | None:
    """`deadline_of` for drawing a page: read once per request (kept on the viewer), as the
    head and the dashboard's panel both show it. Its id comes with the page head; a campaign
    with a deadline then reads its row."""

    def find() -> PhaseDeadline | None:
        if viewer.campaign.status != "running":
            return None
        found = kept_in_head(session, viewer, _id_read(viewer))
        return _if_current(session.get(PhaseDeadline, found) if found is not None else None, viewer.campaign)

    return kept(viewer, "_deadline", find)


def deadline_of(session: Session, campaign: Campaign) -> PhaseDeadline | None:
    """The deadline of the campaign's current phase, if any (one statement, only while running)."""
    if campaign.status != "running":
        return None
    return _if_current(row_of(session, campaign.id), campaign)


def _if_current(row: PhaseDeadline | None, campaign: Campaign) -> PhaseDeadline | None:
    """The row, if it is the deadline of the campaign's current phase (one left from another
    phase counts as none)."""
    if row is None or not rules.current(row.round, row.phase, campaign.status, campaign.round, campaign.phase):
        return None
    return row


@dataclass
class DeadlineView:
    viewer: Viewer
    deadline: PhaseDeadline | None

    def waiting_text(self, gettext) -> str | None:
        """Why the auto-advance waits, for the GM only (it may name who is late)."""
        d = self.deadline
        if d is None or not d.waiting_code or not self.viewer.is_gm:
            return None
        return waiting_message(d, gettext)

    def as_dict(self, gettext) -> dict:
        """API.md `deadline`: `ends_at` null when the phase has none."""
        c, d = self.viewer.campaign, self.deadline
        return {
            "round": c.round,
            "phase": c.phase,
            "ends_at": rules.iso(d.ends_at) if d else None,
            "auto_advance": bool(d and d.auto_advance),
            "waiting": self.waiting_text(gettext),
        }


def waiting_message(deadline: PhaseDeadline, gettext) -> str:
    stored = deadline.waiting_params or {}
    params = {k: Msg(v) if k in stored.get("msgs", ()) else v for k, v in (stored.get("params") or {}).items()}
    return message_for(deadline.waiting_code, params, gettext)


def read(session: Session, *, actor: User, campaign_id: int) -> DeadlineView:
    viewer = viewer_for(session, actor, campaign_id)
    return DeadlineView(viewer, deadline_of(session, viewer.campaign))


def set_deadline(
    session: Session,
    *,
    actor: User,
    campaign_id: int,
    ends_at: datetime,
    auto_advance: bool,
    now: datetime | None = None,
    near_minutes: int = DEFAULT_NEAR_MINUTES,
) -> DeadlineView:
    """The GM: the current phase ends at `ends_at`; with `auto_advance`, the round then moves
    on by itself. The chronicle tells everybody (and so the club's Discord)."""
    now = now or utcnow()
    viewer = gm_viewer(session, actor, campaign_id)
    campaign = viewer.campaign
    if campaign.status != "running":
        raise DomainError("not_running")
    ends_at = rules.check_deadline(ends_at, now)
    row = row_of(session, campaign.id)
    same = (
        row is not None
        and rules.current(row.round, row.phase, campaign.status, campaign.round, campaign.phase)
        and row.ends_at == ends_at
        and row.auto_advance == auto_advance
    )
    if same:
        return DeadlineView(viewer, row)  # a double tap says nothing twice
    if row is None:
        row = PhaseDeadline(campaign_id=campaign.id, round=campaign.round, phase=campaign.phase, ends_at=ends_at)
    else:
        row.version += 1
    row.round, row.phase, row.ends_at, row.auto_advance, row.set_by_user_id = (
        campaign.round,
        campaign.phase,
        ends_at,
        auto_advance,
        actor.id,
    )
    row.near_noted_at = rules.noted_at_setting(ends_at, now, near_minutes)
    row.waiting_code, row.waiting_params, row.waiting_since = None, {}, None
    session.add(row)
    chronicle.record(
        session,
        campaign,
        "deadline_set",
        deadline_phase=campaign.phase,
        ends_at=rules.iso(ends_at),
        at=rules.utc_text(ends_at),
        auto_advance=auto_advance,
    )
    # Open pages redraw their head (the time left) quietly.
    publish(session, campaign.id, "phase", actor_user_id=actor.id, step="deadline", round=campaign.round, phase=campaign.phase)
    session.flush()
    return DeadlineView(viewer, row)


def clear_deadline(session: Session, *, actor: User, campaign_id: int) -> bool:
    """The GM lifts the deadline; True when there was one to lift."""
    viewer = gm_viewer(session, actor, campaign_id)
    current = deadline_of(session, viewer.campaign)
    session.execute(delete(PhaseDeadline).where(PhaseDeadline.campaign_id == campaign_id))
    if current is not None:
        chronicle.record(session, viewer.campaign, "deadline_cleared", deadline_phase=current.phase)
        publish(
            session,
            campaign_id,
            "phase",
            actor_user_id=actor.id,
            step="deadline",
            round=viewer.campaign.round,
            phase=viewer.campaign.phase,
        )
    return current is not None


def note_waiting(deadline: PhaseDeadline, exc: DomainError, now: datetime) -> bool:
    """Keep why the auto-advance waits; False when that is what it already said (nothing to write)."""
    params = {k: v for k, v in exc.params.items() if isinstance(v, (str, int, float, bool)) or v is None}
    stored = {"params": params, "msgs": sorted(k for k, v in params.items() if isinstance(v, Msg))}
    if deadline.waiting_code == exc.code and deadline.waiting_params == stored:
        return False
    deadline.waiting_code, deadline.waiting_params = exc.code, stored
    deadline.waiting_since = deadline.waiting_since or now
    return True


def drop_deadline(session: Session, campaign: Campaign) -> None:
    """A new phase, or a new round, clears the deadline (the GM's switch and the auto-advance
    alike; rounds/steps.py calls it)."""
    session.execute(delete(PhaseDeadline).where(PhaseDeadline.campaign_id == campaign.id))

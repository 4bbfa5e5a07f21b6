"""The season's scheduler (issue 19): at a deadline with auto-advance the round moves on as the
GM's switch would; an hour before, the chronicle says the deadline is near; once a day the
digests go out. One pass is `tick`; the server runs it every few seconds in each worker and
`hideout tick` runs it from cron. Any number of them may run at once: the database decides
who acts, by a conditional UPDATE that only one transaction can match, in the transaction
that makes the change."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import structlog
from sqlalchemy import and_, or_, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.chronicle import service as chronicle
from app.core.db import unit_of_work, utcnow
from app.core.errors import DomainError
from app.rounds import service as rounds
from app.season import digest, rules, service
from app.season.models import PhaseDeadline

log = structlog.get_logger()


@dataclass
class Report:
    advanced: list[int] = field(default_factory=list)  # campaign ids
    waiting: list[int] = field(default_factory=list)
    near: list[int] = field(default_factory=list)
    digests: int = 0


@dataclass(frozen=True)
class Due:
    deadline_id: int
    campaign_id: int
    version: int
    ends_at: datetime
    auto_advance: bool
    near_noted: bool


def due(engine: Engine, now: datetime, near_minutes: int) -> list[Due]:
    """Deadlines with something to do now: reached with auto-advance on, or near and not yet
    said. A read, without locks: each is then claimed on its own."""
    soon = now + timedelta(minutes=near_minutes)
    with Session(engine) as session:
        rows = session.exec(
            select(
                PhaseDeadline.id,
                PhaseDeadline.campaign_id,
                PhaseDeadline.version,
                PhaseDeadline.ends_at,
                PhaseDeadline.auto_advance,
                PhaseDeadline.near_noted_at,
            )
            .join(Campaign, Campaign.id == PhaseDeadline.campaign_id)
            .where(
                Campaign.status == "running",
                PhaseDeadline.round == Campaign.round,
                PhaseDeadline.phase == Campaign.phase,
                or_(
                    and_(PhaseDeadline.auto_advance.is_(True), PhaseDeadline.ends_at <= now),
                    and_(PhaseDeadline.near_noted_at.is_(None), PhaseDeadline.ends_at > now, PhaseDeadline.ends_at <= soon),
                ),
            )
            .order_by(PhaseDeadline.ends_at, PhaseDeadline.id)
        ).all()
    return [Due(r[0], r[1], r[2], r[3], r[4], r[5] is not None) for r in rows]


def _locked_campaign(session: Session, campaign_id: int) -> Campaign | None:
    # The campaign first, then the deadline: the GM's switch takes them in this order too.
    return session.exec(select(Campaign).where(Campaign.id == campaign_id).with_for_update()).first()


def _claim(session: Session, d: Due, campaign: Campaign, *conditions, **values) -> bool:
    statement = (
        update(PhaseDeadline)
        .where(
            PhaseDeadline.id == d.deadline_id,
            PhaseDeadline.campaign_id == d.campaign_id,
            PhaseDeadline.version == d.version,
            PhaseDeadline.round == campaign.round,
            PhaseDeadline.phase == campaign.phase,
            *conditions,
        )
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return session.execute(statement).rowcount == 1


def advance(engine: Engine, d: Due, now: datetime, catalog: Callable) -> str:
    """'advanced', 'waiting' (a gate refused: the GM is told why) or 'taken' (another process
    got there first, or the GM changed the deadline meanwhile)."""
    try:
        with unit_of_work(engine, write=True) as session:
            campaign = _locked_campaign(session, d.campaign_id)
            if campaign is None or campaign.status != "running":
                return "taken"
            if not _claim(
                session,
                d,
                campaign,
                PhaseDeadline.auto_advance.is_(True),
                PhaseDeadline.ends_at <= now,
                version=PhaseDeadline.version + 1,
            ):
                return "taken"
            gm = session.get(User, campaign.gm_user_id)
            step = rules.advance_step(campaign.phase)
            if step is None:
                rounds.end_round(session, actor=gm, campaign_id=campaign.id, round_=campaign.round)
            else:
                rounds.set_phase(session, actor=gm, campaign_id=campaign.id, phase=step, catalog=catalog())
            return "advanced"
    except DomainError as exc:
        # Everything the attempt did is rolled back; what remains is to say why it waits.
        _waiting(engine, d, exc, now)
        return "waiting"


def _waiting(engine: Engine, d: Due, exc: DomainError, now: datetime) -> None:
    with unit_of_work(engine, write=True) as session:
        row = session.get(PhaseDeadline, d.deadline_id)
        if row is not None and row.version == d.version and service.note_waiting(row, exc, now):
            session.add(row)
            log.info("deadline_waits", campaign_id=d.campaign_id, code=exc.code)


def note_near(engine: Engine, d: Due, now: datetime, near_minutes: int) -> bool:
    with unit_of_work(engine, write=True) as session:
        campaign = _locked_campaign(session, d.campaign_id)
        if campaign is None or not _claim(
            session,
            d,
            campaign,
            PhaseDeadline.near_noted_at.is_(None),
            PhaseDeadline.ends_at > now,
            PhaseDeadline.ends_at <= now + timedelta(minutes=near_minutes),
            near_noted_at=now,
        ):
            return False
        chronicle.record(
            session,
            campaign,
            "deadline_near",
            deadline_phase=campaign.phase,
            ends_at=rules.iso(d.ends_at),
            at=rules.utc_text(d.ends_at),
            minutes=near_minutes,
        )
        return True


def tick(engine: Engine, settings, catalog: Callable, now: datetime | None = None) -> Report:
    """One pass of everything due at `now`. `catalog()` gives the catalog (announcing battles needs it)."""
    now = now or utcnow()
    report = Report()
    for d in due(engine, now, settings.deadline_near_minutes):
        if d.auto_advance and d.ends_at <= now:
            outcome = advance(engine, d, now, catalog)
            if outcome == "advanced":
                report.advanced.append(d.campaign_id)
            elif outcome == "waiting":
                report.waiting.append(d.campaign_id)
        elif not d.near_noted and note_near(engine, d, now, settings.deadline_near_minutes):
            report.near.append(d.campaign_id)
    report.digests = digest.send_due(engine, settings, now)
    return report


async def run(app) -> None:
    """The scheduler inside the server: one pass every few seconds, in a thread (the passes
    use the database and SMTP, which block)."""
    settings = app.state.settings
    while True:
        try:
            await asyncio.to_thread(tick, app.state.engine, settings, app.state.catalog.get)
        except (OperationalError, SQLAlchemyTimeoutError) as exc:  # the database went away: the next pass tries again
            log.warning("season_tick_failed", error=str(exc).splitlines()[0])
        except Exception:  # a pass that failed is tried again at the next; the loop must live on
            log.exception("season_tick_failed")
        await asyncio.sleep(settings.season_tick_seconds)

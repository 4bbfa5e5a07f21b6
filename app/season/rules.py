"""The season's timing, pure (issue 19): what a deadline may be, what the auto-advance does at
it, when the "deadline near" note and the day's digest are due. Every function takes the time
as `now`, so tests inject the clock and never sleep."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from app.campaigns.rules import next_phase
from app.core.errors import DomainError

MAX_AHEAD_DAYS = 366


def utc(moment: datetime) -> datetime:
    """An aware moment in UTC; a naive one is taken as UTC already (API.md: ISO 8601, UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def check_deadline(ends_at: datetime, now: datetime) -> datetime:
    """A deadline lies ahead, within a season's reach; returned in UTC to the second."""
    ends_at = utc(ends_at).replace(microsecond=0)
    if ends_at <= now:
        raise DomainError("deadline_past")
    if ends_at > now + timedelta(days=MAX_AHEAD_DAYS):
        raise DomainError("deadline_too_far", days=MAX_AHEAD_DAYS)
    return ends_at


def current(deadline_round: int, deadline_phase: str, status: str, round_: int, phase: str | None) -> bool:
    """A deadline counts only for the running round and phase it was set in."""
    return status == "running" and deadline_round == round_ and deadline_phase == phase


def advance_step(phase: str) -> str | None:
    """What the GM's switch does after `phase`: the next phase, or None for Twilight (End round)."""
    return next_phase(phase)


def near(ends_at: datetime, now: datetime, minutes: int) -> bool:
    """Within the last `minutes` before the deadline (not after it)."""
    return now < ends_at <= now + timedelta(minutes=minutes)


def noted_at_setting(ends_at: datetime, now: datetime, minutes: int) -> datetime | None:
    """A deadline set already inside the near window needs no second note: the one saying it
    was set says when."""
    return now if near(ends_at, now, minutes) else None


def digest_due(now: datetime, last_run_on: date | None, hour: int) -> bool:
    """Once a day (UTC), from the configured hour on."""
    return now.hour >= hour and (last_run_on is None or last_run_on < now.date())


def utc_text(moment: datetime) -> str:
    """The same moment for every reader and the chronicle (webhooks relay it as it is)."""
    return utc(moment).strftime("%Y-%m-%d %H:%M UTC")


def iso(moment: datetime) -> str:
    return utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_email(address: str) -> str:
    """Enough to catch a typo (one @, a dot in the domain, no spaces); the mail server says the rest."""
    address = address.strip()
    local, _, domain = address.rpartition("@")
    if not local or "." not in domain.strip(".") or any(c.isspace() or c in "<>,;\"" for c in address) or len(address) > 254:
        raise DomainError("email_invalid")
    return address

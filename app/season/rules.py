"""The season's timing, pure (issue 19): what a deadline may be, what the auto-advance does at
it, when the "deadline near" note and the day's digest are due. Every function takes the time
as `now`, so tests inject the clock and never sleep."""

from __future__ import annotations

import re
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
    if not local or "." not in domain.strip(".") or any(c.isspace() or c in '<>,;"' for c in address) or len(address) > 254:
        raise DomainError("email_invalid")
    return address


# --- the digest's double opt-in (issue 28) -------------------------------------------------------

CONFIRM_HOURS = 48
# Confirmation mails an hour, for one user and for one address (whoever asks).
MAILS_PER_HOUR = 3
_DOTS = re.compile(r"(?<=\w)[.\u3002\uff0e\uff61](?=\w)")
_AT = re.compile(r"(?<=\w)@(?=\w)")


def defang(text: str) -> str:
    """Words a user chose (a campaign's name, a nickname) as a plain-text mail shows them:
    never a link a mail program would draw — "evil.example" becomes "evil[.]example",
    "https://" becomes "https[:]//", "a@b.c" becomes "a[@]b[.]c"."""
    return _AT.sub("[@]", _DOTS.sub("[.]", text.replace("://", "[:]//")))


def may_send_confirmation(sent_by_user: int, sent_to_address: int) -> bool:
    """Within the hour's allowance for the user and for the address."""
    return sent_by_user < MAILS_PER_HOUR and sent_to_address < MAILS_PER_HOUR


def confirmation_live(sent_at: datetime | None, now: datetime) -> bool:
    return sent_at is not None and utc(sent_at) <= now < utc(sent_at) + timedelta(hours=CONFIRM_HOURS)


def same_address(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()

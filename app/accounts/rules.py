"""Pure account rules."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.core.errors import DomainError

NICKNAME_RE = re.compile(r"^[A-Za-z0-9ĄĆĘŁŃÓŚŹŻąćęłńóśźż._-]{3,32}$")
PASSWORD_MIN = 8
PASSWORD_MAX = 256


def nickname_key(nickname: str) -> str:
    return nickname.strip().lower()


def check_nickname(nickname: str) -> str:
    nickname = nickname.strip()
    if not NICKNAME_RE.match(nickname):
        raise DomainError("nickname_invalid")
    return nickname


def check_password(password: str) -> None:
    if len(password) < PASSWORD_MIN:
        raise DomainError("password_too_short", min=PASSWORD_MIN)
    if len(password) > PASSWORD_MAX:
        raise DomainError("password_too_long", max=PASSWORD_MAX)


# Sessions: a browser session ends after an idle period and after an absolute age; its
# last-seen time is written at most every SESSION_TOUCH, not on every request.
SESSION_TOUCH = timedelta(minutes=5)


def session_expired(*, created_at: datetime, last_seen_at: datetime, now: datetime, idle: timedelta, max_age: timedelta) -> bool:
    return now - last_seen_at >= idle or now - created_at >= max_age


def session_needs_touch(*, last_seen_at: datetime, now: datetime) -> bool:
    return now - last_seen_at >= SESSION_TOUCH


@dataclass(frozen=True)
class Throttle:
    """`free` failures may follow one another; from then on each failure makes the next
    attempt wait: `first_wait` after the `free`-th, doubling with every further failure,
    never more than `max_wait`. Nothing is locked: the wait always ends."""

    free: int
    first_wait: timedelta
    max_wait: timedelta


def throttle_wait(policy: Throttle, *, failures: int, last_failure: datetime | None, now: datetime) -> int:
    """Whole seconds still to wait before the next attempt (0: go ahead)."""
    if failures < policy.free or last_failure is None:
        return 0
    over = min(failures - policy.free, 30)
    wait = min(policy.max_wait, policy.first_wait * 2**over)
    remaining = (last_failure + wait - now).total_seconds()
    return max(0, math.ceil(remaining))

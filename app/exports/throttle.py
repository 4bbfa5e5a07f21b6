"""Imports per user and hour (issue 28). An import is the heaviest write a user can ask for
(a whole campaign, its images), and registration is open: each user may start
IMPORTS_PER_HOUR of them in any hour, then waits for the oldest to leave the window (429
`import_throttled` with Retry-After).

Counted in the database (`ImportStart`), as failed logins and confirmation mails are: the
deploy guide runs several server workers, and a count kept in one of them let a user start
the limit once per worker. A refused import still counts (service.import_campaign keeps the
row): checking a hostile document is the work the limit is there to bound."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.core.db import aware, saved_id, utcnow
from app.core.errors import DomainError, Duration
from app.exports.models import ImportStart

IMPORTS_PER_HOUR = 30
WINDOW = timedelta(hours=1)


def start(session: Session, user: User, *, now: datetime | None = None) -> None:
    """Counts one import by `user` in this request's transaction, or refuses it while their
    hour is full."""
    now = now or utcnow()
    since = now - WINDOW
    # The user's row first: two imports of one user at once (two workers) count one after the other.
    session.exec(select(User.id).where(User.id == user.id).with_for_update()).first()
    session.execute(delete(ImportStart).where(col(ImportStart.at) <= since))  # no longer counts for anyone (indexed)
    started, oldest = session.exec(
        select(func.count(), func.min(ImportStart.at)).where(ImportStart.user_id == user.id, ImportStart.at > since)
    ).one()
    if started >= IMPORTS_PER_HOUR:
        wait = (aware(oldest) + WINDOW - now).total_seconds()
        raise DomainError("import_throttled", wait=Duration(max(math.ceil(wait), 1)))
    session.add(ImportStart(user_id=saved_id(user.id), at=now))
    session.flush()

"""What a transaction writes last, just before it commits, in one order in every process.

The change counters (app/versions/service.py, app/versions/audience.py) take row locks and the
live events (app/live/service.py) an advisory lock: taken in one order everywhere, they cannot
wait in a cycle on PostgreSQL. As separate listeners their order was the order their modules
happened to be imported in, which differed between the server and the CLI's `tick`. A
savepoint's release is not the commit (SQLAlchemy 2.1 calls `before_commit` for it too): the
steps wait for the real one."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import event
from sqlmodel import Session

Step = Callable[[Session], None]
_STEPS: list[tuple[int, Step]] = []

# The ranks, lowest first.
COUNTERS = 10  # app/versions/service.py: a campaign's change counters
AUDIENCES = 20  # app/versions/audience.py: each audience's counters
LIVE_EVENTS = 30  # app/live/service.py: the advisory lock, taken last


def before_commit(rank: int) -> Callable[[Step], Step]:
    def register(step: Step) -> Step:
        _STEPS.append((rank, step))
        _STEPS.sort(key=lambda pair: pair[0])
        return step

    return register


@event.listens_for(Session, "before_commit")
def _run(session: Session) -> None:
    if session.in_nested_transaction():
        return
    for _rank, step in list(_STEPS):
        step(session)

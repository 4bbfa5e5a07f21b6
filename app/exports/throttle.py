"""Imports per user and hour (issue 28). An import is the heaviest write a user can ask for
(a whole campaign, its images), and registration is open: each user may start
IMPORTS_PER_HOUR of them in any hour, then waits for the oldest to leave the window (429
`import_throttled` with Retry-After). Counted in this server process: a server run with
several workers lets each of them count its own."""

from __future__ import annotations

import math
import threading
import time
from collections import deque

from app.accounts.models import User
from app.core.errors import DomainError, Duration

IMPORTS_PER_HOUR = 30
WINDOW_SECONDS = 3600.0


class ImportThrottle:
    def __init__(self, per_hour: int = IMPORTS_PER_HOUR, clock=time.monotonic) -> None:
        self.per_hour, self.clock = per_hour, clock
        self._lock = threading.Lock()
        self._started: dict[tuple, deque[float]] = {}

    def start(self, user: User) -> None:
        """Counts one import by `user`, or refuses it while their hour is full."""
        now = self.clock()
        # The account's creation time too: a user id can be given again after a deletion.
        key = (user.id, user.created_at)
        with self._lock:
            for other in [k for k, times in self._started.items() if times[-1] <= now - WINDOW_SECONDS]:
                del self._started[other]  # nothing left in their hour: forgotten
            times = self._started.setdefault(key, deque())
            while times and times[0] <= now - WINDOW_SECONDS:
                times.popleft()
            if len(times) >= self.per_hour:
                raise DomainError("import_throttled", wait=Duration(math.ceil(times[0] + WINDOW_SECONDS - now)))
            times.append(now)


def of(app) -> ImportThrottle:
    """The app's throttle (one per app, made on first use)."""
    throttle = getattr(app.state, "import_throttle", None)
    if throttle is None:
        throttle = app.state.import_throttle = ImportThrottle()
    return throttle

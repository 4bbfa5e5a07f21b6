"""Plumbing of the live stream (SPEC R11.4): who is waiting to hear about a campaign, and how
a committed change wakes them — in this process, and in other processes through PostgreSQL's
LISTEN/NOTIFY. What a stream then sends, and to whom, is decided in `app/live/`.

A wake carries only a key (`c:<campaign id>` or `u:<user id>`); the woken stream reads the
new events from the database and checks them against its viewer, so nothing secret ever
travels through the broker or NOTIFY.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import signal
import threading
from collections import defaultdict
from dataclasses import dataclass, field

import structlog
from sqlalchemy import Engine, event, text
from sqlmodel import Session

log = structlog.get_logger()
CHANNEL = "hideout_live"
# The first key of pg_advisory_xact_lock(int, int): our namespace of advisory locks.
LOCK_SPACE = 7391


def campaign_key(campaign_id: int) -> str:
    return f"c:{campaign_id}"


def user_key(user_id: int) -> str:
    return f"u:{user_id}"


@dataclass(eq=False)
class Subscriber:
    loop: asyncio.AbstractEventLoop
    keys: tuple[str, ...]
    user_id: int
    woken: asyncio.Event = field(default_factory=asyncio.Event)
    gone: bool = False

    async def wait(self, timeout: float) -> bool:
        """True when woken, False when `timeout` passed in silence."""
        try:
            # Not wait_for: on Python 3.11 it swallows a cancel that comes as the stream is woken.
            async with asyncio.timeout(timeout):
                await self.woken.wait()
        except TimeoutError:
            return False
        self.woken.clear()
        return True


class Broker:
    """The streams of this process, by key. Thread-safe: wakes come from request threads, the
    listener task and signal handlers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[Subscriber]] = defaultdict(set)
        self._per_user: dict[int, int] = defaultdict(int)
        self.closing = False
        self._listener: asyncio.Task | None = None

    def subscribe(self, keys: tuple[str, ...], user_id: int, cap: int) -> Subscriber | None:
        """A new subscriber, or None when this user already holds `cap` streams here."""
        sub = Subscriber(asyncio.get_running_loop(), keys, user_id)
        with self._lock:
            if self._per_user[user_id] >= cap:
                return None
            self._per_user[user_id] += 1
            for key in keys:
                self._subs[key].add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            if sub.gone:
                return
            sub.gone = True
            for key in sub.keys:
                self._subs[key].discard(sub)
                if not self._subs[key]:
                    del self._subs[key]
            self._per_user[sub.user_id] -= 1
            if self._per_user[sub.user_id] <= 0:
                del self._per_user[sub.user_id]

    def count(self, user_id: int | None = None) -> int:
        with self._lock:
            if user_id is not None:
                return self._per_user.get(user_id, 0)
            return sum(self._per_user.values())

    def wake(self, keys) -> None:
        with self._lock:
            subs = {s for key in keys for s in self._subs.get(key, ())}
        for sub in subs:
            _set_soon(sub)

    def close_all(self) -> None:
        """Server shutdown: every stream ends now instead of holding the shutdown up."""
        self.closing = True
        with self._lock:
            subs = {s for group in self._subs.values() for s in group}
        for sub in subs:
            _set_soon(sub)

    # --- PostgreSQL: one LISTEN connection per process ---------------------------------------

    def ensure_listener(self, engine: Engine) -> None:
        """Start this process's LISTEN task once (on the loop of the first stream)."""
        if engine.dialect.name != "postgresql":
            return
        if self._listener is not None and not self._listener.done():
            return
        # psycopg as the engine loaded it: a server on SQLite never loads the driver and its
        # libpq (about 10 MB of each worker, issue 37).
        driver = engine.dialect.loaded_dbapi
        conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._listener = asyncio.get_running_loop().create_task(self._listen(driver, conninfo))

    async def _listen(self, driver, conninfo: str) -> None:
        delay = 0.5
        while not self.closing:
            try:
                async with await driver.AsyncConnection.connect(conninfo, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    delay = 0.5
                    # After a reconnect a notification may have been missed: wake everyone,
                    # and each stream reads what it missed from the database.
                    self.wake(list(self._all_keys()))
                    async for note in conn.notifies():
                        self.wake(note.payload.split(","))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 — the database went away: retry, streams keep their heartbeats
                log.warning("live_listener_lost", error=str(exc))
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10)

    def _all_keys(self) -> list[str]:
        with self._lock:
            return list(self._subs)

    async def stop_listener(self) -> None:
        task = self._listener
        if task is not None and task.get_loop() is asyncio.get_running_loop():
            self._listener = None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _set_soon(sub: Subscriber) -> None:
    with contextlib.suppress(RuntimeError):  # the stream's loop is gone (tests, shutdown)
        sub.loop.call_soon_threadsafe(sub.woken.set)


broker = Broker()


# --- waking after commit ----------------------------------------------------------------------


def wake_after_commit(session: Session, keys) -> None:
    """Wake the streams of `keys` once this session's transaction commits (never on rollback).
    On PostgreSQL the NOTIFY is part of the transaction, so it also reaches other processes
    and is dropped with a rollback."""
    keys = set(keys)
    if not keys:
        return
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": ",".join(sorted(keys))})
    else:
        session.info.setdefault("live_keys", set()).update(keys)


@event.listens_for(Session, "after_commit")
def _after_commit(session) -> None:
    keys = session.info.pop("live_keys", None)
    if keys:
        broker.wake(keys)


@event.listens_for(Session, "after_rollback")
def _after_rollback(session) -> None:
    session.info.pop("live_keys", None)


# --- shutdown --------------------------------------------------------------------------------


def close_streams_on_exit() -> None:
    """Chain onto the server's SIGTERM/SIGINT handlers (uvicorn's, installed before the app
    starts): streams end at once, so a graceful shutdown does not wait for them."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        if getattr(previous, "_hideout_live", False):
            continue

        def handler(signum, frame, previous=previous):
            broker.close_all()
            if callable(previous):
                previous(signum, frame)
            elif previous == signal.SIG_DFL:
                raise KeyboardInterrupt if signum == signal.SIGINT else SystemExit(128 + signum)

        handler._hideout_live = True  # type: ignore[attr-defined]  # a mark that getsignal() hands back
        signal.signal(sig, handler)


# --- event ids on the wire ----------------------------------------------------------------------
# A stream skips the events its viewer may not see; plain ids would show the gaps (how many
# letters went by). Ids are sent through a keyed permutation of 64-bit numbers (a four-round
# Feistel network over HMAC-SHA256), so they look random and still come back exact.

_MASK = 0xFFFFFFFF
MAX_EVENT_ID = 2**31 - 1  # an INTEGER column


def _f(key: bytes, r: int, half: int) -> int:
    return int.from_bytes(hmac.new(key, f"{r}:{half}".encode(), hashlib.sha256).digest()[:4], "big")


def seal_id(key: bytes, n: int) -> str:
    left, right = (n >> 32) & _MASK, n & _MASK
    for r in range(4):
        left, right = right, left ^ _f(key, r, right)
    return f"{(left << 32) | right:016x}"


def open_id(key: bytes, sealed: str | None) -> int | None:
    """The id behind `sealed`, or None when it is not one of ours."""
    if not sealed or len(sealed) != 16:
        return None
    try:
        value = int(sealed, 16)
    except ValueError:
        return None
    left, right = value >> 32, value & _MASK
    for r in reversed(range(4)):
        left, right = right ^ _f(key, r, left), left
    n = (left << 32) | right
    return n if n <= MAX_EVENT_ID else None

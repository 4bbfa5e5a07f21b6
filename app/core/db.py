"""Engine, schema metadata and the unit of work (one transaction per request)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import stat
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, nullcontext
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, overload

import anyio
import structlog
from fastapi import Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel
from sqlalchemy import Table, create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, SQLModel
from starlette.responses import Response

from app.core import pg_alive
from app.core.errors import DomainError
from app.core.files import private_file

log = structlog.get_logger()

# Stable constraint names keep Alembic's batch mode on SQLite and PostgreSQL in step.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
# A writing unit of work: its connection's execution option and its session's info say so.
WRITING = "hideout_write"
# How long a request waits for a PostgreSQL connection before it answers 503.
DB_WAIT_SECONDS = 5


def utcnow() -> datetime:
    return datetime.now(UTC)


@overload
def aware(moment: datetime) -> datetime: ...
@overload
def aware(moment: None) -> None: ...
def aware(moment: datetime | None) -> datetime | None:
    """A stored moment with its zone: SQLite gives it back without one, and it was UTC."""
    return moment if moment is None or moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def columns_except(model: type[SQLModel], *left_out: str) -> list:
    """A table model's columns but `left_out`, for a read of rows that shows none of those."""
    return [c for c in table_of(model).c if c.name not in left_out]


def table_of(model: type[SQLModel]) -> Table:
    """A table model's table, for Core statements and its columns."""
    return model.__table__  # type: ignore[attr-defined]  # set by SQLModel's metaclass, unseen by type checkers


def saved_id(value: int | None) -> int:
    """A primary key of a row read from the database or flushed. SQLModel types every id
    `int | None` for the rows not saved yet; this says which ids are known to be there."""
    if value is None:
        raise RuntimeError("a row that was never saved has no id")
    return value


def make_engine(url: str, sqlite_synchronous: str = "FULL") -> Engine:
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    if url.startswith("sqlite"):
        database = make_url(url).database
        if database and database != ":memory:" and not database.startswith("file:"):
            # Created here, 0600, rather than by SQLite under the umask (0644: world-readable);
            # one made before is not rewritten to 0600 but loses the group's and others' bits.
            private_file(Path(database), tighten=False)
            tighten_sqlite_files(Path(database))
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        _tune_sqlite(engine, "NORMAL" if sqlite_synchronous == "NORMAL" else "FULL")
        return engine
    # A lost server (restart, pg_terminate_backend) costs no request once it is back: every
    # checkout looks whether the server ended the connection and opens another if so (without a
    # round trip: app/core/pg_alive.py), and only the connection is retried, never a
    # transaction. While it is away a request fails fast (connect_timeout, pool_timeout) and
    # answers 503 (app/main.py) instead of holding a worker.
    engine = create_engine(
        url,
        pool_size=10,
        max_overflow=20,
        pool_timeout=DB_WAIT_SECONDS,
        connect_args={"connect_timeout": DB_WAIT_SECONDS},
    )
    pg_alive.check_at_checkout(engine)
    return engine


def tighten_sqlite_files(database: Path) -> dict[str, str]:
    """Takes the group's and others' bits off a database made before issue 28 (0644 under the
    usual umask: every user of the host could read members' letters and password hashes), and
    off its -wal and -shm, which SQLite creates with the database's mode. The owner's bits are
    left as they are. Said once in the log, file by file; a file this process does not own
    cannot be changed by it and is a warning, not a server that will not start."""
    changed: dict[str, str] = {}
    for path in (database, database.with_name(database.name + "-wal"), database.with_name(database.name + "-shm")):
        try:
            old = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            continue
        if not old & 0o077:
            continue
        try:
            os.chmod(path, old & 0o700)
        except OSError as exc:  # not this process's file (EPERM), or a read-only disk
            log.warning("sqlite_file_readable_by_others", path=str(path), mode=oct(old), error=exc.strerror)
            continue
        changed[str(path)] = f"{oct(old)} -> {oct(old & 0o700)}"
    if changed:
        log.info("sqlite_files_made_private", changed=changed)
    return changed


def _tune_sqlite(engine: Engine, synchronous: str) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):
        # The driver's own transaction handling is switched off so that we can say
        # BEGIN IMMEDIATE for writes: two writers then queue instead of deadlocking.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        # FULL: an answered change survives a power cut too (issue 20: "the power strip kicked
        # out"); NORMAL survives a killed process but may lose the last commits to a power cut.
        cur.execute(f"PRAGMA synchronous={synchronous}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        if conn.get_execution_options().get(WRITING, False):
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # its "database is locked" is SQLAlchemy's error (503)
        else:
            # A deferred BEGIN takes no lock and cannot fail: straight to the driver, past the
            # statement machinery (about 10 µs of every read, issue 37).
            conn.connection.driver_connection.execute("BEGIN")


@event.listens_for(Session, "do_orm_execute")
def _locked_reads_are_fresh(state) -> None:
    """A row read FOR UPDATE is read again, whatever the session loaded of it before the lock
    (PostgreSQL, READ COMMITTED: another request may have committed in between). The ORM keeps
    an object it holds as first loaded unless told otherwise, and a page's login reads the
    campaign and the user's player before any use case locks them (issue 37)."""
    if state.is_select and state.statement._for_update_arg is not None:
        state.update_execution_options(populate_existing=True)


@contextmanager
def unit_of_work(engine: Engine, *, write: bool) -> Iterator[Session]:
    session = Session(engine, expire_on_commit=False)
    if write:
        session.info[WRITING] = True  # what this request reads it does not take from memory
        session.connection(execution_options={WRITING: True})
    try:
        yield session
        session.commit()
    except DomainError as exc:
        if exc.persist:
            session.commit()
        else:
            session.rollback()
        raise
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def read_rows(session: Session, statement, params: dict | None = None):
    """Rows of a small read (a page's counters) through the session's connection: past the
    ORM's statement and result handling, about 35 µs a statement less (issue 37). Changes the
    session holds are flushed first, as its own statements would."""
    session.flush()
    return session.connection().execute(statement, params or {})


# At most `Settings.session_slots` reading requests, and as many writing ones, hold a database
# session at once, per process. Each request needs a worker thread to open its session and
# another to run its route: without a cap, a crowd (issue 20: 200 members) fills every thread
# with requests waiting for a connection or for SQLite's write lock, and the request holding
# the lock never gets a thread to finish it. A small cap is also cheaper (issue 37): Python runs
# one thread at a time, and twelve requests drawing pages at once spent a third of their CPU
# handing the interpreter lock to each other (`python -m bench.slots`). Writes have slots of
# their own: a write waiting for the database's lock (another writer, an import, the CLI) uses
# no CPU and must not keep the pages waiting. SQLite lets one writer in at a time, so it has one
# write slot: a second writer would wait in SQLite's busy handler, which sleeps in steps of up
# to 100 ms, where the slot wakes the next writer as soon as the first has committed (a club
# night's writes: p95 about 1.4 s with two write slots). Both caps together stay below the
# thread pool (40) and the connection pool (15 on SQLite, 30 on PostgreSQL).
def _slots(app, write: bool) -> asyncio.Semaphore:
    """The app's reads' or writes' slots, one pair per event loop (a server has one; the test
    suite runs several)."""
    loop = asyncio.get_running_loop()
    per_loop = getattr(app.state, "slots_by_loop", None)
    if per_loop is None:
        per_loop = app.state.slots_by_loop = weakref.WeakKeyDictionary()
    if loop not in per_loop:
        per_loop[loop] = (asyncio.Semaphore(app.state.settings.session_slots), asyncio.Semaphore(write_slots(app)))
    return per_loop[loop][write]


def read_slot(app) -> asyncio.Semaphore:
    """A reading request's slot, for a read done before the route's (app/core/page_cache.py)."""
    return _slots(app, False)


def write_slots(app) -> int:
    """How many writing requests of one process hold a session at once: SQLite lets one writer in."""
    return 1 if app.state.engine.dialect.name == "sqlite" else app.state.settings.session_slots


# The request's unit of work while its route runs: a route that answers with a finished Response
# ends it in its own worker thread (`ended_in_route`), sparing the request the thread hop
# that ending it from the event loop costs (about 0.12 ms of CPU on this machine, a tenth of
# a small page: issue 37). Empty once ended.
_OPEN_WORK: ContextVar[list | None] = ContextVar("hideout_open_work", default=None)


# Set in a request's scope state while an outer layer holds its write slot for it (the
# one-tap layer, app/idempotency/middleware.py): its session then takes no second one.
WRITE_SLOT_HELD = "hideout_write_slot_held"


@asynccontextmanager
async def write_slot(scope) -> AsyncIterator[None]:
    """The request's write slot, taken before its session is: a key claimed for it (R11.6) is
    claimed only once the request is at the head of the queue of writes, so the claim's age
    counts the request's work, not its time in the queue (a queued request's claim looked
    abandoned to a retry, which then acted too)."""
    state = scope.setdefault("state", {})
    async with _slots(scope["app"], True):
        state[WRITE_SLOT_HELD] = True
        try:
            yield
        finally:
            state.pop(WRITE_SLOT_HELD, None)


@asynccontextmanager
async def request_session(request: Request) -> AsyncIterator[Session]:
    """The request's unit of work: committed when the route returns, rolled back on any error.
    A request waits for a slot here, holding no thread and no connection."""
    write = request.method in WRITE_METHODS
    held = write and request.scope.get("state", {}).get(WRITE_SLOT_HELD, False)
    async with nullcontext() if held else _slots(request.app, write):
        work = unit_of_work(request.app.state.engine, write=write)
        # A read's session opens no connection until its first statement: no thread for that.
        session = await run_in_threadpool(work.__enter__) if write else work.__enter__()
        open_work = [work]
        _OPEN_WORK.set(open_work)  # the route's thread runs in a copy of this context
        try:
            yield session
        except BaseException as exc:
            # Ended already (its commit raised in the route's thread): rolled back and closed.
            # Shielded, as FastAPI shields a dependency's ending: a cancelled request still
            # rolls back and gives its connection back.
            suppressed: bool | None = False
            if open_work:
                with anyio.CancelScope(shield=True):
                    suppressed = await run_in_threadpool(open_work.pop().__exit__, type(exc), exc, exc.__traceback__)
            if not suppressed:
                raise
        else:
            if open_work:
                with anyio.CancelScope(shield=True):
                    await run_in_threadpool(open_work.pop().__exit__, None, None, None)


async def get_session(request: Request) -> AsyncIterator[Session]:
    """FastAPI dependency: the request's unit of work (`request_session`)."""
    async with request_session(request) as session:
        yield session


# Database work an asynchronous dependency leaves to the route's own worker thread, done there
# before the route (the pages' login, app/accounts/deps.py): as a synchronous dependency it
# was a thread crossing of its own, a tenth of a page's CPU (issue 37).
_BEFORE_ROUTE: ContextVar[list[Callable[[], None]] | None] = ContextVar("hideout_before_route", default=None)


class InRoute:
    """A dependency's value worked out in the route's worker thread, first thing, before the
    route itself (`in_route`). A route's argument holding one receives the value; a holder
    kept elsewhere (inside a page's context) is read with `value`."""

    __slots__ = ("_done", "_value")

    def __init__(self) -> None:
        self._done = False
        self._value: Any = None

    @property
    def value(self) -> Any:
        if not self._done:
            raise RuntimeError("worked out in a synchronous route's thread: an async route cannot take it")
        return self._value

    def _work_out(self, work: Callable[[], Any]) -> None:
        self._value = work()
        self._done = True


def in_route(work: Callable[[], Any]) -> InRoute:
    """`work`'s value, worked out in the route's worker thread before the route (only synchronous
    routes, which `ended_in_route` wraps, do it). What it raises is the route's error, answered
    as if the route had raised it."""
    holder = InRoute()
    pending = _BEFORE_ROUTE.get()
    if pending is None:
        pending = []
        _BEFORE_ROUTE.set(pending)
    pending.append(functools.partial(holder._work_out, work))
    return holder


def ended_in_route(endpoint: Callable) -> Callable:
    """A synchronous route run in a worker thread by this wrapper, which FastAPI sees as
    asynchronous: what dependencies left to it (`in_route`) is worked out first, and its unit of
    work is committed and closed there as soon as it has answered with a Response, whose body is
    drawn already (a page, a redirect), or with an answer FastAPI serialises without the
    session (`_detached`). Any other answer (table rows, which serialising may still read
    through the session) and any exception leave the ending to `get_session`, as before.
    Issue 37: FastAPI validates a synchronous route's answer in a thread crossing of its own,
    and an asynchronous route's where it runs; with the ending, an API call made four crossings
    (its login, the route, the validation, the ending) and now makes two."""

    if getattr(endpoint, "ends_in_route", False):
        return endpoint  # the routers are the modules' own: a second app wraps them once only
    in_thread = _run_in_route(endpoint)

    @functools.wraps(endpoint)
    async def route(*args, **kwargs):
        return await run_in_threadpool(in_thread, args, kwargs)

    route.ends_in_route = True  # type: ignore[attr-defined]
    return route


def _run_in_route(endpoint: Callable) -> Callable[[tuple, dict], Any]:
    def in_thread(args: tuple, kwargs: dict) -> Any:
        pending = _BEFORE_ROUTE.get()
        while pending:
            pending.pop(0)()
        answer = endpoint(*args, **{k: v.value if isinstance(v, InRoute) else v for k, v in kwargs.items()})
        open_work = _OPEN_WORK.get()
        if open_work and (isinstance(answer, Response) or _detached(answer)):
            open_work.pop().__exit__(None, None, None)  # raises what a commit raises, ended either way
        return answer

    return in_thread


def prepared_in_route(endpoint: Callable, name: str, prepare: Callable[..., Any], signature: inspect.Signature) -> Callable:
    """`ended_in_route(endpoint)`, its argument `name` made by `await prepare(request, session,
    arguments)` with the request's unit of work (`request_session`) where FastAPI would have
    solved it as a dependency, FastAPI seeing `signature` (`request` and the rest). Issue 37:
    FastAPI's solving of a dependency and its session's, per request, cost a campaign page
    about a tenth of a millisecond, more than the work they did."""
    in_thread = _run_in_route(endpoint)

    async def route(request: Request, **arguments):
        async with request_session(request) as session:
            arguments[name] = await prepare(request, session, arguments)
            return await run_in_threadpool(in_thread, (), arguments)

    functools.update_wrapper(route, endpoint)
    route.__signature__ = signature  # type: ignore[attr-defined]  # what FastAPI reads, before `__wrapped__`
    route.ends_in_route = True  # type: ignore[attr-defined]
    return route


def _detached(answer: Any) -> bool:
    """Whether FastAPI serialises `answer` without the session: nothing, or plain models (not
    table rows, whose attributes a serialiser may load), alone or in a list."""
    items = answer if isinstance(answer, list) else (answer,)
    return all(item is None or (isinstance(item, BaseModel) and not isinstance(item, SQLModel)) for item in items)

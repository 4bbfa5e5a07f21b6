"""Issue 20 helpers: a database of a test's own on the PostgreSQL test server, and a small
threaded load driver that records what each request answered (the server process itself is
tests/load/servers.py)."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict
from sqlalchemy.engine import make_url

TEST_DB = os.environ.get("TEST_DATABASE_URL", "")
ON_POSTGRESQL = TEST_DB.startswith("postgresql")
# A test of SQLite's own file (its disk, its backup API), or one whose commands, servers or bench
# make an SQLite file of their own whatever TEST_DATABASE_URL says, runs once, in the SQLite run.
sqlite_run_only = pytest.mark.skipif(ON_POSTGRESQL, reason="works on an SQLite file of its own: the SQLite run covers it")


def admin_connect() -> psycopg.Connection:
    """The PostgreSQL test server's `postgres` database, for creating, dropping and cutting off others."""
    return psycopg.connect(**{**conninfo_to_dict(TEST_DB), "dbname": "postgres"}, autocommit=True)


@contextmanager
def own_postgres_database(tag: str) -> Iterator[str]:
    """A scratch database on TEST_DATABASE_URL's server for this test alone (the `test` database is
    shared); its URL, dropped afterwards whatever happened (even if a test cut it off)."""
    name = f"hideout_h20_{tag}_{os.getpid()}"
    with admin_connect() as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        db.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(TEST_DB).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin_connect() as db:
            db.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- load -----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """One request of the load: what was asked and what came back. `status` None: no answer
    (the server died under it, or was not listening) — it may or may not have happened."""

    kind: str
    target: object
    status: int | None
    body: dict | None = None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def failed(self) -> bool:
        return self.status is not None and not self.ok

    @property
    def unknown(self) -> bool:
        return self.status is None


@dataclass
class Actor:
    """One thread of the load and the outcomes of its requests, in order."""

    name: str
    step: Callable[[httpx.Client, Actor], None]
    outcomes: list[Outcome] = field(default_factory=list)
    state: dict = field(default_factory=dict)
    rng: random.Random = field(default_factory=random.Random)
    # Set by an unanswered request: the server is gone, and this actor's story ends there.
    done: bool = False

    def call(self, client: httpx.Client, kind: str, target, method: str, path: str, **kwargs) -> Outcome:
        try:
            r = client.request(method, path, **kwargs)
        except httpx.HTTPError:
            outcome = Outcome(kind, target, None)
            self.done = True
        else:
            body = r.json() if r.headers.get("content-type", "").startswith("application/json") else None
            outcome = Outcome(kind, target, r.status_code, body)
            # A server error is a failure of the test, not a refusal of the game.
            assert r.status_code < 500, f"{kind} {target}: {r.status_code} {r.text[:500]}"
        self.outcomes.append(outcome)
        return outcome


class Load:
    """Runs every actor's step in a loop, each in its own thread with its own connection, until
    stopped; an assertion in a thread is kept and raised by `stop`."""

    def __init__(self, base_url: str, actors: list[Actor]):
        self.base_url, self.actors = base_url, actors
        self._stop = threading.Event()
        self.errors: list[BaseException] = []
        self._threads = [threading.Thread(target=self._run, args=(a,), daemon=True) for a in actors]

    def _run(self, actor: Actor) -> None:
        # No retries: a request that the kill cut must be recorded as unanswered, not repeated.
        with httpx.Client(
            base_url=self.base_url, timeout=httpx.Timeout(10, connect=2), transport=httpx.HTTPTransport(retries=0)
        ) as client:
            try:
                while not self._stop.is_set() and not actor.done:
                    actor.step(client, actor)
            except BaseException as exc:  # kept for the test's thread
                self.errors.append(exc)

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def requests(self) -> int:
        return sum(len(a.outcomes) for a in self.actors)

    def wait_for(self, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.requests() < count:
            assert not self.errors, self.errors
            assert time.monotonic() < deadline, f"only {self.requests()} of {count} requests answered within {timeout} s"
            time.sleep(0.01)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=15)
            assert not t.is_alive(), "a load thread hung"
        if self.errors:
            raise self.errors[0]


def possible(initial, outcomes: list[Outcome], effect: Callable[[Outcome], object]) -> set:
    """The states a thing may be in after `outcomes` (in order): an answered success sets it,
    a refusal leaves it, an unanswered request may have set it or not."""
    states = {initial}
    for o in outcomes:
        if o.ok:
            states = {effect(o)}
        elif o.unknown:
            states = states | {effect(o)}
    return states

"""Issue 20 helpers: a `hideout serve` process that can be killed with SIGKILL (its whole process
group, workers included) and started again on the same database, a database of a test's own on
the PostgreSQL test server, and a small threaded load driver that records what each request
answered."""
from __future__ import annotations

import os
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.helpers import PASSWORD
from tests.load.test_live_shutdown import REPO, START_TIMEOUT, free_port, server_ready

TEST_DB = os.environ.get("TEST_DATABASE_URL", "")
ON_POSTGRESQL = TEST_DB.startswith("postgresql")
# A test of SQLite's own file (its disk, its backup API) runs once, in the SQLite run.
sqlite_run_only = pytest.mark.skipif(ON_POSTGRESQL, reason="tests SQLite's own file: the SQLite run covers it")


class HideoutProcess:
    """`hideout serve` in a session of its own, so that one killpg reaches the parent and every
    uvicorn worker — a power cut leaves no worker behind either. The port, secret key and
    database stay across restarts: tokens issued before a kill still work after it."""

    def __init__(self, tmp: Path, database_url: str, *, workers: int = 1, env: dict | None = None):
        self.tmp, self.workers, self.port = tmp, workers, free_port()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("HIDEOUT_") and k != "TEST_DATABASE_URL"}
        self.env.update(HIDEOUT_DATABASE_URL=database_url, HIDEOUT_VAR_DIR=str(tmp / "var"),
                        HIDEOUT_SECRET_KEY=secrets.token_urlsafe(32), HIDEOUT_FAST_HASHING="1", PYTHONUNBUFFERED="1",
                        **(env or {}))
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.log_path = tmp / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self) -> float:
        """Starts and waits until every worker answers; the seconds it took."""
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.starts += 1
        self.log_path = self.tmp / f"server-{self.port}-{self.starts}.log"
        started = time.monotonic()
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                                          "--workers", str(self.workers), "--no-demo"],
                                         cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = started + START_TIMEOUT
        while not self._ready():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.url} did not start (exit code {self.proc.poll()}):\n{self.log()[-4000:]}")
            time.sleep(0.05)
        return time.monotonic() - started

    def _ready(self) -> bool:
        return server_ready(self.url, self.log(), self.workers)

    def kill9(self) -> None:
        """SIGKILL to the whole group; returns once no process of it is left."""
        pgid = self.proc.pid  # start_new_session: the leader's pid is the group's id
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=5)
        deadline = time.monotonic() + 5
        while _group_alive(pgid):
            assert time.monotonic() < deadline, f"process group {pgid} outlived SIGKILL"
            time.sleep(0.02)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL to the group when it takes longer than uvicorn's own bound."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        if _group_alive(self.proc.pid):
            self.kill9()


def _group_alive(pgid: int) -> bool:
    """Whether a live (not zombie) process of group `pgid` remains."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


@contextmanager
def own_database(tag: str) -> Iterator[str]:
    """A database of this test's own on the PostgreSQL test server, dropped afterwards (the
    shared `test` database is left to the suite)."""
    base = make_url(TEST_DB)
    name = f"hideout_h20_{tag}_{os.getpid()}"
    admin = base.set(database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
        with httpx.Client(base_url=self.base_url, timeout=httpx.Timeout(10, connect=2),
                          transport=httpx.HTTPTransport(retries=0)) as client:
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


def api_user(client: httpx.Client, nickname: str) -> dict:
    r = client.post("/api/v1/users", json={"nickname": nickname, "password": PASSWORD})
    assert r.status_code == 201, r.text
    r = client.post("/api/v1/auth/tokens", json={"nickname": nickname, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}

"""Opens 200 live streams (40 players x 5 tabs) on one `hideout serve` worker, then times how
long a GM's phase change takes to reach every stream and how much server memory an open
stream costs. SQLite in a temporary folder, or a scratch database created (and dropped) on the
PostgreSQL server of --database-url.
Run: python -m bench.live_streams [--streams 200] [--database-url postgresql://...]"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
PASSWORD = "bench password"
START_TIMEOUT = 30.0
WAIT = 30.0  # for the streams to open, and for an event to reach them all


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {k: v.strip() for k, _, v in (line.partition(":") for line in lines)}


def rss_kib(pid: int) -> int:
    return int(proc_status(pid)["VmRSS"].split()[0])


def threads(pid: int) -> int:
    return int(proc_status(pid)["Threads"])


# --- the database and the server ---------------------------------------------------------------


class Scratch:
    """A PostgreSQL database of its own on the server of `url`, dropped at the end."""

    def __init__(self, url: str) -> None:
        from sqlalchemy.engine import make_url

        base = make_url(url.replace("postgresql+psycopg://", "postgresql://", 1))
        self.name = f"hideout_bench_live_{os.getpid()}"
        self.admin = base.render_as_string(hide_password=False)
        self.url = base.set(database=self.name).render_as_string(hide_password=False)

    def _run(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(sql)

    def create(self) -> str:
        self._run(f'DROP DATABASE IF EXISTS "{self.name}"')
        self._run(f'CREATE DATABASE "{self.name}"')
        return self.url

    def drop(self) -> None:
        self._run(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def start_server(database_url: str, tmp: Path) -> tuple[subprocess.Popen, str, Path]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIDEOUT_") and k != "TEST_DATABASE_URL"}
    env.update(
        HIDEOUT_DATABASE_URL=database_url,
        HIDEOUT_VAR_DIR=str(tmp / "var"),
        HIDEOUT_SECRET_KEY=secrets.token_urlsafe(32),
        HIDEOUT_FAST_HASHING="1",
        HIDEOUT_LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    log_path = tmp / "server.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "1", "--no-demo"],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            httpx.get(base + "/", timeout=2)
            return proc, base, log_path
        except httpx.HTTPError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise SystemExit(f"the server did not start:\n{log_path.read_text(errors='replace')[-3000:]}") from None
            time.sleep(0.1)


# --- a campaign over the API ---------------------------------------------------------------------


def login(http: httpx.Client, nickname: str) -> dict:
    assert http.post("/api/v1/users", json={"nickname": nickname, "password": PASSWORD}).status_code == 201
    r = http.post("/api/v1/auth/tokens", json={"nickname": nickname, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def build_campaign(base: str, players: int) -> tuple[dict, int, list[dict]]:
    """A running campaign in Preparation with `players` players, each holding a hideout."""
    with httpx.Client(base_url=base, timeout=30) as http:
        gm = login(http, "benchgm")
        r = http.post("/api/v1/campaigns", json={"name": "Live bench", "max_players": players}, headers=gm)
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        places = []
        for i in range(players):
            r = http.post(
                f"/api/v1/campaigns/{cid}/places",
                json={"name": f"Home {i}", "income": 3, "hideout_slot": True, "x": 10, "y": 10},
                headers=gm,
            )
            assert r.status_code == 201, r.text
            places.append(r.json()["id"])
        heads = []
        for i in range(players):
            h = login(http, f"tab{i}")
            assert http.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": f"tab{i}"}, headers=gm).status_code == 201
            assert http.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=h).status_code == 200
            heads.append(h)
        assert http.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm).status_code == 200
        for h, place in zip(heads, places):
            assert http.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": place}, headers=h).status_code == 201
        r = http.post(f"/api/v1/campaigns/{cid}/status", json={"status": "running"}, headers=gm)
        assert r.status_code == 200, r.text
        return gm, cid, heads


# --- the streams ----------------------------------------------------------------------------------


@dataclass
class Tally:
    """Which streams heard the phase change under way, and when."""

    expected: int
    phase: str = ""
    change: int = 0
    times: list[float] = field(default_factory=list)
    all_heard: asyncio.Event = field(default_factory=asyncio.Event)

    def expect(self, phase: str) -> None:
        self.phase, self.change, self.times = phase, self.change + 1, []
        self.all_heard.clear()

    def heard(self, phase: str, stream: Stream) -> None:
        if phase != self.phase or stream.change == self.change:
            return
        stream.change = self.change
        self.times.append(time.perf_counter())
        if len(self.times) == self.expected:
            self.all_heard.set()


@dataclass
class Stream:
    status: int | None = None
    change: int = 0
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    ended: asyncio.Event = field(default_factory=asyncio.Event)


async def read_stream(http: httpx.AsyncClient, url: str, headers: dict, stream: Stream, tally: Tally) -> None:
    try:
        async with http.stream("GET", url, headers=headers) as r:
            stream.status = r.status_code
            stream.opened.set()
            if r.status_code != 200:
                return
            kind = None
            async for line in r.aiter_lines():
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:") and kind == "phase":
                    tally.heard(json.loads(line[5:])["phase"], stream)
                elif line == "":
                    kind = None
    except (httpx.HTTPError, OSError):
        pass
    finally:
        stream.opened.set()
        stream.ended.set()


async def open_streams(http, url, heads, tally) -> tuple[list[Stream], list[asyncio.Task]]:
    streams = [Stream() for _ in heads]
    tasks = [asyncio.create_task(read_stream(http, url, h, s, tally)) for h, s in zip(heads, streams)]
    await asyncio.wait_for(asyncio.gather(*(s.opened.wait() for s in streams)), WAIT)
    return streams, tasks


@dataclass
class Change:
    answer: float  # the API call, ms
    first: float  # from the answer to the first stream, ms (negative: before the answer)
    last: float  # from the answer to the last stream, ms
    bystander: float  # another request sent with the answer, ms


async def timed_get(http, url: str) -> float:
    start = time.perf_counter()
    assert (await http.get(url)).status_code == 200
    return (time.perf_counter() - start) * 1000


async def change_phase(gm_http, cid: int, phase: str, tally: Tally, sample) -> Change:
    """One phase change; `sample` watches the server until every stream has heard it."""
    tally.expect(phase)
    start = time.perf_counter()
    r = await gm_http.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": phase})
    answered = time.perf_counter()
    assert r.status_code == 200, r.text
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample(stop))
    # Somebody else's request while the streams read the news: it queues for the same threads.
    bystander = asyncio.create_task(timed_get(gm_http, f"/api/v1/campaigns/{cid}"))
    await asyncio.wait_for(tally.all_heard.wait(), WAIT)
    stop.set()
    await sampler
    return Change(
        (answered - start) * 1000, (tally.times[0] - answered) * 1000, (tally.times[-1] - answered) * 1000, await bystander
    )


async def measure(
    base: str, proc: subprocess.Popen, gm: dict, cid: int, heads: list[dict], changes: int, scratch: Scratch | None
) -> dict:
    pid, url = proc.pid, f"/api/v1/campaigns/{cid}/stream"
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    peak = {"threads": threads(pid), "db": 0}
    pg = None
    if scratch:
        import psycopg

        pg = await psycopg.AsyncConnection.connect(scratch.admin, autocommit=True)

    async def sample(stop: asyncio.Event) -> None:
        # While the streams read the news: the server's threads, and its PostgreSQL connections.
        while not stop.is_set():
            peak["threads"] = max(peak["threads"], threads(pid))
            if pg is not None:
                cur = await pg.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (scratch.name,))
                peak["db"] = max(peak["db"], (await cur.fetchone())[0])
            await asyncio.sleep(0.005)

    async with (
        httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(30, read=None), limits=limits) as http,
        httpx.AsyncClient(base_url=base, timeout=30, headers=gm) as gm_http,
    ):
        # Warm-up: the GM's tabs hear one change (code paths, LISTEN connection, thread pool).
        warm = Tally(5)
        _, warm_tasks = await open_streams(http, url, [gm] * 5, warm)
        await change_phase(gm_http, cid, "orders", warm, sample)
        for t in warm_tasks:
            t.cancel()
        await asyncio.gather(*warm_tasks, return_exceptions=True)
        await asyncio.sleep(1.0)
        before = rss_kib(pid)

        tally = Tally(len(heads))
        start = time.perf_counter()
        streams, tasks = await open_streams(http, url, heads, tally)
        opened = time.perf_counter() - start
        refused = [s.status for s in streams if s.status != 200]
        tally.expected = len(streams) - len(refused)
        await asyncio.sleep(1.0)  # each stream's first read (what committed while it opened) is done
        after = rss_kib(pid)
        idle = statistics.median([await timed_get(gm_http, f"/api/v1/campaigns/{cid}") for _ in range(5)])

        peak["db"] = 0
        results, phase = [], "orders"
        for _ in range(changes):
            phase = "preparation" if phase == "orders" else "orders"
            results.append(await change_phase(gm_http, cid, phase, tally, sample))
            await asyncio.sleep(0.3)

        # Shutdown with every stream open: SIGTERM must end them at once.
        start = time.perf_counter()
        os.kill(pid, signal.SIGTERM)
        await asyncio.wait_for(asyncio.gather(*(s.ended.wait() for s in streams)), WAIT)
        streams_ended = time.perf_counter() - start
        await asyncio.to_thread(proc.wait, WAIT)
        exited = time.perf_counter() - start
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if pg is not None:
        await pg.close()
    return {
        "opened": opened,
        "refused": refused,
        "before": before,
        "after": after,
        "changes": results,
        "peak": peak,
        "idle": idle,
        "streams_ended": streams_ended,
        "exited": exited,
    }


# --- the report --------------------------------------------------------------------------------------


def report(label: str, n: int, players: int, tabs: int, m: dict) -> None:
    changes = m["changes"]
    last = [c.last for c in changes]
    per_stream = (m["after"] - m["before"]) / n
    print(f"live streams on one worker, {label}: {n} streams ({players} players x {tabs} tabs)")
    refused = f"refused: {len(m['refused'])}" + (f" (status {sorted(set(m['refused']))})" if m["refused"] else "")
    print(f"  opened in            {m['opened']:7.2f} s    {refused}")
    print(
        f"  server RSS           {m['before'] / 1024:7.1f} MiB before, {m['after'] / 1024:.1f} MiB with the streams"
        f" -> {per_stream:.0f} KiB per stream"
    )
    print(f"  phase change x{len(changes)}      API answer p50 {statistics.median(c.answer for c in changes):6.1f} ms")
    print(
        f"  all {n} received      p50 {statistics.median(last):6.1f} ms   max {max(last):6.1f} ms after the answer"
        f" (first stream p50 {statistics.median(c.first for c in changes):.1f} ms)"
    )
    print(
        f"  another request      p50 {statistics.median(c.bystander for c in changes):6.1f} ms during the fan-out"
        f" ({m['idle']:.1f} ms idle)"
    )
    db = f", PostgreSQL connections peak {m['peak']['db']}" if m["peak"]["db"] else ""
    print(f"  server threads peak  {m['peak']['threads']}{db}")
    print(f"  SIGTERM              streams ended in {m['streams_ended']:.2f} s, server exited in {m['exited']:.2f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.live_streams", description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--tabs", type=int, default=5, help="streams per player (the server allows 8)")
    parser.add_argument("--changes", type=int, default=5, help="phase changes timed")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_DATABASE_URL", ""),
        help="postgresql://... : a scratch database on that server (default: SQLite)",
    )
    args = parser.parse_args(argv)
    players = math.ceil(args.streams / args.tabs)
    if players > 40:
        parser.error("a campaign holds at most 40 players: raise --tabs")
    tmp = Path(tempfile.mkdtemp(prefix="hideout-live-bench-"))
    scratch = Scratch(args.database_url) if args.database_url.startswith("postgresql") else None
    database_url = scratch.create() if scratch else f"sqlite:///{tmp / 'bench.sqlite3'}"
    proc = None
    try:
        proc, base, log_path = start_server(database_url, tmp)
        gm, cid, heads = build_campaign(base, players)
        tabs = [h for h in heads for _ in range(args.tabs)][: args.streams]
        try:
            m = asyncio.run(measure(base, proc, gm, cid, tabs, args.changes, scratch))
        except BaseException:
            print(f"server log ({log_path}):\n{log_path.read_text(errors='replace')[-3000:]}", file=sys.stderr)
            raise
        report("PostgreSQL" if scratch else "SQLite", len(tabs), players, args.tabs, m)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if scratch:
            scratch.drop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Requests per second over the network with wrk (issue 37): the demo campaign's dashboard and
map as a logged-in player — drawn each time (a query parameter of its own per request, which
the page ignores), loaded again unchanged (drawn again) and revalidated (304, answered from
memory while nothing the viewer may see has changed: app/core/revalidation.py) — against a bare FastAPI route on the same
uvicorn (one worker each, eight connections), measured side by side in one run, once both
servers are warmed up alike: bare, the pages, bare again, so each page's share of the bare route's requests per second is a ratio of
neighbouring runs (timings on a shared machine are noisy; such ratios much less so).

Run: `python -m bench.wrk [--database sqlite|postgres|both] [--seconds 5] [--session-slots N]` (`make bench` runs
it when wrk is installed: `apt-get install wrk`). Goal: each page at least 5 % of the bare route.
The last column is the Hideout server's CPU per request over the page's run (from /proc).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psycopg
from sqlalchemy.engine import make_url
from sqlmodel import select

from app.campaigns.models import Campaign
from app.core.db import make_engine, unit_of_work
from app.core.migrate import upgrade
from app.demo import DEMO_NAME, DEMO_PASSWORD, DEMO_PLAYERS, create_demo
from app.wiring import wire
from bench.club_night import PG_ADMIN, database
from tests.load.servers import REPO, HideoutProcess, free_port

CONNECTIONS = 8
GOAL_SHARE = 0.05
WARM_UP = 2  # seconds of load before the measured runs
BARE_APP = "bench.bare_app:app"


def _demo(url: str) -> int:
    """The demo campaign in a new database; its id."""
    wire()
    upgrade(url)
    engine = make_engine(url)
    with unit_of_work(engine, write=True) as session:
        create_demo(session)
        cid = session.exec(select(Campaign.id).where(Campaign.name == DEMO_NAME)).one()
    engine.dispose()
    return cid


def _login(base: str) -> str:
    """The demo player's Cookie header."""
    with httpx.Client(base_url=base, timeout=30) as web:
        token = web.get("/login").text.split('name="csrf_token" value="')[1].split('"')[0]
        r = web.post("/login", data={"nickname": DEMO_PLAYERS[0], "password": DEMO_PASSWORD, "csrf_token": token})
        assert r.status_code == 303, r.text[:300]
        web.get("/")  # the login's flash message
        return "; ".join(f"{name}={value}" for name, value in web.cookies.items())


class BareServer:
    """uvicorn serving bench/bare_app.py: one worker, as `hideout serve` runs it."""

    def __init__(self, work: Path) -> None:
        self.port, self.log = free_port(), work / "bare.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> str:
        cmd = [sys.executable, "-m", "uvicorn", BARE_APP, "--port", str(self.port), "--log-level", "warning", "--no-access-log"]
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/bare", timeout=1).status_code == 200:
                    return url
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError(f"the bare server did not start: {self.log.read_text()[-2000:]}")

    def __exit__(self, *_exc) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


# Each request its own query parameter: the page is drawn every time.
DRAWN_SCRIPT = """counter = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, wrk.path .. "?bench=" .. counter)
end
"""


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user and system, every thread), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def requests_per_second(url: str, seconds: int, headers: dict[str, str] | None = None, script: Path | None = None) -> float:
    cmd = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{seconds}s", *(["-s", str(script)] if script else [])]
    for name, value in (headers or {}).items():
        cmd += ["-H", f"{name}: {value}"]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    assert non_2xx is None, f"{url} answered errors under wrk:\n{out}"
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def loaded(
    pid: int, url: str, seconds: int, headers: dict[str, str] | None = None, script: Path | None = None
) -> tuple[float, float]:
    """One wrk run: (requests/s, the CPU milliseconds a request of the server process `pid`)."""
    cpu = cpu_seconds(pid)
    rate = requests_per_second(url, seconds, headers, script)
    return rate, (cpu_seconds(pid) - cpu) / (rate * seconds) * 1000


def measure(kind: str, seconds: int, env: dict | None = None) -> list[tuple[str, float, float, float]]:
    """(page, its requests/s, its share of the bare route's, the server's CPU milliseconds a
    request) for one database. The CPU figure moves less with a busy host than the rate."""
    work = Path(tempfile.mkdtemp(prefix=f"hideout-wrk-{kind}-"))
    rows = []
    with database(kind, work, f"hideout_wrk_{os.getpid()}") as url, BareServer(work) as bare_url:
        cid = _demo(url)
        server = HideoutProcess(work, url, workers=1, env=env)
        server.start()
        try:
            cookie = _login(server.url)
            pages = {"dashboard": f"{server.url}/campaigns/{cid}", "map": f"{server.url}/campaigns/{cid}/map"}
            with httpx.Client(timeout=30, headers={"Cookie": cookie}) as web:
                etags = {name: web.get(page).headers["etag"] for name, page in pages.items()}
            drawn = work / "drawn.lua"
            drawn.write_text(DRAWN_SCRIPT)
            # Both servers warmed up alike before anything is measured: the Hideout server's
            # connections opened and their statements prepared (PostgreSQL), as a club's server
            # is after its first minutes, not only the bare route's.
            requests_per_second(bare_url + "/bare", WARM_UP)
            for page in pages.values():
                requests_per_second(page, WARM_UP, {"Cookie": cookie}, drawn)
            for name, page in pages.items():
                for label, extra, script in (
                    (f"{name}, drawn", {}, drawn),
                    (f"{name}, loaded again unchanged", {}, None),
                    (f"{name}, unchanged (304)", {"If-None-Match": etags[name]}, None),
                ):
                    before = requests_per_second(bare_url + "/bare", seconds)
                    rate, cpu_ms = loaded(server.proc.pid, page, seconds, {"Cookie": cookie, **extra}, script)
                    after = requests_per_second(bare_url + "/bare", seconds)
                    rows.append((label, rate, rate / ((before + after) / 2), cpu_ms))
        finally:
            server.stop()
    shutil.rmtree(work, ignore_errors=True)
    return rows


def _postgres_reachable() -> bool:
    try:
        psycopg.connect(make_url(PG_ADMIN).render_as_string(hide_password=False), connect_timeout=3).close()
    except psycopg.Error:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--session-slots", type=int, help="the server's HIDEOUT_SESSION_SLOTS (its default otherwise)")
    args = parser.parse_args(argv)
    env = {"HIDEOUT_SESSION_SLOTS": str(args.session_slots)} if args.session_slots else None
    if not shutil.which("wrk"):
        print("wrk is not installed here (apt-get install wrk): no requests-per-second table.")
        return 0
    kinds = ("sqlite", "postgres") if args.database == "both" else (args.database,)
    print(f"{'wrk -t1 -c8, one worker':<40} {'database':>9} {'req/s':>8} {'÷ bare':>8} {'CPU ms':>7}  goal ≥ {GOAL_SHARE:.0%}")
    for kind in kinds:
        if kind == "postgres" and not _postgres_reachable():
            print(f"PostgreSQL is not reachable at {PG_ADMIN}: its rows are skipped.")
            continue
        for label, rate, share, cpu_ms in measure(kind, args.seconds, env):
            flag = "" if share >= GOAL_SHARE else "  (below the goal)"
            print(f"{label:<40} {kind:>9} {rate:>8.0f} {share:>8.1%} {cpu_ms:>7.2f}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

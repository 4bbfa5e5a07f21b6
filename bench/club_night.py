"""Club night under load (issue 20, item 1): locust plays the members of a club against one real
`hideout serve` process, then the database is audited and the figures are printed.

The club sits at tables: each table has a GM, a league campaign (the GM moves it between
Preparation and Orders while the members shop, build warbands and send them) and a battle
campaign already in Battles (the members report and confirm their battle). Every member also
reads the dashboard, map and battle pages. The behaviour is tests/load/club_night_users.py.

After the run, the audit reads the database: every balance equals the sum of its ledger, every
purchase and sale that answered 2xx is in the company (or gone from it) exactly once with one
ledger entry, and nothing that did not answer 2xx left a trace.

Full form (200 members for 2 minutes, SQLite, then PostgreSQL with 2 workers; p95 goal 1 s):
    .venv/bin/python -m bench.club_night
    .venv/bin/python -m bench.club_night --database postgres --users 200 --seconds 120
The CI form is tests/load/test_club_night.py (fewer members, seconds).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.core.db import make_engine
from tests.load.servers import REPO, start_servers

PASSWORD = "club night password"
USERS_FILE = REPO / "tests" / "load" / "club_night_users.py"
PLAYERS_PER_TABLE = 19  # with its GM, a table of 20; a campaign holds up to 40
FIELDS = 6  # places a league's warbands may be sent to (one order per place and player)
STARTING_GOLD = 5000
P95_GOAL_MS = 1000
PG_ADMIN = os.environ.get("CLUB_NIGHT_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


# --- setting the club up through the API ---------------------------------------------------------


def _ok(r: httpx.Response, status: int = 200) -> dict:
    if r.status_code != status:
        raise RuntimeError(f"{r.request.method} {r.request.url} answered {r.status_code}: {r.text[:500]}")
    return r.json() if r.content else {}


def _account(api: httpx.Client, nickname: str) -> str:
    _ok(api.post("/api/v1/users", json={"nickname": nickname, "password": PASSWORD}), 201)
    return _ok(api.post("/api/v1/auth/tokens", json={"nickname": nickname, "password": PASSWORD}), 201)["token"]


def _company_with_band(api: httpx.Client, cid: int, h: dict) -> int:
    """Orcs, a Krusher and an Ax in a warband: what a member brings to the table. The warband's id."""
    _ok(api.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=h))
    ids = [
        _ok(api.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": f"orcs.{k}"}, headers=h), 201)["id"]
        for k in ("krusher", "ax")
    ]
    return _ok(api.post(f"/api/v1/campaigns/{cid}/warbands", json={"name": "Band 1", "model_ids": ids}, headers=h), 201)["id"]


def _each(fn, things: list) -> list:
    """`fn` over `things` a few at a time, as members do it from their own phones."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(fn, things))


def _campaign(api: httpx.Client, gm: dict, name: str, members: list[dict], fields: int, key: str) -> tuple[int, list[int]]:
    """A running campaign with `members` in their hideouts and `fields` places to fight over."""
    cid = _ok(
        api.post("/api/v1/campaigns", json={"name": name, "max_players": 40, "starting_gold": STARTING_GOLD}, headers=gm), 201
    )["id"]
    homes = [
        _ok(
            api.post(
                f"/api/v1/campaigns/{cid}/places",
                json={"name": f"Home {i}", "income": 3, "hideout_slot": True, "x": 5 + i % 10 * 9, "y": 5 + i // 10 * 9},
                headers=gm,
            ),
            201,
        )["id"]
        for i in range(len(members))
    ]
    spots = [
        _ok(
            api.post(
                f"/api/v1/campaigns/{cid}/places",
                json={"name": f"Field {i}", "income": 1, "hideout_slot": False, "x": 50 + i % 5 * 9, "y": 60 + i // 5 * 9},
                headers=gm,
            ),
            201,
        )["id"]
        for i in range(fields)
    ]

    def join(m):
        _ok(api.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": m["nickname"]}, headers=gm), 201)
        m[key] = _ok(api.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=m["h"]))["player_id"]

    _each(join, members)
    _ok(api.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm))
    _each(
        lambda mh: _ok(api.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": mh[1]}, headers=mh[0]["h"]), 201),
        list(zip(members, homes)),
    )
    _ok(api.post(f"/api/v1/campaigns/{cid}/status", json={"status": "running"}, headers=gm))
    return cid, spots


def _table(base_url: str, t: int, players: int) -> tuple[dict, list[dict]]:
    with httpx.Client(base_url=base_url, timeout=60) as api:
        gm_nick = f"gm{t}"
        gm = {"Authorization": f"Bearer {(gm_token := _account(api, gm_nick))}"}
        tokens = _each(lambda i: _account(api, f"t{t}m{i}"), list(range(players)))
        members = [
            {"nickname": f"t{t}m{i}", "token": tok, "h": {"Authorization": f"Bearer {tok}"}, "table": t}
            for i, tok in enumerate(tokens)
        ]
        league, fields = _campaign(api, gm, f"League {t}", members, FIELDS, "league_player_id")
        for m, band in zip(members, _each(lambda m: _company_with_band(api, league, m["h"]), members)):
            m["warbands"] = [band]
        # The night opens with Orders: members arrive and send the warband they brought.
        _ok(api.post(f"/api/v1/campaigns/{league}/phase", json={"phase": "orders"}, headers=gm))
        # The battle campaign: members paired on a field each, so every pair plays one battle.
        battle, spots = _campaign(api, gm, f"Battle night {t}", members, math.ceil(players / 2), "battle_player_id")
        _ok(api.post(f"/api/v1/campaigns/{battle}/phase", json={"phase": "orders"}, headers=gm))

        def send(im):
            band = _company_with_band(api, battle, im[1]["h"])
            _ok(
                api.put(
                    f"/api/v1/campaigns/{battle}/warbands/{band}/order", json={"place_id": spots[im[0] // 2]}, headers=im[1]["h"]
                )
            )

        _each(send, list(enumerate(members)))
        _ok(api.post(f"/api/v1/campaigns/{battle}/phase", json={"phase": "battles"}, headers=gm))
        of_player = {}
        page, pages = 1, 1
        while page <= pages:
            body = _ok(api.get(f"/api/v1/campaigns/{battle}/battles", params={"page": page}, headers=gm))
            pages, page = body["pages"], page + 1
            for b in body["items"]:
                pids = [p for side in b["sides"] for p in side["player_ids"]]
                for p in pids:
                    of_player[p] = (b["id"], pids)
        for m in members:
            bid, pids = of_player.get(m["battle_player_id"], (None, []))
            m["battle_id"] = bid
            m["opponent_id"] = next((p for p in pids if p != m["battle_player_id"]), None)
            m["reports"] = bool(pids) and pids[0] == m["battle_player_id"]
            del m["h"]
        return {"gm": gm_nick, "gm_token": gm_token, "league": league, "battle": battle, "fields": fields}, members


def setup_club(base_url: str, players: int, per_table: int = PLAYERS_PER_TABLE) -> dict:
    """The club's plan for the locust users: tables (GM, campaigns, fields) and members."""
    sizes = [per_table] * (players // per_table) + ([players % per_table] if players % per_table else [])
    if sizes and sizes[-1] < 2:  # a table needs two members for a battle
        sizes[-2:] = [sizes[-2] - 1, sizes[-1] + 1]
    with ThreadPoolExecutor(max_workers=min(4, len(sizes))) as pool:
        built = list(pool.map(lambda ts: _table(base_url, *ts), enumerate(sizes)))
    return {"password": PASSWORD, "tables": [t for t, _m in built], "players": [m for _t, ms in built for m in ms]}


# --- the audit ---------------------------------------------------------------------------------


@dataclass
class Holdings:
    models: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))  # player -> model ids
    items: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    entries: dict[tuple[int, str], int] = field(default_factory=Counter)  # (player, kind) -> ledger entries


def holdings(url: str) -> Holdings:
    engine = make_engine(url)
    h = Holdings()
    try:
        with engine.connect() as c:
            for pid, mid in c.execute(
                text("SELECT co.player_id, m.id FROM company_model m JOIN company co ON co.id = m.company_id")
            ):
                h.models[pid].add(mid)
            for pid, iid in c.execute(
                text("SELECT co.player_id, i.id FROM company_item i JOIN company co ON co.id = i.company_id")
            ):
                h.items[pid].add(iid)
            for pid, kind, n in c.execute(text("SELECT player_id, kind, COUNT(*) FROM ledger_entry GROUP BY player_id, kind")):
                h.entries[(pid, kind)] = n
    finally:
        engine.dispose()
    return h


def unbalanced(url: str) -> list[str]:
    """Players whose gold is not the sum of their ledger (R3.8)."""
    engine = make_engine(url)
    try:
        with engine.connect() as c:
            rows = c.execute(
                text(
                    "SELECT p.id, p.gold, COALESCE(SUM(l.amount), 0) FROM player p "
                    "LEFT JOIN ledger_entry l ON l.player_id = p.id GROUP BY p.id, p.gold"
                )
            ).all()
    finally:
        engine.dispose()
    return [f"player {pid}: gold {gold} but ledger sums to {total}" for pid, gold, total in rows if gold != total]


def audit(url: str, before: Holdings, actions_path: Path) -> tuple[list[str], dict]:
    """Problems found (empty when nothing was lost or doubled) and counts of what was done."""
    tried, answered = {}, {}
    for line in actions_path.read_text().splitlines():
        a = json.loads(line)
        (tried if a.get("tried") else answered)[a["action"]] = a
    # A purchase or sale whose answer never came (a connection reset, a client killed at the
    # end) may or may not have happened: either is fine, but only once, and with its ledger entry.
    unknown = [tried[a] for a in sorted(set(tried) - set(answered))] + [a for a in answered.values() if a["status"] <= 0]
    expected_models = {p: set(s) for p, s in before.models.items()}
    expected_items = {p: set(s) for p, s in before.items.items()}
    extra_entries: Counter = Counter()
    maybe_entries: Counter = Counter()
    maybe_rows: Counter = Counter()  # (player, label) -> rows an unknown purchase may have added
    maybe_gone: set = set()  # (label, id) an unknown sale may have removed
    done = Counter()
    for a in answered.values():
        ok = 200 <= a["status"] < 300
        done[(a["op"], "2xx" if ok else str(a["status"]) if a["status"] > 0 else "no answer")] += 1
        if not ok:
            continue
        holding = (expected_models if a["op"].endswith("model") else expected_items).setdefault(a["player"], set())
        if a["op"].startswith("buy"):
            holding.add(a["id"])
            extra_entries[(a["player"], "purchase")] += 1
        else:
            holding.discard(a["id"])
            if a["refund"]:
                extra_entries[(a["player"], "sale")] += 1
    for a in unknown:
        label = "models" if a["op"].endswith("model") else "items"
        if a["op"].startswith("buy"):
            maybe_rows[(a["player"], label)] += 1
            maybe_entries[(a["player"], "purchase")] += 1
        else:
            maybe_gone.add((label, a["id"]))
            maybe_entries[(a["player"], "sale")] += 1
    after = holdings(url)
    problems = unbalanced(url)
    for label, expected, found in (("models", expected_models, after.models), ("items", expected_items, after.items)):
        for pid in sorted(set(expected) | set(found)):
            lost = {i for i in expected.get(pid, set()) - found.get(pid, set()) if (label, i) not in maybe_gone}
            extra = found.get(pid, set()) - expected.get(pid, set())
            if lost:
                problems.append(f"player {pid}: {label} {sorted(lost)} answered 2xx but are not in the company")
            if len(extra) > maybe_rows[(pid, label)]:
                problems.append(f"player {pid}: {label} {sorted(extra)} are in the company but no 2xx answer put them there")
    for key in sorted(set(after.entries) | set(extra_entries) | set(before.entries)):
        if key[1] in ("purchase", "sale"):
            want = before.entries.get(key, 0) + extra_entries.get(key, 0)
            if not want <= after.entries.get(key, 0) <= want + maybe_entries[key]:
                problems.append(f"player {key[0]}: {after.entries.get(key, 0)} {key[1]} ledger entries, {want} expected")
    if unknown:
        done[("outcome unknown", "no answer")] = len(unknown)
    return problems, {f"{op} {status}": n for (op, status), n in sorted(done.items())}


# --- locust and the figures ----------------------------------------------------------------------


def run_locust(base_url: str, plan: dict, users: int, seconds: int, work: Path) -> tuple[Path, list]:
    """Locust headless against `base_url`; the action log and the request samples."""
    plan_path, actions, samples = work / "plan.json", work / "actions.jsonl", work / "samples.json"
    plan_path.write_text(json.dumps(plan))
    actions.write_text("")
    env = {
        **os.environ,
        "CLUB_NIGHT_PLAN": str(plan_path),
        "CLUB_NIGHT_ACTIONS": str(actions),
        "CLUB_NIGHT_SAMPLES": str(samples),
        "CLUB_NIGHT_GMS": str(len(plan["tables"])),
        "CLUB_NIGHT_SECONDS": str(seconds),
    }
    spawn_rate = max(5, users // 10)  # everybody in within ~10 s: phones waking up, not one burst
    # stop-timeout lets every member finish what they were doing: a purchase cut off mid-request
    # would leave the audit guessing.
    cmd = [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(USERS_FILE),
        "--headless",
        "--host",
        base_url,
        "-u",
        str(users),
        "-r",
        str(spawn_rate),
        "-t",
        f"{seconds}s",
        "--stop-timeout",
        "30",
        "--only-summary",
        "--exit-code-on-error",
        "0",
        "--loglevel",
        "INFO",
    ]
    out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=seconds + 120)
    (work / "locust.log").write_text(out.stdout + out.stderr)
    if out.returncode != 0 or not samples.exists():
        raise RuntimeError(f"locust failed ({out.returncode}):\n{out.stderr[-4000:]}")
    return actions, json.loads(samples.read_text())


def _pct(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, max(0, math.ceil(q * len(sorted_ms)) - 1))]


@dataclass
class Figures:
    seconds: float
    rows: list[dict]  # per route, then "All" last

    @property
    def total(self) -> dict:
        return self.rows[-1]

    def table(self) -> str:
        head = f"{'route':<58} {'reqs':>6} {'req/s':>6} {'p50':>6} {'p95':>6} {'p99':>6} {'4xx':>5} {'5xx':>4} {'conn':>4}"
        lines = [head, "-" * len(head)]
        for r in self.rows:
            lines.append(
                f"{r['route'][:58]:<58} {r['n']:>6} {r['rps']:>6.1f} {r['p50']:>6.0f} {r['p95']:>6.0f} "
                f"{r['p99']:>6.0f} {r['4xx']:>5} {r['5xx']:>4} {r['conn']:>4}"
            )
        lines.append("(times in ms; 4xx are the game's refusals, e.g. a closed shop or a warband already sent)")
        return "\n".join(lines)


def figures(samples: list, seconds: float) -> Figures:
    by_route: dict[str, list] = defaultdict(list)
    for method, name, status, ms in samples:
        route = name if name.startswith(method) else f"{method} {name}"
        by_route[route].append((status, ms))
        by_route["All"].append((status, ms))
    rows = []
    for route in sorted(by_route, key=lambda r: (r == "All", r)):
        got = by_route[route]
        times = sorted(ms for _s, ms in got)
        statuses = Counter(s // 100 if s else 0 for s, _ms in got)
        rows.append(
            {
                "route": route,
                "n": len(got),
                "rps": len(got) / seconds,
                "p50": _pct(times, 0.5),
                "p95": _pct(times, 0.95),
                "p99": _pct(times, 0.99),
                "4xx": statuses[4],
                "5xx": statuses[5],
                "conn": statuses[0],
                "4xx_codes": sorted({s for s, _ms in got if 400 <= s < 500}),
            }
        )
    return Figures(seconds, rows)


# --- databases and the whole night -------------------------------------------------------------


@contextmanager
def database(kind: str, work: Path, name: str, admin_url: str = PG_ADMIN):
    """An empty database of this run's own: a SQLite file, or a PostgreSQL database created and dropped here."""
    if kind == "sqlite":
        yield f"sqlite:///{work / 'club.sqlite3'}"
        return
    admin = make_url(admin_url)
    with psycopg.connect(admin.set(database="postgres").render_as_string(hide_password=False), autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        c.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin.set(database=name, drivername="postgresql+psycopg").render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin.set(database="postgres").render_as_string(hide_password=False), autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class Night:
    figures: Figures
    problems: list[str]
    done: dict
    server_errors_logged: int
    setup_seconds: float
    worker_rss_mb: float = 0.0


MEMORY_GOAL_MB = 150


def worker_rss_mb(group: int) -> float:
    """The resident memory of the largest process in the server's process group (with one
    worker, the server itself; with more, uvicorn's supervisor and its workers), in MB (Linux)."""
    largest = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != group:  # the process group, after the state and the parent
                continue
            status = (stat.parent / "status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        rss = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), "0")
        largest = max(largest, int(rss))
    return largest / 1024


def club_night(url: str, work: Path, *, users: int, seconds: int, workers: int = 1, pace: float = 1.0) -> Night:
    """Starts `hideout serve` on `url`, sets the club up, lets `users` locust users (one GM per
    table among them) play for `seconds`, stops the server and audits the database. `pace`: the
    members' time between taps as a share of a club's (tests/load/club_night_users.py)."""
    gms = math.ceil(users / (PLAYERS_PER_TABLE + 1))
    players = users - gms
    (server,) = start_servers(work, url, workers=workers)
    try:
        started = time.monotonic()
        plan = setup_club(server.url, players, per_table=math.ceil(players / gms)) | {"pace": pace}
        setup_seconds = time.monotonic() - started
        before = holdings(url)
        began = time.monotonic()
        actions, samples = run_locust(server.url, plan, users, seconds, work)
        elapsed = time.monotonic() - began
        rss_mb = worker_rss_mb(server.proc.pid)
    finally:
        server.stop()
    log = server.log()
    problems, done = audit(url, before, actions)
    # Rough but clear: a 5xx the server answered leaves a traceback in its log.
    return Night(figures(samples, min(elapsed, seconds)), problems, done, log.count("Traceback"), setup_seconds, rss_mb)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--workers", type=int, default=None, help="default: 1 on SQLite, 2 on PostgreSQL")
    parser.add_argument("--keep", type=Path, default=None, help="keep the server log, plan and samples in this folder")
    args = parser.parse_args(argv)
    failed = False
    for kind in ["sqlite", "postgres"] if args.database == "both" else [args.database]:
        workers = args.workers or (1 if kind == "sqlite" else 2)
        with tempfile.TemporaryDirectory(prefix="club-night-") as tmp:
            work = Path(tmp) if args.keep is None else args.keep / kind
            work.mkdir(parents=True, exist_ok=True)
            with database(kind, work, f"hideout_bench_club_night_{os.getpid()}") as url:
                night = club_night(url, work, users=args.users, seconds=args.seconds, workers=workers)
        total = night.figures.total
        print(
            f"\n== club night on {kind}, {workers} worker(s): {args.users} members for {args.seconds} s "
            f"(setup {night.setup_seconds:.0f} s) =="
        )
        print(night.figures.table())
        print("purchases and sales:", ", ".join(f"{k}: {v}" for k, v in night.done.items()))
        goal = total["p95"] < P95_GOAL_MS and total["5xx"] == 0 and total["conn"] == 0 and not night.problems
        print(
            f"audit: {'nothing lost or doubled, every balance equals its ledger' if not night.problems else night.problems[:20]}"
        )
        print(
            f"p95 {total['p95']:.0f} ms (goal < {P95_GOAL_MS} ms), 5xx {total['5xx']}, tracebacks in the log "
            f"{night.server_errors_logged}: {'goal met' if goal else 'GOAL MISSED'}"
        )
        print(
            f"resident memory of the largest worker after the night: {night.worker_rss_mb:.0f} MB "
            f"(goal ≤ {MEMORY_GOAL_MB} MB: {'met' if night.worker_rss_mb <= MEMORY_GOAL_MB else 'MISSED'})"
        )
        failed |= not goal
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

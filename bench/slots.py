"""Session slots side by side (issue 37): two Hideout servers on one demo database, one with
`HIDEOUT_SESSION_SLOTS` at the default and one at another value, each loaded in turn by wrk
(eight connections, the page drawn every time), the order swapped every pair. A pair's ratio
of requests per second is measured seconds apart, so a busy host moves both sides alike.

Run: `python -m bench.slots [--database sqlite|postgres|both] [--vs 6] [--pairs 6]` (`make
bench` runs it when wrk is installed). A ratio above 1: the default slots serve more pages.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from app.core.settings import Settings
from bench import wrk
from bench.club_night import database
from tests.load.servers import HideoutProcess

SECONDS = 4


def _server(work: Path, url: str, side: int, env: dict, key: str) -> HideoutProcess:
    (work / f"side-{side}").mkdir()
    server = HideoutProcess(work / f"side-{side}", url, workers=1, env=env, secret_key=key)
    server.start()
    return server


def compare(kind: str, default: int, other: int, pairs: int) -> list[str]:
    """One line a page: each side's median requests/s and CPU a request, and each pair's ratio."""
    return side_by_side(kind, ({"HIDEOUT_SESSION_SLOTS": str(default)}, {"HIDEOUT_SESSION_SLOTS": str(other)}), pairs)


def side_by_side(kind: str, envs: tuple[dict, dict], pairs: int, logged: str | None = None) -> list[str]:
    """Two servers on one demo database, each with its settings (`envs`): one line a page, as
    `compare` says (bench/pinning.py compares a worker on one CPU the same way); `logged`: what
    the second server's log says when its setting took, else a line says it did not."""
    work = Path(tempfile.mkdtemp(prefix=f"hideout-sides-{kind}-"))
    lines = []
    with database(kind, work, f"hideout_sides_{os.getpid()}") as url:
        cid = wrk._demo(url)
        key = secrets.token_urlsafe(32)
        servers = [_server(work, url, side, env, key) for side, env in enumerate(envs)]
        if logged and logged not in servers[1].log():
            lines.append(f"(the second server's log has no {logged}: its setting did not take, both sides run alike)")
        try:
            cookie = wrk._login(servers[0].url)  # one database, one key: the cookie opens both
            script = work / "drawn.lua"
            script.write_text(wrk.DRAWN_SCRIPT)
            for name, page in (("dashboard", f"/campaigns/{cid}"), ("map", f"/campaigns/{cid}/map")):
                for server in servers:  # warm-up
                    wrk.requests_per_second(server.url + page, 1, {"Cookie": cookie}, script)
                runs: list[list[tuple[float, float]]] = [[], []]
                for i in range(pairs):
                    for side in (0, 1) if i % 2 == 0 else (1, 0):
                        runs[side].append(
                            wrk.loaded(servers[side].proc.pid, servers[side].url + page, SECONDS, {"Cookie": cookie}, script)
                        )
                ratios = " ".join(f"{a[0] / b[0]:.2f}" for a, b in zip(*runs))
                a, b = (
                    {"rate": statistics.median(r for r, _ in side), "cpu": statistics.median(c for _, c in side)} for side in runs
                )
                lines.append(
                    f"{name:<10} {kind:>9} {a['rate']:>6.0f} {a['cpu']:>6.2f}  {b['rate']:>6.0f} {b['cpu']:>6.2f}   {ratios}"
                )
        finally:
            for server in servers:
                server.stop()
    shutil.rmtree(work, ignore_errors=True)
    return lines


def _most_slots() -> int:
    """The most session slots the setting takes (its `le` bound)."""
    return next(rule.le for rule in Settings.model_fields["session_slots"].metadata if hasattr(rule, "le"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument(
        "--vs", type=int, default=_most_slots(), help="the other server's session slots (default: the most allowed)"
    )
    parser.add_argument("--pairs", type=int, default=6)
    args = parser.parse_args(argv)
    if not shutil.which("wrk"):
        print("wrk is not installed here (apt-get install wrk): no session slots table.")
        return 0
    default = Settings.model_fields["session_slots"].default
    print(f"wrk -t1 -c8 a page drawn each time; slots {default} (default) against {args.vs}, side by side")
    print(f"{'page':<10} {'database':>9} {'req/s':>6} {'CPU ms':>6}  {'req/s':>6} {'CPU ms':>6}   ratio of req/s, pair by pair")
    for kind in ("sqlite", "postgres") if args.database == "both" else (args.database,):
        if kind == "postgres" and not wrk._postgres_reachable():
            print(f"PostgreSQL is not reachable at {wrk.PG_ADMIN}: its rows are skipped.")
            continue
        for line in compare(kind, default, args.vs, args.pairs):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

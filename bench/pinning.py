"""A worker's threads on one CPU, side by side (issue 37): two Hideout servers on one demo
database, one as it starts by default and one with `HIDEOUT_WORKER_CPUS=auto` (its worker's
threads on one CPU: app/core/affinity.py), each loaded in turn by wrk as `bench.slots` loads
them (eight connections, the page drawn every time, the order swapped every pair).

Run: `python -m bench.pinning [--database sqlite|postgres|both] [--pairs 6]` (`make bench` runs
it when wrk is installed). A ratio below 1: the worker on one CPU serves more pages a second.
"""

from __future__ import annotations

import argparse
import shutil
import sys

from bench import slots, wrk


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--pairs", type=int, default=6)
    args = parser.parse_args(argv)
    if not shutil.which("wrk"):
        print("wrk is not installed here (apt-get install wrk): no table of a worker on one CPU.")
        return 0
    print("wrk -t1 -c8 a page drawn each time; the default server against HIDEOUT_WORKER_CPUS=auto, side by side")
    print(f"{'page':<10} {'database':>9} {'req/s':>6} {'CPU ms':>6}  {'req/s':>6} {'CPU ms':>6}   ratio of req/s, pair by pair")
    for kind in ("sqlite", "postgres") if args.database == "both" else (args.database,):
        if kind == "postgres" and not wrk._postgres_reachable():
            print(f"PostgreSQL is not reachable at {wrk.PG_ADMIN}: its rows are skipped.")
            continue
        for line in slots.side_by_side(kind, ({}, {"HIDEOUT_WORKER_CPUS": "auto"}), args.pairs, logged="worker_pinned"):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What checking a pooled PostgreSQL connection at checkout costs (issue 37): a unit of work of
one statement on the app's engine, whose checkout looks at the connection's socket
(app/core/pg_alive.py), against the same on an engine with SQLAlchemy's `pool_pre_ping`, which
sends the server an empty query first. The two alternate, twenty rounds of 300; each figure is a
median of the rounds, wall time and this process's CPU (the server's own work is not in it).

Run: `python -m bench.pg_checkout [--url postgresql://postgres@127.0.0.1:5432/test]`.
"""

from __future__ import annotations

import argparse
import statistics
import time

from sqlalchemy import create_engine
from sqlalchemy.engine import Engine

from app.core.db import make_engine

ROUNDS, UNITS = 20, 300


def _unit(engine: Engine) -> None:
    with engine.connect() as conn:
        conn.exec_driver_sql("SELECT 1").scalar()
        conn.commit()


def measure(url: str) -> dict[str, tuple[float, float]]:
    """Per engine: (wall µs, CPU µs) of one unit of work, medians of the rounds."""
    ours = make_engine(url)
    # The same URL as the app's engine reads it (its driver chosen there), pinged before each checkout.
    engines = {"checkout looks at the socket": ours, "pool_pre_ping": create_engine(ours.url, pool_pre_ping=True)}
    figures: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in engines}
    for turn in range(ROUNDS):
        for name, engine in engines.items() if turn % 2 else reversed(engines.items()):
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(UNITS):
                _unit(engine)
            figures[name][0].append((time.perf_counter() - wall) / UNITS * 1e6)
            figures[name][1].append((time.process_time() - cpu) / UNITS * 1e6)
    for engine in engines.values():
        engine.dispose()
    return {name: (statistics.median(w), statistics.median(c)) for name, (w, c) in figures.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args(argv)
    print(f"{'a unit of work of one statement, PostgreSQL':<44} {'wall µs':>8} {'CPU µs':>8}")
    for name, (wall, cpu) in measure(args.url).items():
        print(f"{name:<44} {wall:>8.0f} {cpu:>8.0f}")


if __name__ == "__main__":
    main()

"""What counting a write's audiences costs it (issue 37): CPU per purchase and per sale over the
API, in process, and the share of it spent in app/versions/audience.py's listeners and commit
step, timed around each of them in the same run.

Run: `python -m bench.write_cost` (`--pairs N`); read the share, not the milliseconds."""

from __future__ import annotations

import argparse
import collections
import contextlib
import tempfile
import time
from pathlib import Path

from sqlalchemy import event
from sqlmodel import Session
from starlette.testclient import TestClient

from app.core import commit_steps
from app.core.migrate import upgrade
from app.core.settings import Settings
from app.main import create_app
from app.versions import audience
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy

LISTENERS = (("after_flush", audience._after_flush), ("do_orm_execute", audience._bulk), ("before_flush", audience._cascades))


def _timed(spent: collections.Counter, name: str, work, depth: list[int]):
    """`work` timed into `spent[name]`, unless it runs inside another timed part (the commit
    step's own statements pass through the statement listener: counted once, in the step)."""

    def timed(*args, **kwargs):
        depth[0] += 1
        start = time.process_time()
        try:
            return work(*args, **kwargs)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                spent[name] += time.process_time() - start

    return timed


@contextlib.contextmanager
def _instrumented(spent: collections.Counter):
    """audience.py's listeners and commit step, timed; put back as they were afterwards."""
    steps = list(commit_steps._STEPS)
    depth = [0]
    timed = [(name, listener, _timed(spent, name, listener, depth)) for name, listener in LISTENERS]
    for name, listener, wrapper in timed:
        event.remove(Session, name, listener)
        event.listen(Session, name, wrapper)
    commit_steps._STEPS[:] = [
        (rank, _timed(spent, "commit step", step, depth) if step is audience._bump else step) for rank, step in steps
    ]
    try:
        yield
    finally:
        commit_steps._STEPS[:] = steps
        for name, listener, wrapper in timed:
            event.remove(Session, name, wrapper)
            event.listen(Session, name, listener)


def _app(folder: Path):
    url = f"sqlite:///{folder / 'writes.sqlite3'}"
    upgrade(url)
    return create_app(Settings(database_url=url, secret_key="bench-secret-key-long-enough", var_dir=folder, fast_hashing=True))


def _writes(client, spent: collections.Counter, pairs: int) -> float:
    """Milliseconds of CPU per write over `pairs` purchases and sales, the audiences' part timed."""
    gm, cid, players, places = running_campaign(client, 2)
    buy(client, cid, players[0], "orcs.krusher", faction="orcs")
    headers = players[0]["headers"]
    with _instrumented(spent):
        start = time.process_time()
        for _ in range(pairs):
            bought = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": "orcs.ax"}, headers=headers)
            assert bought.status_code == 201, bought.text
            sold = client.delete(f"/api/v1/campaigns/{cid}/company/models/{bought.json()['id']}", headers=headers)
            assert sold.status_code == 200, sold.text
        return (time.process_time() - start) / (2 * pairs) * 1000


def main(argv: list[str] | None = None) -> float:
    """Prints the figures; returns the share of a write's CPU spent counting its audiences."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=150)
    args = parser.parse_args(argv)
    spent: collections.Counter = collections.Counter()
    with tempfile.TemporaryDirectory() as folder:
        app = _app(Path(folder))
        with TestClient(app) as client:
            total = _writes(client, spent, args.pairs)
        app.state.engine.dispose()
    counted = sum(spent.values()) / (2 * args.pairs) * 1000
    print(
        f"CPU per write (a purchase or a sale): {total:.2f} ms, of which counting its audiences {counted:.2f} ms ({counted / total:.0%})"
    )
    for name, seconds in spent.most_common():
        print(f"  {name:<16} {seconds / (2 * args.pairs) * 1000:.3f} ms")
    return counted / total


if __name__ == "__main__":
    main()

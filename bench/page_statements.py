"""Statements a demo page runs for a logged-in player (issue 37): every round trip costs CPU,
about 80 µs on SQLite and 250 µs on PostgreSQL on the machine this was written on, so the count
is the part of a page's cost that no timing noise moves. Counted as the tests count them
(tests/statements.py), on the second draw of each page.

Run: `python -m bench.page_statements` (printed by `make bench`); `BENCH_DATABASE_URL` for
PostgreSQL, on an empty database."""

from __future__ import annotations

import asyncio

from bench.profile_pages import demo_app
from bench.request_cpu import _cookie, _get
from tests.statements import StatementCounter

PAGES = {"dashboard": "", "map": "/map", "chronicle": "/chronicle", "events": "/events", "players": "/players"}


async def count() -> dict[str, list[str]]:
    app, cid = demo_app()
    headers = [(b"host", b"testserver"), (b"cookie", await _cookie(app))]
    found: dict[str, list[str]] = {}
    for name, tail in PAGES.items():
        path = f"/campaigns/{cid}{tail}"
        assert await _get(app, headers, path, b"first=1") == 200, name
        with StatementCounter(app.state.engine) as counted:
            assert await _get(app, headers, path, b"second=1") == 200, name
        found[name] = counted.statements
    return found


def main() -> None:
    found = asyncio.run(count())
    print(f"{'statements a page runs, demo campaign as a player':<52} {'count':>5}")
    for name, statements in found.items():
        print(f"{name:<52} {len(statements):>5}")


if __name__ == "__main__":
    main()

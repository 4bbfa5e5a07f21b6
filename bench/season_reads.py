"""A round's reads as the host and the season grow (issue 37: one host for many clubs): the
statements bench.report's campaign (40 players in Battles) runs, as its GM, on its dashboard,
battles and orders pages, timed straight on the database's connection (no page around them,
so a few microseconds are not lost in a page's noise), first as they are, then once the
database also holds 30 other campaigns' battles of the same round and 30 more rounds of this
campaign's orders. Each ratio is the statement's time with those rows beside it over its time
without: near 1.0 while a page reads a round through an index of the campaign and the round
(app/migrations/versions/2026_12_07_i37_read_indexes.py), about the rows' growth (×4 to ×30)
where it read through the round's or the campaign's index alone.

Run: `python -m bench.season_reads [--quick]` (printed by `make bench`); SQLite.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time

from sqlalchemy import event

from app.versions import remembered
from bench.request_cpu import _get, _gm_pages

CAMPAIGNS = 30  # other campaigns, each with this campaign's battles of the round
ROUNDS = 30  # earlier rounds of this campaign's orders
# What a page reads a round of, and what is copied to grow the host and the season.
TABLES = {"battle": "campaigns", "arrival": "campaigns", "warband_order": "rounds"}


def _round_reads(app, pages: dict[str, str], headers: list) -> dict[str, tuple[str, object]]:
    """The statements of a round's tables the GM's pages ran, drawn with nothing remembered."""
    seen: dict[str, tuple[str, object]] = {}

    def on_execute(_conn, _cursor, statement, parameters, _context, _many):
        table = next((t for t in TABLES if re.search(rf"\bFROM {t}\b", statement)), None)
        if table and statement.lstrip().upper().startswith("SELECT"):
            seen.setdefault(statement, (table, parameters))

    async def draw() -> None:
        for name in ("dashboard", "battles", "orders"):
            remembered.memory.forget()
            assert await _get(app, headers, pages[f"GM, 40 players: {name}"], b"season=1") == 200, name

    event.listen(app.state.engine, "before_cursor_execute", on_execute)
    try:
        asyncio.run(draw())
    finally:
        event.remove(app.state.engine, "before_cursor_execute", on_execute)
    return seen


def _grow(cursor, campaigns: int, rounds: int) -> None:
    """Other campaigns' battles and arrivals of the same rounds, and earlier rounds of orders
    (copies of this database's rows: their contents do not matter, their number does)."""
    cursor.execute("PRAGMA foreign_keys=OFF")
    for table, how in TABLES.items():
        columns = [row[1] for row in cursor.execute(f"PRAGMA table_info({table})") if row[1] != "id"]
        listed = ", ".join(columns)
        for k in range(1, (campaigns if how == "campaigns" else rounds) + 1):
            moved = {"campaign_id": f"campaign_id + {1000 * k}"} if how == "campaigns" else {"round": f"round + {1000 * k}"}
            picked = ", ".join(moved.get(c, c) for c in columns)
            cursor.execute(
                f"INSERT INTO {table} ({listed}) SELECT {picked} FROM {table} WHERE campaign_id < 1000 AND round < 1000"
            )
    cursor.execute("PRAGMA foreign_keys=ON")


def _named(statement: str) -> str:
    """The table the statement reads (its first FROM) and what it narrows it by."""
    flat = " ".join(statement.split())
    first = re.search(r"FROM (\w+)", flat)
    table = first.group(1) if first else "?"
    where = re.search(r"WHERE (.*?)(?: ORDER BY| GROUP BY| LIMIT|$)", flat)
    narrowed = re.sub(rf"\b{table}\.", "", where.group(1)) if where else "all"
    return f"{table}: {narrowed}"[:58]


def _timed(cursor, statement: str, parameters, repeat: int) -> float:
    cursor.execute(statement, parameters).fetchall()
    start = time.perf_counter()
    for _ in range(repeat):
        cursor.execute(statement, parameters).fetchall()
    return (time.perf_counter() - start) / repeat * 1e6


def main(quick: bool = False) -> list[tuple[str, float, float]]:
    app, pages, headers = _gm_pages()
    reads = _round_reads(app, pages, headers)
    repeat = 5 if quick else 400
    raw = app.state.engine.raw_connection()
    try:
        cursor = raw.cursor()
        before = {s: _timed(cursor, s, p, repeat) for s, (_t, p) in reads.items()}
        _grow(cursor, 2 if quick else CAMPAIGNS, 2 if quick else ROUNDS)
        raw.commit()
        rows = [(_named(s), before[s], _timed(cursor, s, reads[s][1], repeat)) for s in reads]
    finally:
        raw.close()
    print(f"{'a round read, with 30 other campaigns and 30 more rounds':<58} {'before':>9} {'after':>9}  ratio")
    for table, was, now in rows:
        print(f"{table:<58} {was:7.1f}µs {now:7.1f}µs  {now / was:5.2f}")
    return rows


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])

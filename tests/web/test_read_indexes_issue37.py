"""Issue 37 (one host for many clubs, a season of many rounds), R11.2: a page reads what it
shows through an index that narrows the campaign to it. A round's rows of one campaign
(battles, arrivals, orders, settlements, mission alliances), its active events, a viewer's
letters (and every page's count of their unread ones), the pending guild requests, a kind of
ledger entries: through the index of the round alone, a page read that round of every campaign
on the host; through the campaign's alone, every round of its season, or every member's letters,
so that a page took longer the more letters other members had written to each other.

SQLite's plans are checked statement by statement, for every campaign page of the GM and of
players in Battles, with a mission alliance at an event and orders (SQLite keeps no statistics
here, so its plan is the same whatever the other campaigns and rounds hold). PostgreSQL plans
from its statistics (a few rows read whole cost less than an index), so there the indexes
themselves are checked."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event, inspect

from tests.builders.guilds import allied_at_an_event, guild_campaign
from tests.builders.pages import login

# Each table a page reads a part of, the columns beside the campaign that narrow it (a statement
# naming one of them must not search the table by the campaign's or the round's index alone),
# and the index that narrows it (app/migrations/versions/2026_12_07_i37_read_indexes.py).
NARROWED = {
    "battle": (("round",), ("campaign_id", "round")),
    "arrival": (("round",), ("campaign_id", "round")),
    "warband_order": (("round",), ("campaign_id", "round")),
    "settlement": (("round",), ("campaign_id", "round")),
    "mission_alliance": (("round",), ("campaign_id", "round")),
    "event": (("ended_round",), ("campaign_id", "ended_round")),
    "letter": (("to_player_id", "from_player_id"), ("campaign_id", "to_player_id")),
    "guild_request": (("status",), ("campaign_id", "status")),
    "ledger_entry": (("kind",), ("campaign_id", "kind")),
}
# The indexes of the round alone, dropped: SQLite chose them over the campaign's.
ROUND_ALONE = ("battle", "arrival", "settlement", "mission_alliance")
TABS = (
    "",
    "/alliances",
    "/battles",
    "/chronicle",
    "/company",
    "/events",
    "/guilds",
    "/ledger",
    "/letters",
    "/orders",
    "/places",
    "/players",
    "/ransoms",
    "/rules",
    "/shop",
    "/standings",
    "/twilight",
    "/warbands",
    "/map",
)


def _statements_of_pages(engine, browser, cid: int) -> list[tuple[str, object, str]]:
    """Every SELECT the campaign's pages ran, with its parameters and the page."""
    seen: list[tuple[str, object, str]] = []
    page = [""]

    def on_execute(_conn, _cursor, statement, parameters, _context, _many):
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters, page[0]))

    event.listen(engine, "before_cursor_execute", on_execute)
    try:
        for tab in TABS:
            page[0] = tab or "/"
            r = browser.get(f"/campaigns/{cid}{tab}", follow_redirects=False)
            # 303: a tab not for this viewer (a GM's company); 404: a module that is off.
            assert r.status_code in (200, 303, 404) and "/login" not in r.headers.get("location", ""), (tab, r.status_code)
    finally:
        event.remove(engine, "before_cursor_execute", on_execute)
    return seen


def _wrong_index(statement: str, plan: list[str]) -> list[str]:
    """The plan's searches of a table that use the campaign's or the round's index alone while
    the statement narrows it further."""
    wrong = []
    for table, (columns, _index) in NARROWED.items():
        if not any(re.search(rf"\b{table}\.{column}\s*(=|IS NULL|IN)", statement) for column in columns):
            continue
        for line in plan:
            found = re.match(rf"SEARCH {table} USING (?:COVERING )?INDEX (ix_{table}_(?:campaign_id|round)) \(", line)
            if found:
                wrong.append(f"{found.group(1)}: {line}")
    return wrong


def _in_battles(client):
    """A campaign in Battles: an alliance at an event, four warbands ordered there."""
    g = guild_campaign(client, 4)
    bridge = allied_at_an_event(g)
    g.band(3)
    g.send(3, event_id=bridge)
    g.phase("battles")
    return g


def test_issue37_a_page_reads_a_round_by_the_campaign_and_the_round_together(client, make_client, engine):
    if engine.dialect.name != "sqlite":
        pytest.skip("the plans are SQLite's; PostgreSQL's indexes: the test below")
    g = _in_battles(client)
    seen = []
    for nickname in ("gamemaster", "player0", "player3"):
        browser = make_client()
        login(browser, nickname)
        seen += _statements_of_pages(engine, browser, g.cid)
    checked = 0
    problems = []
    with engine.connect() as conn:
        for statement, parameters, page in seen:
            if not any(re.search(rf"\b{t}\.{c}\b", statement) for t, (cs, _ix) in NARROWED.items() for c in cs):
                continue
            plan = [row[3] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)]
            checked += 1
            problems += [f"{page}: {wrong}\n  {statement[:200]}" for wrong in _wrong_index(statement, plan)]
    assert checked >= 10, f"only {checked} statements read a part: the pages did not draw what they should"
    read = {t for t in NARROWED if any(re.search(rf"\bFROM {t}\b", st) for st, _p, _page in seen)}
    assert read >= {"battle", "warband_order", "event", "letter", "guild_request", "ledger_entry"}, read
    assert not problems, "\n".join(problems)


def test_issue37_the_narrowing_indexes_are_in_the_database(engine):
    """On both databases: each table has its index of the campaign and what narrows it (the
    migration's), and no index of the round alone is left to mislead SQLite's planner."""
    found = inspect(engine)
    for table, (_columns, index) in NARROWED.items():
        indexes = {tuple(ix["column_names"]): ix["name"] for ix in found.get_indexes(table)}
        assert index in indexes, (table, indexes)
        assert table not in ROUND_ALONE or ("round",) not in indexes, (table, indexes)

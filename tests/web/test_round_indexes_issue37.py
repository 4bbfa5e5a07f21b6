"""Issue 37 (one host for many clubs, a season of many rounds): a page's reads of one round of
one campaign go through an index of both. Through the index of the round alone, a page read
the rows of that round of every campaign on the host; through the campaign's alone, every
round of its season: the same statements, each slower as the host and the season grew.

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

# Each table a page reads a round of, and the column beside the campaign that narrows it.
ROUND_READS = {
    "battle": "round",
    "arrival": "round",
    "warband_order": "round",
    "settlement": "round",
    "mission_alliance": "round",
    "event": "ended_round",
}
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
    """The plan's searches of a round's table that use the campaign's or the round's index
    alone while the statement narrows it by both."""
    wrong = []
    for table, column in ROUND_READS.items():
        if not re.search(rf"\b{table}\.{column}\s*(=|IS NULL)", statement):
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
            if not any(re.search(rf"\b{t}\.{c}\b", statement) for t, c in ROUND_READS.items()):
                continue
            plan = [row[3] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)]
            checked += 1
            problems += [f"{page}: {wrong}\n  {statement[:200]}" for wrong in _wrong_index(statement, plan)]
    assert checked >= 10, f"only {checked} statements read a round: the pages did not draw what they should"
    assert not problems, "\n".join(problems)


def test_issue37_the_round_indexes_are_in_the_database(engine):
    """On both databases: each round's table has its index of the campaign and the round (the
    migration's, app/migrations/versions/2026_12_07_i37_round_indexes.py), and no index of the
    round alone is left to mislead SQLite's planner."""
    found = inspect(engine)
    for table, column in ROUND_READS.items():
        indexes = {tuple(ix["column_names"]): ix["name"] for ix in found.get_indexes(table)}
        assert ("campaign_id", column) in indexes, (table, indexes)
        assert (column,) not in indexes, (table, indexes)

"""Issue 37: a read builds no statement while it answers, checked another way than
tests/web/test_statements_built_once_issue37.py (the same statement objects on two visits of
a bench campaign's pages): by what SQLAlchemy does when it builds one. Each statement built
coerces its parts (`sqlalchemy.sql.coercions.expect`), and running a built one coerces it once:
a request that coerces more often than it runs statements built some while it answered.

Checked for the GM and a player, on every campaign tab and on the API's reads, in a campaign in
Battles with its guilds, mission alliances and letters on: the secrecy filters decided per
viewer (app/visibility/: the letters' sides, the GM's hidden gold, the ransoms) are built once
for each of their cases too."""

from __future__ import annotations

import pytest
from sqlalchemy import event
from sqlalchemy.sql import coercions

from tests.builders.guilds import allied_at_an_event, guild_campaign
from tests.builders.pages import login
from tests.web.test_read_indexes_issue37 import TABS

API_READS = (
    "",
    "/players",
    "/battles",
    "/orders",
    "/chronicle",
    "/places",
    "/map",
    "/audit",
    "/ransoms",
    "/events",
    "/warbands",
    "/standings",
    "/settlements",
    "/letters",
    "/guilds",
    "/alliances",
    "/deadline",
    "/webhooks",
    "/invitations",
    "/game-masters",
    "/transfers",
    "/ledger",
    "/company",
    "/clock-settings",
    "/events/library",
    "/twilight",
)
# Campaign pages that are not tabs: the forms a tab leads to, the GM's trail and wizard, the season book.
PAGES_BEYOND_TABS = (
    "/audit",
    "/companies",
    "/letters/new",
    "/transfers/new",
    "/warbands/new",
    "/season-book",
    *(f"/setup/{step}" for step in range(1, 7)),
)


class _Counted:
    """Coercions and statements run, per request."""

    def __init__(self, monkeypatch, engine) -> None:
        self.coerced = self.ran = 0
        expect = coercions.expect

        def counted(*args, **kwargs):
            self.coerced += 1
            return expect(*args, **kwargs)

        def ran(*_args) -> None:
            self.ran += 1

        monkeypatch.setattr(coercions, "expect", counted)
        event.listen(engine, "before_cursor_execute", ran)
        self._engine, self._ran = engine, ran

    def of(self, ask) -> tuple[int, int, int]:
        # Twice first: templates compiled, a page's head reads learnt, then read with the login.
        ask()
        ask()
        self.coerced = self.ran = 0
        status = ask().status_code
        return status, self.coerced, self.ran

    def close(self) -> None:
        event.remove(self._engine, "before_cursor_execute", self._ran)


@pytest.fixture
def counted(monkeypatch, engine):
    found = _Counted(monkeypatch, engine)
    yield found
    found.close()


def _in_battles(client):
    g = guild_campaign(client, 4)
    allied_at_an_event(g)
    g.phase("battles")
    return g


def _a_letter(g) -> int:
    """A letter from player 0 to player 1: read by its parties (a letter, its thread)."""
    r = g.post(0, "/letters", {"to_player_id": g.pid(1), "subject": "Terms", "body": "Meet at the ford."})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_issue37_the_api_reads_build_no_statement_as_they_answer(client, counted):
    g = _in_battles(client)
    bid = g.get("gm", "/battles").json()["items"][0]["id"]
    lid = _a_letter(g)
    built = []
    for who in ("gm", 0):
        for path in (*API_READS, f"/battles/{bid}", f"/battles/{bid}/clock", f"/battles/{bid}/photos", f"/letters/{lid}"):
            status, coerced, ran = counted.of(lambda who=who, path=path: g.get(who, path))
            assert status in (200, 403, 404, 409), (who, path, status)
            if status == 200 and coerced > ran:
                built.append(f"{who} GET {path or '/'}: {coerced} coercions for {ran} statements")
    for path in ("/me", "/me/digest"):
        status, coerced, ran = counted.of(lambda path=path: client.get(f"/api/v1{path}", headers=g.gm))
        assert status == 200
        if coerced > ran:
            built.append(f"GET {path}: {coerced} coercions for {ran} statements")
    assert not built, "\n".join(built)


def test_issue37_the_campaign_pages_build_no_statement_as_they_are_drawn(client, make_client, counted):
    g = _in_battles(client)
    bid = g.get("gm", "/battles").json()["items"][0]["id"]
    lid = _a_letter(g)
    built = []
    for nickname in ("gamemaster", "player0"):
        browser = make_client()
        login(browser, nickname)
        pages = [f"/campaigns/{g.cid}{tab}" for tab in (*TABS, *PAGES_BEYOND_TABS, f"/battles/{bid}", f"/letters/{lid}")]
        for path in (*pages, f"/campaigns/{g.cid}/players/{g.pid(1)}", "/", "/account"):
            status, coerced, ran = counted.of(lambda browser=browser, path=path: browser.get(f"{path}?fresh=1"))
            if status == 200 and coerced > ran:
                built.append(f"{nickname} {path}: {coerced} coercions for {ran} statements")
    assert not built, "\n".join(built)

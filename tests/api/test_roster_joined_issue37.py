"""Issue 37: the API's players say when each joined; no page shows it, so no page reads it (a
time read costs about a microsecond a row: SQLite keeps it as text, parsed on the way out)."""

from __future__ import annotations

from datetime import datetime

from tests.builders.campaigns import running_campaign
from tests.builders.pages import login
from tests.statements import StatementCounter


def test_issue37_the_apis_players_say_when_each_joined_and_the_pages_do_not_read_it(client, engine, make_client):
    gm, cid, players, _ = running_campaign(client, 2)
    listed = client.get(f"/api/v1/campaigns/{cid}/players", headers=gm).json()
    assert [p["player_id"] for p in listed] == [p["player_id"] for p in players]
    assert all(datetime.fromisoformat(p["joined_at"]).utcoffset() is not None for p in listed)
    campaign = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()
    assert [p["joined_at"] for p in campaign["players"]] == [p["joined_at"] for p in listed]

    browser = make_client()
    login(browser, "gamemaster")
    browser.get("/")  # the login's message, shown once
    for tail in ("", "/players", "/map", "/standings"):
        with StatementCounter(engine) as counted:
            assert browser.get(f"/campaigns/{cid}{tail}").status_code == 200
        # The login reads the viewer's own seat whole (one row); the roster's forty are the cost.
        roster_reads = [s for s in counted.statements if "joined_at" in s and "token_hash" not in s]
        assert counted.statements and roster_reads == [], tail

"""Issue 28.4 and 28.3, continued: every row of an imported document is checked with the API's
own schema for what a user sets in it and with the API's catalog rules (an event's scenario, a
company's faction, a warband's mercenary); and the hourly import limit is counted in the
database, so every server process counts the same imports."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

from sqlalchemy import func
from sqlmodel import Session, select
from starlette.testclient import TestClient

from app.campaigns.models import Campaign, Invitation, Player
from app.companies.models import Company
from app.events.models import Event
from app.exports import throttle
from app.exports.models import ImportStart
from app.guilds.models import Guild
from app.main import create_app
from app.maps.models import Place
from app.warbands.models import Warband
from tests.api.test_exports_api import export, rich_campaign
from tests.builders.accounts import user
from tests.builders.responses import error_code

API = "/api/v1"
TABLES = (Campaign, Player, Place, Event, Company, Warband, Guild, Invitation)


def counts(engine) -> tuple:
    with Session(engine) as s:
        return tuple(s.exec(select(func.count()).select_from(m)).one() for m in TABLES)


def changed(doc: dict, where: tuple, **values) -> dict:
    """A copy of `doc` with `values` set in the row at `where` (part, index[, child key, index])."""
    out = copy.deepcopy(doc)
    row = out[where[0]][where[1]]
    if len(where) > 2:
        row = row[where[2]][where[3]]
    row.update(values)
    return out


def scenario_of(client) -> str:
    r = client.get(f"{API}/catalog/scenarios")
    assert r.status_code == 200 and r.json(), r.text
    first = r.json()[0]
    return first["key"] if isinstance(first, dict) else first


def test_issue28_4_every_row_passes_the_apis_own_schemas_and_catalog_rules(client, engine, monkeypatch):
    """Issue 28.4 (R5.1, R5.2, R3.6, R4.1, R4.4, R8.1, R1.2): what the API refuses in an event, a
    company, a warband, a guild, a place or a battle's clock is refused in an import too — a 422
    naming the part and the row — and the refused import creates nothing at all."""
    monkeypatch.setattr(throttle, "IMPORTS_PER_HOUR", 100)
    w = rich_campaign(client)
    doc = export(client, w["cid"], w["gm"])
    doc["battles"][0]["clocks"] = [{"id": 1, "max_turns": 6, "order": [1, 2], "status": "ended", "turn": 6}]
    importer = user(client, "importer")
    cases = [
        ("an unknown scenario", ("events", 0), {"scenario": "Tea party"}, "import_rule", "no scenario Tea party"),
        ("10^9 rounds", ("events", 0), {"duration": 10**9}, "import_row_invalid", "invalid duration"),
        ("a title too long", ("events", 0), {"title": "x" * 121}, "import_row_invalid", "invalid title"),
        ("a blank title", ("events", 0), {"title": "   "}, "import_row_invalid", "invalid title"),
        ("a points limit of 0", ("events", 0), {"points_limit": 0}, "import_row_invalid", "invalid points_limit"),
        (
            "a scenario and a mission",
            ("events", 0),
            {"scenario": scenario_of(client), "other_mission": "Hold"},
            "import_rule",
            "breaks a rule",
        ),
        ("an unknown faction", ("companies", 0), {"faction": "gnomes"}, "import_rule", "no faction gnomes"),
        ("a faction not text", ("companies", 0), {"faction": 7}, "import_row_invalid", "invalid faction"),
        ("an unknown mercenary", ("warbands", 0), {"mercenary_key": "nobody"}, "import_rule", "no mercenary nobody"),
        ("a blank warband name", ("warbands", 0), {"name": " "}, "import_row_invalid", "invalid name"),
        ("a guild name too long", ("guilds", 0), {"name": "G" * 61}, "import_row_invalid", "invalid name"),
        ("a blank guild name", ("guilds", 0), {"name": ""}, "import_row_invalid", "invalid name"),
        ("a place's income", ("places", 0), {"income": 10**6}, "import_row_invalid", "invalid income"),
        ("a clock of 10^6 turns", ("battles", 0, "clocks", 0), {"max_turns": 10**6}, "import_row_invalid", "invalid max_turns"),
    ]
    for why, where, values, code, says in cases:
        before = counts(engine)
        r = client.post(f"{API}/campaigns/import", json=changed(doc, where, **values), headers=importer)
        assert (r.status_code, error_code(r)) == (422, code), (why, r.text[:300])
        message = r.json()["error"]["message"]
        part = where[0] if len(where) == 2 else f"{where[0]}.{where[2]}"
        row = doc[where[0]][where[1]]["id"] if len(where) == 2 else doc[where[0]][where[1]][where[2]][where[3]]["id"]
        assert says in message and f"Row {row} of the export's {part} " in message, (why, message)
        assert counts(engine) == before, why
    assert client.post(f"{API}/campaigns/import", json=doc, headers=importer).status_code == 201  # the rest is fine


def test_issue28_3_two_server_processes_share_one_users_import_count(client, engine, settings, monkeypatch):
    """Issue 28.3: the limit is counted in the database, so a second app on the same database
    (another server worker) counts the same imports; a refused import counts too, and the
    hour passes for both."""
    now = [datetime(2026, 12, 2, 12, 0, tzinfo=UTC)]
    monkeypatch.setattr(throttle, "IMPORTS_PER_HOUR", 3)
    monkeypatch.setattr(throttle, "utcnow", lambda: now[0])
    second = create_app(settings)
    try:
        with TestClient(second, base_url="http://testserver") as other:
            gm = user(client, "gamemaster")
            doc = {"format": "hideout-campaign", "version": 1, "campaign": {"name": "Shared"}}
            assert client.post(f"{API}/campaigns/import", json=doc, headers=gm).status_code == 201
            hostile = {**doc, "events": [{"id": 1, "place_id": 1, "title": "E", "duration": 10**9}]}
            assert error_code(other.post(f"{API}/campaigns/import", json=hostile, headers=gm)) == "import_row_invalid"
            assert other.post(f"{API}/campaigns/import", json=doc, headers=gm).status_code == 201
            before = counts(engine)
            for c in (client, other):
                r = c.post(f"{API}/campaigns/import", json=doc, headers=gm)
                assert (r.status_code, error_code(r), r.headers.get("Retry-After")) == (429, "import_throttled", "3600")
            assert counts(engine) == before
            with Session(engine) as s:
                assert s.exec(select(func.count()).select_from(ImportStart)).one() == 3
            now[0] += timedelta(hours=1)
            assert other.post(f"{API}/campaigns/import", json=doc, headers=gm).status_code == 201
            with Session(engine) as s:
                assert s.exec(select(func.count()).select_from(ImportStart)).one() == 1  # the hour's old rows pruned
    finally:
        second.state.engine.dispose()

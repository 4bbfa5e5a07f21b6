"""Issue 20, item 5: a club's database survives every upgrade. For the first revision of each
release's worth of migrations, a database is built at that revision and filled with SQL inserts
valid there — a round played to Battles through the real API (players, gold and ledgers,
companies, warbands, orders, a confirmed battle), each row cut down to the columns its table has
at that revision — then upgraded to head: every row and value is still there, the books balance
and the orders and battle are intact. Then one step down and up again, with the same result.

On SQLite, and on PostgreSQL (a database of this test's own) when TEST_DATABASE_URL says so.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Column, MetaData, Table, select, text

from app.core.db import make_engine
from app.core.migrate import alembic_config
from app.models import metadata
from tests.builders.settlements import play_round
from tests.load.fault_helpers import own_postgres_database
from tests.load.test_database_outage import ledger_audit

# The first revision of each batch that shipped together (migrations/versions/).
STARTS = ("0003", "0007", "0012", "0015")
TEST_DB = os.environ.get("TEST_DATABASE_URL", "")


@contextmanager
def fresh_database(tmp_path: Path, tag: str):
    if TEST_DB.startswith("postgresql"):
        with own_postgres_database(f"up{tag}") as url:
            yield url
    else:
        yield f"sqlite:///{tmp_path / f'at-{tag}.sqlite3'}"


def rows_of(engine) -> dict[str, list[dict]]:
    """Every row of every table, read through the models' own types (so values compare alike)."""
    with engine.connect() as conn:
        return {
            t.name: [dict(r._mapping) for r in conn.execute(select(t).order_by(*t.primary_key.columns))]
            for t in metadata.sorted_tables
        }


def insert_at_revision(url: str, source: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """INSERTs of `source` valid at the database's revision: the tables it has, the columns each
    has there. Returns what was inserted."""
    engine = make_engine(url)
    there = MetaData()
    inserted: dict[str, list[dict]] = {}
    try:
        with engine.begin() as conn:
            there.reflect(conn)
            for model in metadata.sorted_tables:  # parents first
                table = there.tables.get(model.name)
                if table is None or not source[model.name]:
                    continue
                columns = [c.name for c in table.columns]
                missing = [
                    c.name for c in table.columns if c.name not in model.columns and not c.nullable and c.server_default is None
                ]
                assert not missing, f"{model.name} needs {missing} at this revision, which head no longer has"
                rows = [{k: v for k, v in row.items() if k in columns} for row in source[model.name]]
                # The table as it is there, typed as the models type it: values (JSON, times) are
                # written as the app would have, and no default of a later column slips in.
                as_there = Table(model.name, MetaData(), *(Column(c, model.c[c].type) for c in columns if c in model.c))
                conn.execute(as_there.insert(), rows)
                inserted[model.name] = rows
            if conn.dialect.name == "postgresql":
                for name in (n for n in inserted if "id" in there.tables[n].columns):
                    conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), (SELECT max(id) FROM \"{name}\"))"))
    finally:
        engine.dispose()
    return inserted


def check_kept(url: str, inserted: dict[str, list[dict]], played: dict[str, list[dict]]) -> None:
    engine = make_engine(url)
    try:
        now = rows_of(engine)
    finally:
        engine.dispose()
    for name, rows in inserted.items():
        by_id = {tuple(r[c.name] for c in metadata.tables[name].primary_key.columns): r for r in now[name]}
        assert len(now[name]) == len(rows), name
        for row in rows:
            key = tuple(row[c.name] for c in metadata.tables[name].primary_key.columns)
            kept = {k: by_id[key][k] for k in row}
            assert kept == row, (name, key)
    assert ledger_audit(url) == []
    # The round itself: gold, orders, the confirmed battle.
    for player in played["player"]:
        assert next(p for p in now["player"] if p["id"] == player["id"])["gold"] == player["gold"]
    if "battle" in inserted:
        assert [(b["id"], b["status"]) for b in now["battle"]] == [(b["id"], b["status"]) for b in played["battle"]]
    if "warband_order" in inserted:
        assert [(o["warband_id"], o["place_id"]) for o in now["warband_order"]] == [
            (o["warband_id"], o["place_id"]) for o in played["warband_order"]
        ]


@pytest.fixture
def played(client, engine) -> dict[str, list[dict]]:
    """A round played to Battles, its battle confirmed, plus a GM's gift: every row of it."""
    rnd = play_round(client, settle=False)
    r = client.post(
        f"/api/v1/campaigns/{rnd.cid}/ledger/adjustments",
        headers=rnd.gm,
        json={"player_id": rnd.players[1]["player_id"], "amount": 25, "reason": "for the journey"},
    )
    assert r.status_code == 201, r.text
    found = rows_of(engine)
    assert found["battle"] and found["warband"] and found["ledger_entry"] and found["company_model"]
    return found


@pytest.mark.parametrize("start", STARTS)
def test_issue20_a_played_round_survives_upgrading_from_each_release_and_one_step_down_and_up(tmp_path, played, start):
    with fresh_database(tmp_path, start) as url:
        config = alembic_config(url)
        command.upgrade(config, start)
        inserted = insert_at_revision(url, played)
        assert {"player", "ledger_entry", "company", "company_model"} <= inserted.keys()
        if start >= "0005":  # warbands and orders came with 0004, battles with 0005
            assert {"warband", "warband_member", "warband_order", "battle"} <= inserted.keys()
        print(f"\nat {start}: {sum(map(len, inserted.values()))} rows in {len(inserted)} tables")
        command.upgrade(config, "head")
        check_kept(url, inserted, played)
        command.downgrade(config, "-1")
        command.upgrade(config, "head")
        check_kept(url, inserted, played)

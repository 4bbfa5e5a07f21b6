"""The schema comes from Alembic; these fail when models and migrations disagree, or when a
revision cannot be undone exactly.

The drift check compares more than Alembic's autogenerate does (types, nullability, indexes,
unique constraints, foreign keys): also every CHECK constraint, by name and text, against the
schema the models build on a scratch database of the same kind."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import CheckConstraint, Index, MetaData, UniqueConstraint, text

from app.core.db import make_engine
from app.core.migrate import alembic_config
from app.models import metadata
from tests.schema_snapshot import differences, scratch_database, snapshot_of_models, snapshot_of_url


def drift(engine, url: str, models: MetaData) -> list[str]:
    """Every way the migrated database at `url` differs from `models` (empty when they agree)."""
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        found = [repr(d) for d in compare_metadata(context, models)]
    return found + differences(snapshot_of_models(url, models), snapshot_of_url(url, defaults=False))


def test_models_and_migrations_agree(engine, database_url):
    assert drift(engine, database_url, metadata) == []


def _copy_without(table: str, remove) -> MetaData:
    """A copy of the models' metadata with one constraint or index of `table` taken out
    (or changed), as if someone edited a model and forgot the migration."""
    copy = MetaData(naming_convention=metadata.naming_convention)
    for t in metadata.sorted_tables:
        t.to_metadata(copy)
    remove(copy.tables[table])
    return copy


def _drop_check(name):
    def remove(table):
        (found,) = [c for c in table.constraints if isinstance(c, CheckConstraint) and c.name == name]
        table.constraints.remove(found)

    return remove


def _change_check(name, sqltext):
    def change(table):
        (found,) = [c for c in table.constraints if isinstance(c, CheckConstraint) and c.name == name]
        table.constraints.remove(found)
        table.append_constraint(CheckConstraint(sqltext, name=name.removeprefix(f"ck_{table.name}_")))

    return change


def _drop_unique(name):
    def remove(table):
        (found,) = [c for c in table.constraints if isinstance(c, UniqueConstraint) and c.name == name]
        table.constraints.remove(found)

    return remove


def _drop_index(name):
    def remove(table):
        (found,) = [i for i in table.indexes if isinstance(i, Index) and i.name == name]
        table.indexes.remove(found)

    return remove


@pytest.mark.parametrize(
    "table, edit, named",
    [
        ("player", _drop_check("ck_player_gold_nonnegative"), "ck_player_gold_nonnegative"),
        ("campaign", _change_check("ck_campaign_status", "status IN ('setup','hideouts','running')"), "ck_campaign_status"),
        ("hideout", _drop_unique("uq_hideout_place_id"), "uq_hideout_place_id"),
        ("player", _drop_index("ix_player_user_id"), "ix_player_user_id"),
    ],
    ids=["check dropped", "check changed", "unique dropped", "index dropped"],
)
def test_r3_8_the_drift_check_fails_when_a_model_loses_a_constraint(engine, database_url, table, edit, named):
    """The check above can fail: a model without the gold ≥ 0 CHECK (R3.8), with a changed
    CHECK, without a unique constraint or an index, no longer agrees with the migrations."""
    found = drift(engine, database_url, _copy_without(table, edit))
    assert any(named in line for line in found), found


def test_migrations_are_at_head(engine):
    head = ScriptDirectory.from_config(alembic_config("")).get_current_head()
    with engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == head


def test_every_revision_downgrades_to_exactly_the_schema_before_it(database_url):
    """upgrade head → downgrade base → upgrade head on a scratch database of the suite's kind
    (SQLite, or PostgreSQL when TEST_DATABASE_URL says so): every downgrade step gives back
    the schema its revision started from — tables, columns, types, nullability, defaults,
    CHECK and unique constraints, indexes, foreign keys — and the second upgrade builds the
    same schema as the first."""
    revisions = [r.revision for r in reversed(list(ScriptDirectory.from_config(alembic_config("")).walk_revisions()))]
    with scratch_database(database_url) as url:
        config = alembic_config(url)
        on_the_way_up = {"base": snapshot_of_url(url)}
        assert on_the_way_up["base"] == {}
        for revision in revisions:
            command.upgrade(config, revision)
            on_the_way_up[revision] = snapshot_of_url(url)
        for revision, below in reversed(list(zip(revisions, ["base", *revisions[:-1]]))):
            command.downgrade(config, below)
            assert differences(on_the_way_up[below], snapshot_of_url(url)) == [], f"downgrade of {revision} to {below}"
        command.upgrade(config, "head")
        assert differences(on_the_way_up[revisions[-1]], snapshot_of_url(url)) == [], "upgrade head after downgrade base"


OLD_ROWS = [  # a running campaign as revision 0002 stored it
    "INSERT INTO user_account (id, nickname, nickname_key, password_hash, created_at) VALUES (1, 'gm', 'gm', 'x', '2026-01-01')",
    "INSERT INTO user_account (id, nickname, nickname_key, password_hash, created_at) VALUES (2, 'anna', 'anna', 'x', '2026-01-01')",
    "INSERT INTO campaign (id, gm_user_id, name, story, status, round, phase, wizard_step, setup_complete, max_players, "
    "starting_gold, round_income, gold_per_point, sale_loss_percent, warband_points, underdog_points_per_die, alliance_fee, "
    "modules, guild, created_at) VALUES (1, 1, 'c', '', 'running', 1, 'preparation', 6, true, 6, 400, 50, 1, 50, 200, 25, 10, "
    "'{}', '{}', '2026-01-01')",
    "INSERT INTO player (id, campaign_id, user_id, joined_at) VALUES (1, 1, 2, '2026-01-01')",
    "INSERT INTO place (id, campaign_id, name, description, income, hideout_slot, x, y, owner_player_id, has_map, entry) "
    "VALUES (1, 1, 'Hold', '', 5, true, 10, 10, 1, false, false)",
    "INSERT INTO place (id, campaign_id, name, description, income, hideout_slot, x, y, has_map, entry) "
    "VALUES (2, 1, 'Mill', '', 5, false, 20, 20, false, false)",
    "INSERT INTO hideout (id, campaign_id, place_id, player_id, round) VALUES (1, 1, 1, 1, 0)",
    "INSERT INTO path (id, campaign_id, from_place_id, to_place_id, one_way) VALUES (1, 1, 1, 2, false)",
    "INSERT INTO chronicle_entry (id, campaign_id, round, kind, params, created_at) VALUES (1, 1, 1, 'phase', '{}', '2026-01-01')",
]
OLD_COUNTS = (
    "SELECT (SELECT count(*) FROM user_account), (SELECT count(*) FROM campaign), (SELECT count(*) FROM player), "
    "(SELECT count(*) FROM place WHERE owner_player_id = 1), (SELECT count(*) FROM hideout), (SELECT count(*) FROM path), "
    "(SELECT count(*) FROM chronicle_entry)"
)


def test_a_database_with_rows_migrates_up_and_down_without_losing_them(database_url):
    """Migrating a campaign stored by an older revision keeps every row, both ways. On SQLite
    batch mode rebuilds tables (0003 rebuilds `player`): with foreign keys on, dropping the
    old table was refused (place.owner_player_id) or would cascade into hideouts; migrations
    run with them off and check every row against them before committing (migrations/env.py)."""
    with scratch_database(database_url) as url:
        config = alembic_config(url)
        command.upgrade(config, "0002")
        engine = make_engine(url)
        try:
            with engine.begin() as conn:
                for row in OLD_ROWS:
                    conn.execute(text(row))
            command.upgrade(config, "head")
            with engine.connect() as conn:
                assert conn.execute(text(OLD_COUNTS)).one() == (2, 1, 1, 1, 1, 1, 1)
                assert conn.execute(text("SELECT gold FROM player")).scalar_one() == 0
            command.downgrade(config, "0002")
            with engine.connect() as conn:
                assert conn.execute(text(OLD_COUNTS)).one() == (2, 1, 1, 1, 1, 1, 1)
        finally:
            engine.dispose()

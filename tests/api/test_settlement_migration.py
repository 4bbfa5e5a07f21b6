"""Migration 0007 (settlement and Twilight) keeps an existing campaign whole: SQLite adds the
new columns in place (a rebuilt table would be dropped under its foreign keys and cascade
into players, companies and warbands), existing models start at 0 experience and rank 0, and
a campaign gets the house defaults. The downgrade keeps the rows too."""

from __future__ import annotations

from alembic import command
from sqlalchemy import text

from app.core.db import make_engine
from app.core.migrate import alembic_config

ROWS = [
    "INSERT INTO user_account (id, nickname, nickname_key, password_hash, created_at, locale) VALUES (1, 'a', 'a', 'x', '2026-01-01', 'en')",
    "INSERT INTO campaign (id, gm_user_id, name, story, status, round, wizard_step, setup_complete, max_players, starting_gold, "
    "round_income, gold_per_point, sale_loss_percent, warband_points, underdog_points_per_die, alliance_fee, modules, guild, created_at) "
    "VALUES (1, 1, 'c', '', 'running', 2, 6, 1, 6, 400, 50, 1, 50, 200, 25, 10, '{}', '{}', '2026-01-01')",
    "INSERT INTO player (id, campaign_id, user_id, joined_at, gold) VALUES (1, 1, 1, '2026-01-01', 7)",
    "INSERT INTO company (id, campaign_id, player_id, confirmed) VALUES (1, 1, 1, 1)",
    'INSERT INTO company_model (id, company_id, profile_key, name, types, points, stats, special_rules, "unique", healer, price, reward, '
    "status, created_at) VALUES (1, 1, 'orcs.ax', 'Ax', '[]', 12, '{}', '[]', false, false, 12, false, 'miss_next', '2026-01-01')",
    "INSERT INTO warband (id, campaign_id, player_id, name, mercenary_points, mercenary_types, mercenary_unique, created_at) "
    "VALUES (1, 1, 1, 'W', 0, '[]', false, '2026-01-01')",
    "INSERT INTO warband_member (id, warband_id, model_id) VALUES (1, 1, 1)",
]
COUNTS = "SELECT (SELECT count(*) FROM player), (SELECT count(*) FROM company_model), (SELECT count(*) FROM warband_member)"


def test_r7_1_migration_0007_keeps_existing_campaigns_and_their_models(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    cfg = alembic_config(url)
    command.upgrade(cfg, "0006")
    engine = make_engine(url)
    with engine.begin() as conn:
        for row in ROWS:
            conn.execute(text(row))
    command.upgrade(cfg, "head")
    with engine.connect() as conn:
        assert conn.execute(text(COUNTS)).one() == (1, 1, 1)
        assert conn.execute(text("SELECT status, xp, rank, injuries, upgrades, role FROM company_model")).one() == (
            "miss_next",
            0,
            0,
            "[]",
            "[]",
            None,
        )
        assert conn.execute(text("SELECT settlement_rules FROM campaign")).scalar_one() == "{}"
    command.downgrade(cfg, "0006")
    with engine.connect() as conn:
        assert conn.execute(text(COUNTS)).one() == (1, 1, 1)
    engine.dispose()

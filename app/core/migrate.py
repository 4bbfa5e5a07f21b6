"""Apply Alembic migrations from code (the CLI and the tests)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.core.settings import PACKAGE


def alembic_config(url: str) -> Config:
    # No alembic.ini is needed to migrate: the scripts are package data (the one at the
    # checkout's root is for `alembic revision` while developing).
    cfg = Config()
    cfg.set_main_option("script_location", str(PACKAGE / "migrations"))
    cfg.attributes["url"] = url
    return cfg


def upgrade(url: str) -> None:
    command.upgrade(alembic_config(url), "head")

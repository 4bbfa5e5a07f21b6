"""Apply Alembic migrations from code (the CLI and the tests)."""
from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.core.settings import ROOT


def alembic_config(url: str) -> Config:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.attributes["url"] = url
    return cfg


def upgrade(url: str) -> None:
    command.upgrade(alembic_config(url), "head")

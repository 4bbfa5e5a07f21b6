from __future__ import annotations

from alembic import context

from app.core.db import make_engine
from app.core.settings import get_settings
from app.models import metadata

config = context.config


def _url() -> str:
    return config.attributes.get("url") or get_settings().resolved_database_url()


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=metadata, render_as_batch=True, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(_url())
    with engine.connect() as conn:
        _run(conn)
    engine.dispose()


def _run(connection) -> None:
    # Batch mode lets SQLite alter tables by copying them; PostgreSQL ignores it.
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

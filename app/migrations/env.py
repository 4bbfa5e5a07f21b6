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
    # Batch mode lets SQLite alter tables by copying them; PostgreSQL ignores it. Copying drops
    # the old table, which with foreign keys on would cascade into the rows that point at it
    # (or be refused): so they are off while migrating — switched before the transaction
    # begins, as SQLite wants — and every row is checked against them before committing.
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        connection.connection.driver_connection.execute("PRAGMA foreign_keys=OFF")
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()
        if sqlite:
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
            if broken:
                raise RuntimeError(f"rows break foreign keys after migrating: {broken[:10]}")
    if sqlite:
        connection.connection.driver_connection.execute("PRAGMA foreign_keys=ON")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

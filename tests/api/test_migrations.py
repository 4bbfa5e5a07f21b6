"""The schema comes from Alembic; this fails when models and migrations disagree."""
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from app.models import metadata


def test_models_and_migrations_agree(engine):
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(context, metadata)
    assert diff == []


def test_migrations_are_at_head(engine):
    from alembic.script import ScriptDirectory

    from app.core.migrate import alembic_config

    head = ScriptDirectory.from_config(alembic_config("")).get_current_head()
    with engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == head

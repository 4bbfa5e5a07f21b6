"""Tables of this domain (imported by app/models.py for Alembic and the tests)."""

"""ledger note params: a ledger note is a message with parameters, shown in the reader's language

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29 21:40:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Added nullable, filled with {} (older notes are plain text), then made NOT NULL.
    with op.batch_alter_table("ledger_entry", schema=None) as batch_op:
        batch_op.add_column(sa.Column("params", sa.JSON(), nullable=True))
    op.execute("UPDATE ledger_entry SET params = '{}'")
    with op.batch_alter_table("ledger_entry", schema=None) as batch_op:
        batch_op.alter_column("params", existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("ledger_entry", schema=None) as batch_op:
        batch_op.drop_column("params")

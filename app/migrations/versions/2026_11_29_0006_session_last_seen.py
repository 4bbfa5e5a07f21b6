"""session last seen: browser sessions expire after an idle period and an absolute age

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-29 20:30:00.000000
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Added nullable, filled from created_at, then made NOT NULL (SQLite cannot add a
    # NOT NULL column without a constant default; batch mode copies the table).
    with op.batch_alter_table("user_session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_seen_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.execute("UPDATE user_session SET last_seen_at = created_at")
    with op.batch_alter_table("user_session", schema=None) as batch_op:
        batch_op.alter_column("last_seen_at", existing_type=sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("user_session", schema=None) as batch_op:
        batch_op.drop_column("last_seen_at")

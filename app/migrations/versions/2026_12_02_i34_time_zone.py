"""the reader's time zone on the account (issue 34)

Revision ID: i34_time_zone
Revises: 0029
Create Date: 2026-12-02 03:05:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "i34_time_zone"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("user_account", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_zone", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("user_account", schema=None) as batch_op:
        batch_op.drop_column("time_zone")

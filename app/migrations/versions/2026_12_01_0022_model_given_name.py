"""a name the player gives a company model (issue 29 item 7)

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-01 21:50:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable: a model without one is told apart by its number among its profile.
    with op.batch_alter_table("company_model", schema=None) as batch_op:
        batch_op.add_column(sa.Column("given_name", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("company_model", schema=None) as batch_op:
        batch_op.drop_column("given_name")

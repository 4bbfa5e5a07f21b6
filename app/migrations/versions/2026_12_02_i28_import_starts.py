"""imports counted in the database, so that every server worker counts the same (issue 28)

Revision ID: i28_import_starts
Revises: i33_table
Create Date: 2026-12-02 06:45:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "i28_import_starts"
down_revision = "i33_table"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "import_start",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_import_start_user_id_user_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_import_start")),
    )
    with op.batch_alter_table("import_start", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_import_start_at"), ["at"], unique=False)
        batch_op.create_index(batch_op.f("ix_import_start_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("import_start", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_import_start_user_id"))
        batch_op.drop_index(batch_op.f("ix_import_start_at"))
    op.drop_table("import_start")

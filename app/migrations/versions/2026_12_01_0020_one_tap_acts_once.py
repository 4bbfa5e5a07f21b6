"""one tap acts once: idempotency keys and each session's count of acts (SPEC R11.6)

Revision ID: 0020
Revises: 0018
Create Date: 2026-12-01 21:20:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0020"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotency_key",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("request_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("claimed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("headers", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("body", sa.LargeBinary(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_idempotency_key_user_id_user_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_idempotency_key")),
        sa.UniqueConstraint("user_id", "key", name=op.f("uq_idempotency_key_user_id_key")),
    )
    with op.batch_alter_table("idempotency_key", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_idempotency_key_claimed_at"), ["claimed_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_idempotency_key_user_id"), ["user_id"], unique=False)
    with op.batch_alter_table("user_session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("acts", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("user_session", schema=None) as batch_op:
        batch_op.drop_column("acts")
    with op.batch_alter_table("idempotency_key", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_idempotency_key_user_id"))
        batch_op.drop_index(batch_op.f("ix_idempotency_key_claimed_at"))
    op.drop_table("idempotency_key")

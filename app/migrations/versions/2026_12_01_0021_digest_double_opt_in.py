"""digest double opt-in: a confirmed address, the link's token hash, and the confirmation mails sent (issue 28)

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-01 21:15:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "digest_confirmation_mail",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_digest_confirmation_mail_user_id_user_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_digest_confirmation_mail")),
    )
    with op.batch_alter_table("digest_confirmation_mail", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_digest_confirmation_mail_address"), ["address"], unique=False)
        batch_op.create_index(batch_op.f("ix_digest_confirmation_mail_sent_at"), ["sent_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_digest_confirmation_mail_user_id"), ["user_id"], unique=False)
    # Addresses typed before are unconfirmed: they get no digest until their owner confirms.
    with op.batch_alter_table("digest_subscription", schema=None) as batch_op:
        batch_op.add_column(sa.Column("confirmed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
        batch_op.add_column(sa.Column("token_sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("digest_subscription", schema=None) as batch_op:
        batch_op.drop_column("token_sent_at")
        batch_op.drop_column("token_hash")
        batch_op.drop_column("confirmed_at")
    with op.batch_alter_table("digest_confirmation_mail", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_digest_confirmation_mail_user_id"))
        batch_op.drop_index(batch_op.f("ix_digest_confirmation_mail_sent_at"))
        batch_op.drop_index(batch_op.f("ix_digest_confirmation_mail_address"))
    op.drop_table("digest_confirmation_mail")

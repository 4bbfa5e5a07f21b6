"""imported seats

Revision ID: 0018
Revises: 0015
Create Date: 2026-12-01 12:48:15.030538
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "imported_seat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("nickname", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("invited_user_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_imported_seat_campaign_id_campaign"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["invited_user_id"],
            ["user_account.id"],
            name=op.f("fk_imported_seat_invited_user_id_user_account"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"], name=op.f("fk_imported_seat_player_id_player"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_imported_seat")),
        sa.UniqueConstraint("player_id", name=op.f("uq_imported_seat_player_id")),
    )
    with op.batch_alter_table("imported_seat", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_imported_seat_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_imported_seat_invited_user_id"), ["invited_user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("imported_seat", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_imported_seat_invited_user_id"))
        batch_op.drop_index(batch_op.f("ix_imported_seat_campaign_id"))

    op.drop_table("imported_seat")

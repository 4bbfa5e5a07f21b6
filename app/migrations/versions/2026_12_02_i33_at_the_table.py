"""at the table: one-tap confirm links and battle photos (R12.2, R12.3)

Revision ID: i33_table
Revises: i34_time_zone
Create Date: 2026-12-02 02:50:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "i33_table"
down_revision = "i34_time_zone"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "battle_confirm_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("battle_id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("made_by_player_id", sa.Integer(), nullable=False),
        sa.Column("side", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("phase", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("used_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["battle_id"], ["battle.id"], name=op.f("fk_battle_confirm_link_battle_id_battle"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_battle_confirm_link_campaign_id_campaign"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["made_by_player_id"], ["player.id"], name=op.f("fk_battle_confirm_link_made_by_player_id_player"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_battle_confirm_link")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_battle_confirm_link_token_hash")),
    )
    with op.batch_alter_table("battle_confirm_link", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_battle_confirm_link_battle_id"), ["battle_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_battle_confirm_link_campaign_id"), ["campaign_id"], unique=False)
    op.create_table(
        "battle_photo",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("battle_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["battle_id"], ["battle.id"], name=op.f("fk_battle_photo_battle_id_battle"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"], name=op.f("fk_battle_photo_player_id_player"), ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_battle_photo")),
    )
    with op.batch_alter_table("battle_photo", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_battle_photo_battle_id"), ["battle_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("battle_photo", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_battle_photo_battle_id"))
    op.drop_table("battle_photo")
    with op.batch_alter_table("battle_confirm_link", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_battle_confirm_link_campaign_id"))
        batch_op.drop_index(batch_op.f("ix_battle_confirm_link_battle_id"))
    op.drop_table("battle_confirm_link")

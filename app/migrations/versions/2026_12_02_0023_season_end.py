"""the season's end (issue 35): places per round (R12.6), club screen links (R12.5), calendar links (R12.7)

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-02 02:37:54.618723
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calendar_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_calendar_link_campaign_id_campaign"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_calendar_link_user_id_user_account"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calendar_link")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_calendar_link_token_hash")),
    )
    with op.batch_alter_table("calendar_link", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_calendar_link_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_calendar_link_user_id"), ["user_id"], unique=False)

    op.create_table(
        "screen_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_screen_link_campaign_id_campaign"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_screen_link")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_screen_link_token_hash")),
    )
    with op.batch_alter_table("screen_link", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_screen_link_campaign_id"), ["campaign_id"], unique=False)

    op.create_table(
        "place_round",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("place_id", sa.Integer(), nullable=False),
        sa.Column("owner_player_id", sa.Integer(), nullable=True),
        sa.Column("hideout_player_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_place_round_campaign_id_campaign"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["hideout_player_id"], ["player.id"], name=op.f("fk_place_round_hideout_player_id_player"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["owner_player_id"], ["player.id"], name=op.f("fk_place_round_owner_player_id_player"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(["place_id"], ["place.id"], name=op.f("fk_place_round_place_id_place"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_place_round")),
        sa.UniqueConstraint("campaign_id", "round", "place_id", name=op.f("uq_place_round_campaign_id_round_place_id")),
    )
    with op.batch_alter_table("place_round", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_place_round_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_place_round_place_id"), ["place_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("place_round", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_place_round_place_id"))
        batch_op.drop_index(batch_op.f("ix_place_round_campaign_id"))

    op.drop_table("place_round")
    with op.batch_alter_table("screen_link", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_screen_link_campaign_id"))

    op.drop_table("screen_link")
    with op.batch_alter_table("calendar_link", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_calendar_link_user_id"))
        batch_op.drop_index(batch_op.f("ix_calendar_link_campaign_id"))

    op.drop_table("calendar_link")

"""the change counters of each audience of a campaign (issue 37: a cheap revalidation)

Revision ID: i37_audience_versions
Revises: i27_live_audience
Create Date: 2026-12-07 09:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "i37_audience_versions"
down_revision = "i27_live_audience"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audience_version",
        sa.Column("campaign_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "seat", name=op.f("pk_audience_version")),
    )


def downgrade() -> None:
    op.drop_table("audience_version")

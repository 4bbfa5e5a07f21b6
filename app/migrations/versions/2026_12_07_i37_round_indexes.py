"""a round's rows of one campaign by an index of both (issue 37: a page's reads of the round
went through the index of the round alone, every campaign's on the host, or of the campaign
alone, every round of its season)

Revision ID: i37_round_indexes
Revises: i37_audience_versions
Create Date: 2026-12-07 15:00:00
"""

from alembic import op

revision = "i37_round_indexes"
down_revision = "i37_audience_versions"
branch_labels = None
depends_on = None

# Each table, and whether it had an index of the round alone (replaced: nothing reads by the
# round without the campaign).
_BY_ROUND = {"battle": True, "arrival": True, "settlement": True, "mission_alliance": True, "warband_order": False}


def upgrade() -> None:
    for table, had_round_index in _BY_ROUND.items():
        op.create_index(op.f(f"ix_{table}_campaign_id_round"), table, ["campaign_id", "round"], unique=False)
        if had_round_index:
            op.drop_index(op.f(f"ix_{table}_round"), table_name=table)
    op.create_index(op.f("ix_event_campaign_id_ended_round"), "event", ["campaign_id", "ended_round"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_event_campaign_id_ended_round"), table_name="event")
    for table, had_round_index in _BY_ROUND.items():
        if had_round_index:
            op.create_index(op.f(f"ix_{table}_round"), table, ["round"], unique=False)
        op.drop_index(op.f(f"ix_{table}_campaign_id_round"), table_name=table)

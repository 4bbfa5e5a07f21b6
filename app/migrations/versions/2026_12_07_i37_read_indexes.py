"""a round's rows of one campaign by an index of both, and a viewer's letters, the pending
guild requests and a kind of ledger entries by an index with the campaign (issue 37: a page's
reads went through the index of the round alone, every campaign's on the host, or of the
campaign alone, every round of its season, every member's letters)

Revision ID: i37_read_indexes
Revises: i37_audience_versions
Create Date: 2026-12-07 15:00:00
"""

from alembic import op

revision = "i37_read_indexes"
down_revision = "i37_audience_versions"
branch_labels = None
depends_on = None

# Each table, and whether it had an index of the round alone (replaced: nothing reads by the
# round without the campaign).
_BY_ROUND = {"battle": True, "arrival": True, "settlement": True, "mission_alliance": True, "warband_order": False}

# A viewer's own rows of a table, or the rows of one kind, read without the campaign's others.
_NARROWED = (
    ("letter", "ix_letter_campaign_id_to_player_id", ["campaign_id", "to_player_id"]),
    ("letter", "ix_letter_campaign_id_from_player_id", ["campaign_id", "from_player_id"]),
    ("guild_request", "ix_guild_request_campaign_id_status", ["campaign_id", "status"]),
    ("ledger_entry", "ix_ledger_entry_campaign_id_kind", ["campaign_id", "kind"]),
)


def upgrade() -> None:
    for table, had_round_index in _BY_ROUND.items():
        op.create_index(op.f(f"ix_{table}_campaign_id_round"), table, ["campaign_id", "round"], unique=False)
        if had_round_index:
            op.drop_index(op.f(f"ix_{table}_round"), table_name=table)
    op.create_index(op.f("ix_event_campaign_id_ended_round"), "event", ["campaign_id", "ended_round"], unique=False)
    for table, name, columns in _NARROWED:
        op.create_index(name, table, columns, unique=False)


def downgrade() -> None:
    for table, name, _columns in _NARROWED:
        op.drop_index(name, table_name=table)
    op.drop_index(op.f("ix_event_campaign_id_ended_round"), table_name="event")
    for table, had_round_index in _BY_ROUND.items():
        if had_round_index:
            op.create_index(op.f(f"ix_{table}_round"), table, ["round"], unique=False)
        op.drop_index(op.f(f"ix_{table}_campaign_id_round"), table_name=table)

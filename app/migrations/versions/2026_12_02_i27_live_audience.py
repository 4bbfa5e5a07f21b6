"""who may hear of each live event, so a page finds its viewer's newest one in one seek (R11.2)

Revision ID: i27_live_audience
Revises: i28_import_starts
Create Date: 2026-12-02 06:50:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "i27_live_audience"
down_revision = "i28_import_starts"
branch_labels = None
depends_on = None

PUBLIC = ("phase", "battles", "result", "clock")


def upgrade() -> None:
    op.create_table(
        "live_audience",
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("audience", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["live_event.id"], name=op.f("fk_live_audience_event_id_live_event"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("event_id", "audience", name=op.f("pk_live_audience")),
    )
    with op.batch_alter_table("live_audience", schema=None) as batch_op:
        batch_op.create_index(
            "ix_live_audience_campaign_id_audience_event_id", ["campaign_id", "audience", "event_id"], unique=False
        )
    _backfill(op.get_bind())


def _backfill(conn) -> None:
    """The kept events (a week at most) get their audiences by the rules of app/live/seen.py
    `audiences`, so that open pages resume where they were instead of replaying the week."""
    meta = sa.MetaData()
    event = sa.Table(
        "live_event",
        meta,
        sa.Column("id"),
        sa.Column("campaign_id"),
        sa.Column("kind"),
        sa.Column("subject_id"),
        sa.Column("data", sa.JSON),
    )
    letter = sa.Table("letter", meta, sa.Column("id"), sa.Column("from_player_id"), sa.Column("to_player_id"))
    transfer = sa.Table("transfer", meta, sa.Column("id"), sa.Column("from_player_id"), sa.Column("to_player_id"))
    request = sa.Table("guild_request", meta, sa.Column("id"), sa.Column("guild_id"), sa.Column("player_id"))
    guild = sa.Table("guild", meta, sa.Column("id"), sa.Column("founder_player_id"))
    member = sa.Table("mission_alliance_member", meta, sa.Column("alliance_id"), sa.Column("player_id"), sa.Column("status"))

    def side(player_id):
        return "gm-side" if player_id is None else f"p{player_id}"

    def players(*ids):
        return {f"p{p}" for p in ids if isinstance(p, int)}

    def named(kind, column):  # only the subjects a kept event names
        return column.in_(sa.select(event.c.subject_id).where(event.c.kind == kind))

    letters = {
        i: {side(a), side(b)}
        for i, a, b in conn.execute(
            sa.select(letter.c.id, letter.c.from_player_id, letter.c.to_player_id).where(named("letter", letter.c.id))
        )
    }
    transfers = {
        i: players(a, b)
        for i, a, b in conn.execute(
            sa.select(transfer.c.id, transfer.c.from_player_id, transfer.c.to_player_id).where(named("transfer", transfer.c.id))
        )
    }
    guilds = {
        i: players(a, b)
        for i, a, b in conn.execute(
            sa.select(request.c.id, request.c.player_id, guild.c.founder_player_id)
            .join(guild, guild.c.id == request.c.guild_id)
            .where(named("guild", request.c.id))
        )
    }
    alliances: dict = {}
    for aid, pid in conn.execute(
        sa.select(member.c.alliance_id, member.c.player_id).where(
            named("alliance", member.c.alliance_id), member.c.status.in_(("invited", "member"))
        )
    ):
        alliances.setdefault(aid, set()).add(f"p{pid}")
    subjects = {"letter": letters, "transfer": transfers, "guild": guilds, "alliance": alliances}
    rows = []
    for eid, cid, kind, subject_id, data in conn.execute(
        sa.select(event.c.id, event.c.campaign_id, event.c.kind, event.c.subject_id, event.c.data)
    ):
        data = data or {}
        if kind in PUBLIC:
            names = {"all"}
        elif kind == "twilight":
            names = {"gm"}
        elif kind in ("order", "settlement"):
            names = {"gm", *players(data.get("player_id"))}
        elif kind == "ransom":
            names = {"gm", *players(data.get("owner_player_id"), data.get("captor_player_id"))}
        else:
            names = subjects.get(kind, {}).get(subject_id, set())
        rows += [{"event_id": eid, "campaign_id": cid, "audience": name} for name in sorted(names)]
    if rows:
        audience = sa.Table("live_audience", meta, sa.Column("event_id"), sa.Column("campaign_id"), sa.Column("audience"))
        conn.execute(sa.insert(audience), rows)


def downgrade() -> None:
    with op.batch_alter_table("live_audience", schema=None) as batch_op:
        batch_op.drop_index("ix_live_audience_campaign_id_audience_event_id")

    op.drop_table("live_audience")

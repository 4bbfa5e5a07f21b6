"""What of the live stream (R11.4) a viewer may hear (SPEC R11.2): the events and, for private
ones, their subject rows as this viewer may see them. Split from app/visibility.py, whose rules
of who sees a letter, an alliance or a settlement it applies."""

from __future__ import annotations

from sqlalchemy import or_
from sqlmodel import Session, col, select

from app.core.db import saved_id
from app.gold.models import Transfer
from app.guilds.models import Guild, GuildRequest
from app.letters.models import Letter
from app.visibility import Viewer, may_see_settlement, visible_alliances, visible_letters

# Public from the moment they happen: every member may hear of them.
LIVE_PUBLIC = {"phase", "battles", "result", "clock"}


def live_events_seen_by(session: Session, viewer: Viewer, events: list) -> list[tuple[object, object | None]]:
    """The live events (app/live) this viewer may hear of, each with its subject row as this
    viewer may see it (a letter, a transfer, a guild request with its guild, an alliance).
    Everything else is dropped without a trace: no name, no count (R11.2)."""
    by_kind: dict[str, set[int]] = {}
    for ev in events:
        if ev.subject_id is not None:
            by_kind.setdefault(ev.kind, set()).add(ev.subject_id)
    subjects = _live_subjects(session, viewer, by_kind)
    seen: list[tuple[object, object | None]] = []
    for ev in events:
        if ev.kind in LIVE_PUBLIC:
            seen.append((ev, None))
        elif ev.kind == "twilight":
            if viewer.is_gm:
                seen.append((ev, None))
        elif ev.kind == "order":
            # An undone order is its owner's and the GM's, like the order itself (R4.7).
            if viewer.is_gm or (viewer.player is not None and viewer.player.id == (ev.data or {}).get("player_id")):
                seen.append((ev, None))
        elif ev.kind == "ransom":
            # A prisoner is the two players' and the GM's business, like the ransom (V12).
            data = ev.data or {}
            if viewer.is_gm or (
                viewer.player is not None and viewer.player.id in (data.get("owner_player_id"), data.get("captor_player_id"))
            ):
                seen.append((ev, None))
        elif ev.kind == "settlement":
            if may_see_settlement(viewer, (ev.data or {}).get("player_id", -1)):
                seen.append((ev, None))
        elif (ev.kind, ev.subject_id) in subjects:
            seen.append((ev, subjects[(ev.kind, ev.subject_id)]))
    return seen


def _live_subjects(session: Session, viewer: Viewer, by_kind: dict[str, set[int]]) -> dict[tuple[str, int], object]:
    """One statement per kind of private subject, each already limited to this viewer."""
    found: dict[tuple[str, int], object] = {}
    me = viewer.player.id if viewer.player else None
    if by_kind.get("letter"):
        for letter in session.exec(visible_letters(viewer).where(col(Letter.id).in_(by_kind["letter"]))).all():
            found[("letter", saved_id(letter.id))] = letter
    if by_kind.get("transfer") and me is not None:
        for t in session.exec(
            select(Transfer).where(
                col(Transfer.id).in_(by_kind["transfer"]),
                Transfer.campaign_id == viewer.campaign.id,
                or_(col(Transfer.from_player_id) == me, col(Transfer.to_player_id) == me),
            )
        ).all():
            found[("transfer", saved_id(t.id))] = t
    if by_kind.get("guild") and me is not None:
        rows = session.exec(
            select(GuildRequest, Guild)
            .join(Guild, col(Guild.id) == GuildRequest.guild_id)
            .where(col(GuildRequest.id).in_(by_kind["guild"]), GuildRequest.campaign_id == viewer.campaign.id)
        ).all()
        for request, guild in rows:
            # A request is the asker's and the founder's business; an invitation, the invitee's and the founder's.
            if me in (request.player_id, guild.founder_player_id):
                found[("guild", saved_id(request.id))] = (request, guild)
    if by_kind.get("alliance") and me is not None:
        for alliance in visible_alliances(session, viewer):
            if alliance.id in by_kind["alliance"]:
                found[("alliance", saved_id(alliance.id))] = alliance
    return found

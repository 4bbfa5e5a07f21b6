"""What of the live stream (R11.4) a viewer may hear (SPEC R11.2): the events and, for private
ones, their subject rows as this viewer may see them. Split from app/visibility/, whose rules
of who sees a letter, an alliance or a settlement it applies."""

from __future__ import annotations

from sqlalchemy import bindparam, or_
from sqlmodel import Session, col, select

from app.alliances.models import AllianceMember
from app.core.db import saved_id
from app.gold.models import Transfer
from app.guilds.models import Guild, GuildRequest
from app.letters.models import Letter
from app.visibility import Viewer, may_see_settlement, readable_letters, visible_alliances

# Public from the moment they happen: every member may hear of them.
LIVE_PUBLIC = {"phase", "battles", "result", "clock"}
# Audiences (app/live/models.py LiveAudience): every member, the GMs, one player ("p12"), and the
# GM's side of letters (a GM who plays writes as their player, app/visibility/).
EVERYONE, GMS, GM_SIDE = "all", "gm", "gm-side"


def player_audience(player_id: int) -> str:
    return f"p{player_id}"


def viewer_audiences(viewer: Viewer) -> list[str]:
    """The audiences this viewer belongs to: an event is theirs when it names one of them."""
    found = [EVERYONE]
    if viewer.is_gm:
        found.append(GMS)
    if viewer.player is not None:
        found.append(player_audience(saved_id(viewer.player.id)))
    elif viewer.is_gm:
        found.append(GM_SIDE)
    return found


def audiences(session: Session, events: list[dict]) -> list[set[str]]:
    """Who may hear of each new event (dicts as `live.publish` keeps them), as it is written: the
    same rules as `live_events_seen_by` below, applied once by the writer, so that a reader
    finds its newest event without reading the events hidden from it. One statement per kind
    of private subject."""
    subjects = _subject_audiences(session, events)
    found: list[set[str]] = []
    for ev in events:
        kind, data = ev["kind"], ev.get("data") or {}
        if kind in LIVE_PUBLIC:
            names = {EVERYONE}
        elif kind == "twilight":
            names = {GMS}
        elif kind in ("order", "settlement"):
            names = {GMS, *_players(data.get("player_id"))}
        elif kind == "ransom":
            names = {GMS, *_players(data.get("owner_player_id"), data.get("captor_player_id"))}
        else:
            names = subjects.get((kind, ev.get("subject_id")), set())
        found.append(names)
    return found


def _players(*player_ids) -> set[str]:
    return {player_audience(p) for p in player_ids if isinstance(p, int)}


def _letter_side(player_id: int | None) -> str:
    return GM_SIDE if player_id is None else player_audience(player_id)


# Each subject's parties by its ids, built once (issue 37: every event published asked them, built anew).
_LETTER_SIDES = select(Letter.id, Letter.from_player_id, Letter.to_player_id).where(
    col(Letter.id).in_(bindparam("ids", expanding=True))
)
_TRANSFER_SIDES = select(Transfer.id, Transfer.from_player_id, Transfer.to_player_id).where(
    col(Transfer.id).in_(bindparam("ids", expanding=True))
)
_GUILD_SIDES = (
    select(GuildRequest.id, GuildRequest.player_id, Guild.founder_player_id)
    .join(Guild, col(Guild.id) == GuildRequest.guild_id)
    .where(col(GuildRequest.id).in_(bindparam("ids", expanding=True)))
)
_ALLIANCE_SIDES = select(AllianceMember.alliance_id, AllianceMember.player_id).where(
    col(AllianceMember.alliance_id).in_(bindparam("ids", expanding=True)), col(AllianceMember.status).in_(("invited", "member"))
)


def _subject_audiences(session: Session, events: list[dict]) -> dict[tuple[str, int | None], set[str]]:
    """The parties of each letter, transfer, guild request and alliance the events name."""
    ids: dict[str, set[int]] = {}
    for ev in events:
        if ev.get("subject_id") is not None:
            ids.setdefault(ev["kind"], set()).add(ev["subject_id"])
    found: dict[tuple[str, int | None], set[str]] = {}
    if ids.get("letter"):
        for lid, sender, to in session.exec(_LETTER_SIDES, params={"ids": sorted(ids["letter"])}).all():
            found[("letter", lid)] = {_letter_side(sender), _letter_side(to)}
    if ids.get("transfer"):
        for tid, sender, to in session.exec(_TRANSFER_SIDES, params={"ids": sorted(ids["transfer"])}).all():
            found[("transfer", tid)] = _players(sender, to)
    if ids.get("guild"):
        for rid, asker, founder in session.exec(_GUILD_SIDES, params={"ids": sorted(ids["guild"])}).all():
            found[("guild", rid)] = _players(asker, founder)
    if ids.get("alliance"):
        # Its members and invitees; the rest of the campaign hears of it from its round's
        # Battles on (visible_alliances), after the public "battles" event that names everyone.
        for aid, player_id in session.exec(_ALLIANCE_SIDES, params={"ids": sorted(ids["alliance"])}).all():
            found.setdefault(("alliance", aid), set()).add(player_audience(player_id))
    return found


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
        query, params = readable_letters(viewer, "of_ids")
        for letter in session.exec(query, params={**params, "ids": sorted(by_kind["letter"])}).all():
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

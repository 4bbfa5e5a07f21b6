"""A campaign as one JSON document (docs/export.md): writing it out.

Every row gets a number within its part (1, 2, 3… in the order the rows were made), and every
reference — foreign keys and the ids inside JSON (blobs.py) — is written as the number of the
row it points to. Database ids of this server never leave it, and an import that creates the
rows in the same order exports as the same document."""

from __future__ import annotations

import base64
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path as FsPath

from sqlmodel import Session, select

from app.accounts.models import User
from app.battles.photos import photos_dir
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.exports import audit_rows, blobs
from app.exports.parts import BY_NAME, CHILDREN, IMAGE_COLUMNS, PARTS, TOP, Part, columns, reference
from app.gold.models import LedgerEntry
from app.visibility import Viewer, secret_ledger_filter, visible_alliances

FORMAT = "hideout-campaign"
VERSION = 1
# "gm": what the campaign's GM may see (R11.2), for the page and the API; "server": all of it
# but letters, for whoever runs the server (`hideout export`, who holds the database anyway).
SCOPES = ("gm", "server")
CAMPAIGN_SKIPPED = {"id", "gm_user_id"} | IMAGE_COLUMNS


def plain(value):
    """A column's value as JSON: times in UTC with their offset."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).isoformat()
    return value


def image(media_dir: FsPath, *names: str | None) -> str | None:
    """The first of these stored files that is there, base64-encoded; the original comes
    first, so the other server makes its own web copy from the full picture."""
    for name in names:
        if name and "/" not in name and (media_dir / name).is_file():
            return base64.b64encode((media_dir / name).read_bytes()).decode("ascii")
    return None


def _rows(session: Session, part: Part, campaign_id: int) -> list:
    model = part.model
    query = select(model)
    if "campaign_id" in model.__table__.columns:
        query = query.where(model.campaign_id == campaign_id)
    else:
        parent = BY_NAME[part.parent].model
        query = query.join(parent, getattr(model, part.via) == parent.id).where(parent.campaign_id == campaign_id)
    return list(session.exec(query.order_by(model.id)).all())


def _as_gm_sees(session: Session, viewer: Viewer, rows: dict[str, list]) -> None:
    """Leaves out what the GM may not see (R11.2): transfers and the ledger entries only their
    owner sees (R8.11, and mission-alliance fees before Battles, R8.8), mission alliances not
    yet public, guild requests (the founder's and the asker's), and warbands never sent nor
    fought (their owner's alone). Letters are in no document (R8.12)."""
    shown = set(
        session.exec(
            select(LedgerEntry.id).where(LedgerEntry.campaign_id == viewer.campaign.id, secret_ledger_filter(viewer, 0))
        ).all()
    )
    rows["ledger"] = [e for e in rows["ledger"] if e.id in shown]
    rows["transfers"], rows["guild_requests"] = [], []
    public = {a.id for a in visible_alliances(session, viewer)}
    rows["alliances"] = [a for a in rows["alliances"] if a.id in public]
    rows["alliance_members"] = [m for m in rows["alliance_members"] if m.alliance_id in public and m.status == "member"]
    seen = {r.warband_id for name in ("orders", "battle_warbands", "arrivals", "settlements") for r in rows[name]}
    rows["warbands"] = [w for w in rows["warbands"] if w.id in seen]
    rows["warband_members"] = [m for m in rows["warband_members"] if m.warband_id in seen]


def build(session: Session, campaign: Campaign, *, scope: str, media_dir: FsPath, viewer: Viewer | None = None) -> dict:
    """The document. `scope` "gm" needs the GM's `viewer`."""
    rows = {part.name: _rows(session, part, campaign.id) for part in PARTS}
    if scope == "gm":
        _as_gm_sees(session, viewer, rows)
    numbers = {name: {row.id: n for n, row in enumerate(found, 1)} for name, found in rows.items()}

    def look(part: str, row_id: int) -> int | None:
        return numbers[part].get(row_id)

    nicknames = campaigns.nicknames(session, campaign.id)
    out: dict[str, list] = {}
    under: dict[tuple[str, int], list] = defaultdict(list)  # (child part, parent number) -> rows
    for part in PARTS:
        written = []
        for row in rows[part.name]:
            data = _row(part, row, look, media_dir)
            if part.name == "players":
                data["nickname"] = nicknames[row.id]
            if part.parent:
                parent = look(part.parent, getattr(row, part.via))
                if parent is not None:
                    under[(part.name, parent)].append(data)
            written.append(data)
        out[part.name] = written
    if scope == "gm":
        _ledger_figures(out, {numbers["players"][p.id] for p in rows["players"] if viewer.sees_balance_of(p.id)})
    for part in PARTS:
        for data in out[part.name]:
            for child in CHILDREN[part.name]:
                data[child.key] = under.get((child.name, data["id"]), [])
    # No time of export: the same campaign gives the same document, so a copy can be compared
    # with another, and nothing in it changes but what changed in the campaign.
    doc = {"format": FORMAT, "version": VERSION, "scope": scope, "campaign": _campaign(session, campaign, media_dir)}
    doc.update({part.name: out[part.name] for part in TOP})
    doc["audit"] = audit_rows.write(session, campaign.id, look)  # R12.9
    return doc


def partial(session: Session, campaign: Campaign, names: tuple[str, ...], *, media_dir: FsPath) -> dict:
    """The document of the campaign with only these top parts, their children left out: a
    reference to a part left out is written as null (a place's owner without the players).
    A campaign's copy is made from it (exports/copying.py)."""
    rows = {name: _rows(session, BY_NAME[name], campaign.id) for name in names}
    numbers = {name: {row.id: n for n, row in enumerate(found, 1)} for name, found in rows.items()}

    def look(part: str, row_id: int) -> int | None:
        return numbers.get(part, {}).get(row_id)

    doc = {"format": FORMAT, "version": VERSION, "scope": "gm", "campaign": _campaign(session, campaign, media_dir)}
    doc.update({name: [_row(BY_NAME[name], row, look, media_dir) for row in rows[name]] for name in names})
    return doc


def _row(part: Part, row, look, media_dir: FsPath) -> dict:
    data = {"id": look(part.name, row.id)}
    for column in columns(part):
        value = getattr(row, column.name)
        target = reference(column)
        if target == "user":
            continue  # a player is known by nickname (build)
        if target is not None:
            value = None if value is None else look(target, value)
        elif (part.table, column.name) in blobs.BLOBS:
            value = blobs.BLOBS[(part.table, column.name)](look, value)
        data[column.name] = plain(value)
    if part.name == "places":
        data["map"] = image(media_dir, row.map_original, row.map_image)
    if part.name == "battle_photos":
        data["image"] = image(photos_dir(media_dir), row.name)
    return data


def _ledger_figures(out: dict[str, list], shown: set[int]) -> None:
    """The GM's document gives a balance where the GM's ledger page does (R11.2,
    `Viewer.sees_balance_of`): each one the sum of the entries in it, so that nothing left out
    can be worked back from the figures. With gold transfers on it gives none — `gold` and
    `balance_after` are null — for any figure would then be the balance without transfers,
    which tells of one (and goes below zero for a player who spent gold received)."""
    running: dict[int, int] = defaultdict(int)
    for entry in out["ledger"]:
        running[entry["player_id"]] += entry["amount"]
        entry["balance_after"] = running[entry["player_id"]] if entry["player_id"] in shown else None
    for player in out["players"]:
        player["gold"] = running.get(player["id"], 0) if player["id"] in shown else None


def _campaign(session: Session, campaign: Campaign, media_dir: FsPath) -> dict:
    data = {c.name: plain(getattr(campaign, c.name)) for c in Campaign.__table__.columns if c.name not in CAMPAIGN_SKIPPED}
    data["gm"] = session.exec(select(User.nickname).where(User.id == campaign.gm_user_id)).one()
    data["map"] = image(media_dir, campaign.map_original, campaign.map_image)
    data["cover"] = image(media_dir, campaign.cover_image)
    return data

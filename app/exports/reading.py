"""A campaign document read back (docs/export.md): checked, then created part by part in the
order of parts.py, each row's numbers turned into the new rows' ids. Whatever the document
holds, the answer is a new campaign or a refusal that names what is wrong — never a crash."""

from __future__ import annotations

import base64
import binascii
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path as FsPath
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Integer
from sqlmodel import Session

from app.accounts import rules as account_rules
from app.accounts.models import User
from app.battles import photos
from app.campaigns import house_rules
from app.campaigns import rules as campaign_rules
from app.campaigns.models import Campaign, Player
from app.core.errors import DomainError
from app.core.images import store_image
from app.exports import audit_rows, blobs, checks
from app.exports.document import CAMPAIGN_SKIPPED, FORMAT, VERSION
from app.exports.parts import BY_NAME, CHILDREN, PARTS, TOP, Part, columns, reference

Rows = dict[str, list[dict]]


# --- checking -----------------------------------------------------------------------------------


def check(doc: Any) -> Rows:
    """The document's shape, and its parts as flat lists (children out of their parents,
    each with its parent's number), in the order of their numbers."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DomainError("import_not_export", format=FORMAT)
    if doc.get("version") != VERSION:
        raise DomainError("import_version", version=str(doc.get("version")), supported=VERSION)
    if not isinstance(doc.get("campaign"), dict):
        raise DomainError("import_part_invalid", part="campaign")
    flat: Rows = {part.name: [] for part in PARTS}
    for part in TOP:
        _take(flat, part, doc.get(part.name, []), None)
    for part in PARTS:
        numbers = [row["id"] for row in flat[part.name]]
        if len(set(numbers)) != len(numbers):
            raise DomainError("import_part_invalid", part=_label(part))
        flat[part.name].sort(key=lambda row: row["id"])
    checks.check(flat, doc["campaign"])
    return flat


def _take(flat: Rows, part: Part, rows: Any, parent: int | None) -> None:
    if not isinstance(rows, list):
        raise DomainError("import_part_invalid", part=_label(part))
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not _number(row.get("id")):
            raise DomainError("import_row_invalid", part=_label(part), row=n, field="id")
        row = dict(row)
        if part.via:
            row[part.via] = parent
        for child in CHILDREN[part.name]:
            _take(flat, child, row.pop(child.key, []), row["id"])
        flat[part.name].append(row)


def _number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _label(part: Part) -> str:
    """A part as the document names it: `companies.models` for a nested one."""
    return f"{BY_NAME[part.parent].name}.{part.key}" if part.parent else part.name


# --- creating -------------------------------------------------------------------------------------


class Created:
    """Document number -> new id, per part."""

    def __init__(self) -> None:
        self.ids: dict[str, dict[int, int]] = defaultdict(dict)
        self.gold: dict[int, tuple[str, int]] = {}  # player number -> (nickname, gold)

    def look(self, part: str, number: int) -> int | None:
        return self.ids[part].get(number)


def create(
    session: Session,
    *,
    actor: User,
    flat: Rows,
    doc: dict,
    media_dir: FsPath,
    stored: list[FsPath],
    holders: Callable[[list[str]], list[User]],
) -> Campaign:
    """Creates everything; `holders` makes the placeholder accounts the players start with."""
    created = Created()
    _balances_not_given(flat)
    campaign = _campaign(session, actor, doc["campaign"], media_dir, stored)
    _players(session, campaign, flat["players"], created, holders)
    for part in PARTS[1:]:
        _part(session, campaign, part, flat[part.name], created, media_dir, stored)
    _check_gold(flat, created)
    audit_rows.read(session, campaign, doc.get("audit", []), created.look, actor)  # R12.9
    return campaign


INT_RANGE = (-(2**31), 2**31 - 1)  # PostgreSQL `integer`; SQLite would take more, and the two must agree


def _validated(model: type, data: dict, label: str, row: int | str):
    try:
        obj = model.model_validate(data)
    except ValidationError as exc:
        where = ".".join(str(x) for x in exc.errors()[0]["loc"]) or "?"
        raise DomainError("import_row_invalid", part=label, row=row, field=where) from None
    for column in model.__table__.columns:
        value = getattr(obj, column.name)
        if isinstance(column.type, Integer) and isinstance(value, int) and not INT_RANGE[0] <= value <= INT_RANGE[1]:
            raise DomainError("import_row_invalid", part=label, row=row, field=column.name)
    return obj


def _embedded(data: Any) -> bytes:
    """The bytes of a file embedded in the document as base64; anything else is refused."""
    if not isinstance(data, str):
        raise DomainError("import_image")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise DomainError("import_image") from None


def _image(data: Any, media_dir: FsPath, stored: list[FsPath]):
    """An embedded image, checked and stored as an upload is (core/images.py)."""
    image = store_image(_embedded(data), media_dir)
    stored.extend(media_dir / name for name in (image.original, image.web))
    return image


def _photo(data: Any, media_dir: FsPath, stored: list[FsPath]) -> dict:
    """A battle's photo (R12.3), checked and cleaned as an upload is, kept by its content."""
    raw = _embedded(data)
    folder = photos.photos_dir(media_dir)
    name, width, height, new = photos.store(raw, folder)
    if new:  # a file another photo already had stays if this import is refused
        stored.append(folder / name)
    return {"name": name, "width": width, "height": height}


def _set_map(target, data: Any, media_dir: FsPath, stored: list[FsPath]) -> None:
    if data is None:
        return
    image = _image(data, media_dir, stored)
    target.map_image, target.map_original, target.map_width, target.map_height = (
        image.web,
        image.original,
        image.width,
        image.height,
    )


def _campaign(session: Session, actor: User, given: dict, media_dir: FsPath, stored: list[FsPath]) -> Campaign:
    data = {c.name: given[c.name] for c in Campaign.__table__.columns if c.name not in CAMPAIGN_SKIPPED and c.name in given}
    campaign = _validated(Campaign, {**data, "gm_user_id": actor.id}, "campaign", 1)
    if campaign.status not in campaign_rules.STATUSES:
        raise DomainError("import_row_invalid", part="campaign", row=1, field="status")
    if campaign.phase is not None and campaign.phase not in campaign_rules.PHASES:
        raise DomainError("import_row_invalid", part="campaign", row=1, field="phase")
    if not campaign.name.strip():
        raise DomainError("import_row_invalid", part="campaign", row=1, field="name")
    # Settings pass the checks the GM's own changes pass (a stored, valid value comes out as it went in).
    campaign.modules = campaign_rules.normalize_modules({}, campaign.modules)
    campaign.guild = campaign_rules.normalize_guild({}, campaign.guild)
    if campaign.settlement_rules:
        campaign.settlement_rules = house_rules.normalize({}, campaign.settlement_rules)
    _set_map(campaign, given.get("map"), media_dir, stored)
    if given.get("cover") is not None:
        campaign.cover_image = _image(given["cover"], media_dir, stored).web
    session.add(campaign)
    session.flush()
    return campaign


def _players(session: Session, campaign: Campaign, rows: list[dict], created: Created, holders) -> None:
    seen: set[str] = set()
    made = []
    for n, row in enumerate(rows, 1):
        nickname = row.get("nickname")
        try:
            nickname = account_rules.check_nickname(nickname if isinstance(nickname, str) else "")
        except DomainError:
            raise DomainError("import_nickname", row=n) from None
        if account_rules.nickname_key(nickname) in seen:
            raise DomainError("import_nickname", row=n)
        seen.add(account_rules.nickname_key(nickname))
        data = {k: row[k] for k in ("gold", "joined_at") if k in row}
        player = _validated(Player, {**data, "campaign_id": campaign.id, "user_id": 0}, "players", n)
        if player.gold < 0:
            raise DomainError("import_gold_negative", nickname=nickname, gold=player.gold)
        created.gold[row["id"]] = (nickname, player.gold)
        made.append((row["id"], player))
    for (_n, player), holder in zip(made, holders([nickname for nickname, _gold in created.gold.values()])):
        player.user_id = holder.id
    _add(session, "players", made, created)


def _add(session: Session, name: str, made: list[tuple[int, Any]], created: Created) -> None:
    session.add_all([obj for _n, obj in made])
    session.flush()
    created.ids[name].update({n: obj.id for n, obj in made})


def _part(
    session: Session, campaign: Campaign, part: Part, rows: list[dict], created: Created, media_dir: FsPath, stored: list[FsPath]
) -> None:
    label = _label(part)
    wanted = columns(part) + ([part.model.__table__.columns[part.via]] if part.via else [])
    own_campaign = "campaign_id" in part.model.__table__.columns
    made, later = [], []
    for row in rows:
        data: dict[str, Any] = {}
        for column in wanted:
            if column.name not in row:
                continue
            value, target = row[column.name], reference(column)
            if target == part.name:  # a place inside another place: set once every place exists
                later.append((len(made), column.name, value))
                continue
            if target is not None and value is not None:
                value = _resolve(created, target, value, label, row["id"], column.name)
            elif (part.table, column.name) in blobs.BLOBS:
                value = blobs.BLOBS[(part.table, column.name)](created.look, value)
            data[column.name] = value
        if own_campaign:
            data["campaign_id"] = campaign.id
        if part.name == "battle_photos":
            data.update(_photo(row.get("image"), media_dir, stored))
        obj = _validated(part.model, data, label, row["id"])
        if part.name == "places":
            _set_map(obj, row.get("map"), media_dir, stored)
        made.append((row["id"], obj))
    _add(session, part.name, made, created)
    for index, column, value in later:
        number, obj = made[index]
        if value is not None:
            setattr(obj, column, _resolve(created, part.name, value, label, number, column))
            session.add(obj)
    if later:
        session.flush()


def _resolve(created: Created, target: str, value: Any, label: str, row: int, field: str) -> int:
    found = created.look(target, value) if _number(value) else None
    if found is None:
        raise DomainError("import_reference", part=label, row=row, field=field, number=str(value))
    return found


def _check_gold(flat: Rows, created: Created) -> None:
    """R3.8: a balance is the sum of its ledger entries, here as on the server it came from
    (the rows are valid by now: every amount is a whole number, every player one of them)."""
    totals: dict[int, int] = defaultdict(int)
    for row in flat["ledger"]:
        totals[int(row["player_id"])] += int(row["amount"])
    for number, (nickname, gold) in created.gold.items():
        if gold != totals.get(number, 0):
            raise DomainError("import_gold", nickname=nickname, gold=gold, total=totals.get(number, 0))


def _balances_not_given(flat: Rows) -> None:
    """The GM's document gives no balances while gold transfers are on (R11.2, document.py): a
    player whose `gold` is null gets the sum of their entries in it, and a null `balance_after`
    the sum up to its entry. Where that sum would drop below zero (gold that came through
    transfers the document leaves out, then spent), one entry of kind `transfer` opens the
    player's ledger with the least that keeps every balance at zero or more — what those
    transfers brought at least, which the document itself tells the importing GM."""
    unknown = {row["id"] for row in flat["players"] if "gold" in row and row["gold"] is None}
    entries: dict[int, list[dict]] = defaultdict(list)
    for row in flat["ledger"]:
        if _number(row.get("player_id")) and _whole(row.get("amount")):
            entries[row["player_id"]].append(row)
    number = max((row["id"] for row in flat["ledger"]), default=0)
    for player in unknown:
        low = running = 0
        for row in entries[player]:
            running += row["amount"]
            low = min(low, running)
        if low < 0:
            number += 1
            first = entries[player][0]
            opening = {"id": number, "player_id": player, "amount": -low, "kind": "transfer", "balance_after": None}
            opening.update({k: first[k] for k in ("round", "created_at") if k in first})
            flat["ledger"].insert(flat["ledger"].index(first), opening)
            entries[player].insert(0, opening)
    for rows in entries.values():
        running = 0
        for row in rows:
            running += row["amount"]
            if row.get("balance_after") is None:
                row["balance_after"] = running
    for row in flat["players"]:
        if row["id"] in unknown:
            row["gold"] = sum(entry["amount"] for entry in entries[row["id"]])


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)

"""Photos of the table with a battle's result (R12.3).

A battle's players and the GM attach them, through the map images' limits (core/images.py:
size, a pixel bomb refused from the header); each is re-encoded, upright and without EXIF or
GPS, and kept once by its content's sha256 under the var directory (`<var>/media/photos/`,
which the public /media/ route never serves). Members see them on the battle page and in
the chronicle; anyone else is told nothing is there. The owner (the player who added it, or
the GM for the GM's own) or the GM deletes one; its file goes with the last photo using it."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path

from sqlalchemy import bindparam
from sqlmodel import Session, select

from app.accounts.models import User
from app.battles.models import Battle, BattlePhoto, BattleWarband
from app.core.errors import DomainError
from app.core.files import write_private
from app.core.images import clean_image
from app.visibility import Viewer, campaign_row, require_writable, viewer_for

MAX_PER_BATTLE = 20


def photos_dir(media_dir: Path) -> Path:
    return media_dir / "photos"


def store(data: bytes, folder: Path) -> tuple[str, int, int, bool]:
    """The photo cleaned and kept by its content: (file name, width, height, newly written)."""
    image = clean_image(data)
    name = f"{hashlib.sha256(image.data).hexdigest()}.{image.ext}"
    path = folder / name
    new = not path.is_file()
    if new:
        write_private(path, image.data)
    return name, image.width, image.height, new


# Built once (issue 37: `session.get` and these selects were built on each call).
_PHOTO = select(BattlePhoto).where(BattlePhoto.id == bindparam("photo_id"), BattlePhoto.battle_id == bindparam("battle_id"))
_PLAYERS = select(BattleWarband.player_id).where(BattleWarband.battle_id == bindparam("battle_id"))
_SAME_FILE = select(BattlePhoto.id).where(BattlePhoto.name == bindparam("name"))


def _battle(session: Session, viewer: Viewer, battle_id: int) -> Battle:
    return campaign_row(session, Battle, battle_id, viewer.campaign_id)


def _players(session: Session, battle_id: int) -> set[int]:
    return set(session.exec(_PLAYERS, params={"battle_id": battle_id}).all())


def add(session: Session, *, actor: User, campaign_id: int, battle_id: int, data: bytes, media_dir: Path) -> BattlePhoto:
    viewer = viewer_for(session, actor, campaign_id)
    require_writable(viewer)
    battle_ = _battle(session, viewer, battle_id)
    player_id = viewer.player.id if viewer.player else None
    if not viewer.is_gm and player_id not in _players(session, battle_id):
        raise DomainError("photo_participants_only")
    if len(listed(session, [battle_id]).get(battle_id, [])) >= MAX_PER_BATTLE:
        raise DomainError("photo_too_many", max=MAX_PER_BATTLE)
    name, width, height, _new = store(data, photos_dir(media_dir))
    photo = BattlePhoto(
        battle_id=battle_.id, player_id=None if viewer.is_gm else player_id, name=name, width=width, height=height
    )
    session.add(photo)
    session.flush()
    return photo


# Built once, of any campaign or of one (issue 37: the chronicle's page built it on every reading).
_OF_BATTLES = select(BattlePhoto).where(BattlePhoto.battle_id.in_(bindparam("battle_ids", expanding=True)))
_PHOTOS = {
    False: _OF_BATTLES.order_by(BattlePhoto.id),
    True: _OF_BATTLES.join(Battle, Battle.id == BattlePhoto.battle_id)
    .where(Battle.campaign_id == bindparam("campaign_id"))
    .order_by(BattlePhoto.id),
}


def listed(session: Session, battle_ids: list[int], campaign_id: int | None = None) -> dict[int, list[BattlePhoto]]:
    """The photos of these battles (of this campaign only, when given), oldest first."""
    found: dict[int, list[BattlePhoto]] = defaultdict(list)
    if battle_ids:
        params = {"battle_ids": battle_ids, "campaign_id": campaign_id}
        for photo in session.exec(_PHOTOS[campaign_id is not None], params=params).all():
            found[photo.battle_id].append(photo)
    return found


def _photo(session: Session, viewer: Viewer, battle_id: int, photo_id: int) -> BattlePhoto:
    _battle(session, viewer, battle_id)
    photo = session.exec(_PHOTO, params={"photo_id": photo_id, "battle_id": battle_id}).first()
    if photo is None:
        raise DomainError("not_found")
    return photo


def file_of(session: Session, *, actor: User, campaign_id: int, battle_id: int, photo_id: int, media_dir: Path) -> Path:
    """The photo's file, for a member of the campaign only (anyone else: not found)."""
    viewer = viewer_for(session, actor, campaign_id)
    photo = _photo(session, viewer, battle_id, photo_id)
    path = photos_dir(media_dir) / photo.name
    if "/" in photo.name or not path.is_file():
        raise DomainError("not_found")
    return path


def may_delete(viewer: Viewer, photo: BattlePhoto) -> bool:
    if viewer.is_gm:
        return True
    return viewer.player is not None and photo.player_id == viewer.player.id


def delete(session: Session, *, actor: User, campaign_id: int, battle_id: int, photo_id: int) -> BattlePhoto:
    viewer = viewer_for(session, actor, campaign_id)
    require_writable(viewer)
    photo = _photo(session, viewer, battle_id, photo_id)
    if not may_delete(viewer, photo):
        raise DomainError("photo_owner_only")
    session.delete(photo)
    session.flush()
    return photo


def forget_file(session: Session, name: str, media_dir: Path) -> None:
    """Once a deletion is confirmed: the file goes unless another photo has the same content."""
    others = session.exec(_SAME_FILE, params={"name": name}).first()
    if others is None and "/" not in name:
        (photos_dir(media_dir) / name).unlink(missing_ok=True)


def of_battle(session: Session, *, actor: User, campaign_id: int, battle_id: int) -> list[BattlePhoto]:
    viewer = viewer_for(session, actor, campaign_id)
    _battle(session, viewer, battle_id)
    return listed(session, [battle_id]).get(battle_id, [])

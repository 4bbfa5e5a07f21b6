"""Export and import use cases (issue 19, docs/export.md)."""

from __future__ import annotations

import secrets
from pathlib import Path as FsPath

from sqlalchemy.exc import DataError, IntegrityError
from sqlmodel import Session, col, select

from app.accounts import rules as account_rules
from app.accounts.models import User
from app.campaigns.models import Campaign, Invitation, Player
from app.catalog.catalog import Catalog
from app.core.db import saved_id
from app.core.errors import DomainError
from app.exports import checks, document, reading, throttle
from app.exports.models import ImportedSeat
from app.visibility import require_gm, viewer_for


def export_for_gm(session: Session, *, actor: User, campaign_id: int, media_dir: FsPath) -> tuple[Campaign, dict]:
    """The GM's document: what the GM may see of the campaign (R11.2)."""
    viewer = viewer_for(session, actor, campaign_id)
    require_gm(viewer)
    return viewer.campaign, document.build(session, viewer.campaign, scope="gm", media_dir=media_dir, viewer=viewer)


def export_for_server(session: Session, *, campaign_id: int, media_dir: FsPath) -> dict:
    """The whole campaign but its letters, for whoever runs the server (`hideout export`)."""
    campaign = session.get(Campaign, campaign_id)
    if campaign is None:
        raise DomainError("not_found")
    return document.build(session, campaign, scope="server", media_dir=media_dir)


def import_campaign(
    session: Session, *, actor: User, doc, media_dir: FsPath, catalog: Catalog, limited: bool = True
) -> tuple[Campaign, int]:
    """A new campaign from a document, `actor` its GM; returns it and how many users were
    invited. Nothing is created unless all of it is: a refusal rolls back to here, and the
    images already stored are removed. `limited`: counted against the actor's hourly
    imports (throttle.py); only whoever runs the server (`hideout import`) is not."""
    if not limited:
        return _import(session, actor, doc, media_dir, catalog)
    throttle.start(session, actor)
    try:
        return _import(session, actor, doc, media_dir, catalog)
    except DomainError as exc:
        exc.persist = True  # the refused import's count is committed all the same (nothing else was written)
        raise


def _import(session: Session, actor: User, doc, media_dir: FsPath, catalog: Catalog) -> tuple[Campaign, int]:
    parts = reading.check(doc)
    checks.against_catalog(parts, catalog)
    stored: list[FsPath] = []
    try:
        with session.begin_nested():
            campaign = reading.create(
                session,
                actor=actor,
                flat=parts,
                doc=doc,
                media_dir=media_dir,
                stored=stored,
                holders=lambda nicknames: _placeholders(session, nicknames),
            )
            invited = _invite(session, campaign)
    except (IntegrityError, DataError):
        _remove(stored)
        raise DomainError("import_contradiction") from None
    except BaseException:
        _remove(stored)
        raise
    return campaign, invited


def _remove(files: list[FsPath]) -> None:
    for path in files:
        path.unlink(missing_ok=True)


# --- seats ------------------------------------------------------------------------------------
# An imported player belongs to a placeholder account until the person takes the seat. Its key
# has a capital letter: logins and invitations look nicknames up lower-cased, so nobody can
# log in as it or invite it, and no real nickname can collide with it. It has no password
# either (LOCKED is no hash of anything): hashing one per seat held the database's write lock
# for a minute on a 600-seat import (issue 28). All of them are written in one flush.

LOCKED = "!seat"


def _placeholders(session: Session, nicknames: list[str]) -> list[User]:
    holders = [
        User(nickname=nickname, nickname_key="Seat-" + secrets.token_hex(13), password_hash=LOCKED) for nickname in nicknames
    ]
    session.add_all(holders)
    session.flush()
    return holders


def _invite(session: Session, campaign: Campaign) -> int:
    """An invitation to each seat whose nickname a user of this server has (not the GM: the
    GM runs the campaign and cannot play in it)."""
    rows = session.exec(
        select(Player, User.nickname)
        .join(User, col(User.id) == Player.user_id)
        .where(Player.campaign_id == campaign.id)
        .order_by(col(Player.id))
    ).all()
    keys = {account_rules.nickname_key(nick): (player, nick) for player, nick in rows}
    users = {u.nickname_key: u for u in session.exec(select(User).where(col(User.nickname_key).in_(list(keys)))).all()}
    invited = 0
    for key, (player, nick) in keys.items():
        user = users.get(key)
        mate = user if user is not None and user.id != campaign.gm_user_id else None
        session.add(
            ImportedSeat(
                campaign_id=saved_id(campaign.id),
                player_id=saved_id(player.id),
                nickname=nick,
                invited_user_id=mate.id if mate else None,
            )
        )
        if mate is not None:
            session.add(Invitation(campaign_id=saved_id(campaign.id), user_id=saved_id(mate.id)))
            invited += 1
    session.flush()
    return invited


def release_seat(session: Session, *, player_id: int, previous: User | None) -> None:
    """A seat the GM has handed over (R12.10) is nobody's to take any more: its record goes,
    and so does the placeholder account that held it (a real account keeps its login)."""
    for seat in session.exec(select(ImportedSeat).where(ImportedSeat.player_id == player_id)).all():
        session.delete(seat)
    session.flush()
    if previous is not None and previous.password_hash == LOCKED:
        session.delete(previous)
        session.flush()


def take_seat(session: Session, *, campaign: Campaign, user: User) -> Player | None:
    """Accepting an invitation to an imported campaign binds the user to the seat kept for
    them, with its company, gold and history (campaigns.lifecycle.accept_invitation)."""
    seat = session.exec(
        select(ImportedSeat)
        .where(ImportedSeat.campaign_id == campaign.id, ImportedSeat.invited_user_id == user.id)
        .with_for_update()
    ).first()
    if seat is None:
        return None
    player = session.exec(select(Player).where(Player.id == seat.player_id).with_for_update()).one()
    holder = session.get(User, player.user_id)
    session.delete(seat)
    if holder is not None and holder.password_hash != LOCKED:
        # The GM has handed the seat to someone meanwhile (R12.10): it is theirs, and the
        # invitation is only an invitation to the campaign now.
        session.flush()
        return None
    player.user_id = saved_id(user.id)
    session.add(player)
    session.flush()
    if holder is not None and holder.id != user.id:
        session.delete(holder)
        session.flush()
    return player

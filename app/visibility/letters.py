"""Who sees which letters (R8.12, R9.4, R11.2): a letter is seen by its sender and its recipient
only — the GM too only when a party (the GM's side of a letter is a null player id). Every read
of letters starts from these."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, Integer, Select, bindparam, func, or_
from sqlalchemy import false as _false
from sqlalchemy.orm import Mapped
from sqlmodel import col, select
from sqlmodel.sql.expression import SelectOfScalar

from app.core.pagination import Listing
from app.letters.models import Letter

if TYPE_CHECKING:
    from app.visibility import Viewer


def _side(column: Mapped[int | None], gms: bool, player: Any) -> ColumnElement[bool]:
    """`column` (a letter's from or to) is a side: the GMs' (none), or a player's (`player`: their
    id, or a bind parameter that names it)."""
    return column.is_(None) if gms else column == player


def _letter_side(viewer: Viewer, column: Mapped[int | None]) -> ColumnElement[bool]:
    """`column` (a letter's from or to) is this viewer's side."""
    member, me = letter_party(viewer)
    return _side(column, me is None, me) if member else _false()


def visible_letters(viewer: Viewer, *, box: str | None = None) -> SelectOfScalar[Letter]:
    """The letters this viewer may read, as a statement to filter further: `box="in"` the ones
    received, `"out"` the ones sent, None both."""
    received, sent = _letter_side(viewer, col(Letter.to_player_id)), _letter_side(viewer, col(Letter.from_player_id))
    side = received if box == "in" else sent if box == "out" else or_(received, sent)
    return select(Letter).where(Letter.campaign_id == viewer.campaign.id, side)


def _unread_count(received) -> Select:
    return (
        select(func.count())
        .select_from(Letter)
        .where(Letter.campaign_id == bindparam("campaign_id"), received, col(Letter.read_at).is_(None))
    )


# Built once (every campaign page asks, for its Messages badge: issue 37): a player's letters
# come to their player id, the GMs' to none.
_UNREAD_TO_PLAYER = _unread_count(_side(col(Letter.to_player_id), False, bindparam("player_id")))
_UNREAD_TO_GM = _unread_count(_side(col(Letter.to_player_id), True, None))
_UNREAD_TO_NOBODY = _unread_count(_false())  # a viewer who is no party to letters


def _box(received: bool, gms: bool) -> Listing:
    column = col(Letter.to_player_id) if received else col(Letter.from_player_id)
    side = _side(column, gms, bindparam("side"))
    return Listing(select(Letter).where(Letter.campaign_id == bindparam("campaign_id"), side).order_by(col(Letter.id).desc()))


# A side's inbox and outbox, built once (issue 37: built on each visit, a box and its count
# cost more than running them).
_BOXES = {(received, gms): _box(received, gms) for received in (True, False) for gms in (True, False)}


# What a read of some letters asks of the letters a viewer may read: one letter (locked or not),
# a thread, or the letters of some ids (the live stream's).
_USES: dict[str, Callable[[Any], Any]] = {
    "one": lambda query: query.where(col(Letter.id) == bindparam("letter_id")),
    "one_locked": lambda query: query.where(col(Letter.id) == bindparam("letter_id")).with_for_update(),
    "thread": lambda query: query.where(
        or_(col(Letter.thread_id) == bindparam("root"), col(Letter.id) == bindparam("root"))
    ).order_by(col(Letter.id)),
    "of_ids": lambda query: query.where(col(Letter.id).in_(bindparam("ids", expanding=True))),
}


@functools.cache
def _readable(party: str, use: str) -> SelectOfScalar[Letter]:
    """`visible_letters`, built once for each kind of party and each use (issue 37: a letter
    read, a thread opened and every letter the live stream told of built it anew)."""
    if party == "nobody":
        return _USES[use](select(Letter).where(_false()))
    gms, side = party == "game masters", bindparam("side", type_=Integer())
    sides = or_(_side(col(Letter.to_player_id), gms, side), _side(col(Letter.from_player_id), gms, side))
    return _USES[use](select(Letter).where(Letter.campaign_id == bindparam("campaign_id"), sides))


def readable_letters(viewer: Viewer, use: str) -> tuple[SelectOfScalar[Letter], dict[str, Any]]:
    """The letters this viewer may read (as `visible_letters`) for `use` ("one", "one_locked",
    "thread", "of_ids"), as a statement built once and the viewer's parameters; the caller adds
    the letter's id (`letter_id`), the thread's root (`root`) or the ids (`ids`)."""
    member, me = letter_party(viewer)
    party = "nobody" if not member else "game masters" if me is None else "player"
    return _readable(party, use), {"campaign_id": viewer.campaign.id, "side": me}


def visible_box(viewer: Viewer, *, received: bool) -> tuple[Listing, dict[str, Any]] | None:
    """The letters this viewer received (or sent), newest first, as a list and its parameters;
    None for a viewer who is no party to letters."""
    member, me = letter_party(viewer)
    if not member:
        return None
    return _BOXES[(received, me is None)], {"campaign_id": viewer.campaign.id, "side": me}


def unread_letters_count(viewer: Viewer) -> tuple[Select, dict]:
    """How many letters wait unread for this viewer, as one statement and its parameters."""
    member, me = letter_party(viewer)
    if not member:
        return _UNREAD_TO_NOBODY, {"campaign_id": viewer.campaign.id}
    if me is None:
        return _UNREAD_TO_GM, {"campaign_id": viewer.campaign.id}
    return _UNREAD_TO_PLAYER, {"campaign_id": viewer.campaign.id, "player_id": me}


def letter_party(viewer: Viewer) -> tuple[bool, int | None]:
    """(whether this viewer can be a party to letters, their side: a player id or None for the GM)."""
    if viewer.player is not None:
        return True, viewer.player.id
    return viewer.is_gm, None


def may_read_letter(viewer: Viewer, letter: Letter) -> bool:
    """Sender or recipient of this letter of this campaign; nobody else (R11.2)."""
    member, me = letter_party(viewer)
    return member and letter.campaign_id == viewer.campaign.id and me in (letter.from_player_id, letter.to_player_id)


def is_letter_recipient(viewer: Viewer, letter: Letter) -> bool:
    member, me = letter_party(viewer)
    return member and letter.campaign_id == viewer.campaign.id and letter.to_player_id == me

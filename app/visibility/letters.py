"""Who sees which letters (R8.12, R9.4, R11.2): a letter is seen by its sender and its recipient
only — the GM too only when a party (the GM's side of a letter is a null player id). Every read
of letters starts from these."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import ColumnElement, Select, bindparam, func, or_
from sqlalchemy import false as _false
from sqlalchemy.orm import Mapped
from sqlmodel import col, select
from sqlmodel.sql.expression import SelectOfScalar

from app.letters.models import Letter

if TYPE_CHECKING:
    from app.visibility import Viewer


def _letter_side(viewer: Viewer, column: Mapped[int | None]) -> ColumnElement[bool]:
    """`column` (a letter's from or to) is this viewer's side."""
    if viewer.player is not None:
        return column == viewer.player.id
    if viewer.is_gm:
        return column.is_(None)
    return _false()


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
_UNREAD_TO_PLAYER = _unread_count(col(Letter.to_player_id) == bindparam("player_id"))
_UNREAD_TO_GM = _unread_count(col(Letter.to_player_id).is_(None))


def unread_letters_count(viewer: Viewer) -> tuple[Select, dict]:
    """How many letters wait unread for this viewer, as one statement and its parameters."""
    if viewer.player is not None:
        return _UNREAD_TO_PLAYER, {"campaign_id": viewer.campaign.id, "player_id": viewer.player.id}
    if viewer.is_gm:
        return _UNREAD_TO_GM, {"campaign_id": viewer.campaign.id}
    return _unread_count(_false()), {"campaign_id": viewer.campaign.id}


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

"""Sealed letters (R8.12, R9.4): pure rules. A party to a letter is a player id, or None for
the game master (the GM is a participant who writes and receives letters, but not a player)."""

from __future__ import annotations

from app.core.errors import DomainError

SUBJECT_MAX = 200
BODY_MAX = 20_000
REPLY_PREFIX = "Re: "

Party = int | None  # a player id, or None: the game master


def recipient(*, to_player_id: int | None, to_gm: bool) -> Party:
    """Who a new letter is for: a player (`to_player_id`) or the GM (`to_gm`), exactly one."""
    if to_gm == (to_player_id is not None):
        raise DomainError("letter_recipient")
    return None if to_gm else to_player_id


def check_not_self(sender: Party, to: Party) -> None:
    """Nobody writes to themselves: not a player, not the GM."""
    if sender == to:
        raise DomainError("letter_to_self")


def is_party(me: Party, from_player_id: Party, to_player_id: Party) -> bool:
    return me in (from_player_id, to_player_id)


def other_party(me: Party, from_player_id: Party, to_player_id: Party) -> Party:
    """The other side of a letter: the one a reply goes to."""
    return to_player_id if me == from_player_id else from_player_id


def reply_subject(subject: str) -> str:
    """ "Re: <subject>" — once, however long the exchange, within the subject's length."""
    base = subject.strip()
    if base.lower().startswith(REPLY_PREFIX.strip().lower()):
        return base[:SUBJECT_MAX]
    return (REPLY_PREFIX + base)[:SUBJECT_MAX]

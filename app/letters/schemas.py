"""Letters (R8.12): API input and output shapes; the page forms validate with the same ones."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, StringConstraints
from pydantic_core import PydanticCustomError

from app.core.pagination import PageOut
from app.core.types import Flag, Id, Name
from app.letters.rules import BODY_MAX, SUBJECT_MAX


def _lines(value):
    """A form's textarea sends CRLF; the body keeps plain newlines (and counts them once)."""
    return value.replace("\r\n", "\n").replace("\r", "\n") if isinstance(value, str) else value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("string_too_short", "String should have at least 1 character", {"min_length": 1})
    return value


# The body keeps its spaces (Markdown indents code with them); it must not be only spaces.
Body = Annotated[str, StringConstraints(max_length=BODY_MAX), BeforeValidator(_lines), AfterValidator(_not_blank)]
Subject = Annotated[str, Name(SUBJECT_MAX)]


class LetterIn(BaseModel):
    """A new letter: to a player (`to_player_id`) or to the game master (`to_gm: true`)."""

    model_config = ConfigDict(extra="forbid")
    to_player_id: Id | None = None
    to_gm: Flag = False
    subject: Subject
    body: Body


class ReplyIn(BaseModel):
    """An answer: to the other party, in the same thread; the subject defaults to "Re: …"."""

    model_config = ConfigDict(extra="forbid")
    body: Body
    subject: Subject | None = None


class LetterOut(BaseModel):
    """`from_player_id` / `to_player_id` are null for the game master (`from_gm` / `to_gm`)."""

    id: int
    from_player_id: int | None
    to_player_id: int | None
    from_gm: bool
    to_gm: bool
    subject: str
    body: str
    # The body rendered safely; left out (null) in lists, where a page of long bodies would
    # cost much to render — fetch the letter itself for it.
    body_html: str | None = None
    round: int
    created_at: datetime
    read_at: datetime | None
    thread_id: int
    reply_to_id: int | None


class LetterPage(PageOut[LetterOut]):
    unread: int

"""Letter routes of API.md over the letter service (R8.12, R9.4). A letter that is not the
caller's to read answers 404, exactly as one that does not exist."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query

from app.accounts.deps import ApiUser, SessionDep
from app.core.markdown import render_letter
from app.core.pagination import Paging
from app.core.types import PathId
from app.letters import service
from app.letters.models import Letter
from app.letters.schemas import LetterIn, LetterOut, LetterPage, ReplyIn

router = APIRouter(tags=["letters"])


def letter_out(letter: Letter, *, rendered: bool = True) -> LetterOut:
    return LetterOut(
        id=letter.id,
        from_player_id=letter.from_player_id,
        to_player_id=letter.to_player_id,
        from_gm=letter.from_player_id is None,
        to_gm=letter.to_player_id is None,
        subject=letter.subject,
        body=letter.body,
        body_html=str(render_letter(letter.body)) if rendered else None,
        round=letter.round,
        created_at=letter.created_at,
        read_at=letter.read_at,
        thread_id=letter.thread_id or letter.id,
        reply_to_id=letter.reply_to_id,
    )


@router.get("/campaigns/{cid}/letters", response_model=LetterPage)
def list_letters(
    cid: PathId,
    user: ApiUser,
    session: SessionDep,
    paging: Paging,
    box: Literal["in", "out"] = Query("in"),
):
    """The caller's inbox (`box=in`, the default) or outbox (`box=out`), newest first, with the
    number of letters waiting unread for the caller."""
    viewer, result = service.letters(session, actor=user, campaign_id=cid, box=box, page=paging.page, per_page=paging.per_page)
    return LetterPage.of(result, lambda x: letter_out(x, rendered=False), unread=service.unread_count(session, viewer))


@router.post("/campaigns/{cid}/letters", status_code=201, response_model=LetterOut)
def send(cid: PathId, body: LetterIn, user: ApiUser, session: SessionDep):
    """Send `{to_player_id, subject, body}` to a player or `{to_gm: true, subject, body}` to the GM."""
    return letter_out(
        service.send(
            session,
            actor=user,
            campaign_id=cid,
            to_player_id=body.to_player_id,
            to_gm=body.to_gm,
            subject=body.subject,
            body=body.body,
        )
    )


@router.get("/campaigns/{cid}/letters/{lid}", response_model=LetterOut)
def one(cid: PathId, lid: PathId, user: ApiUser, session: SessionDep):
    """One letter of the caller's; reading it here does not mark it read (see `/read`)."""
    return letter_out(service.letter(session, actor=user, campaign_id=cid, letter_id=lid)[1])


@router.post("/campaigns/{cid}/letters/{lid}/read", response_model=LetterOut)
def mark_read(cid: PathId, lid: PathId, user: ApiUser, session: SessionDep):
    """The recipient marks the letter read (the first reading time stays)."""
    return letter_out(service.mark(session, actor=user, campaign_id=cid, letter_id=lid, read=True))


@router.post("/campaigns/{cid}/letters/{lid}/unread", response_model=LetterOut)
def mark_unread(cid: PathId, lid: PathId, user: ApiUser, session: SessionDep):
    """The recipient marks the letter unread again."""
    return letter_out(service.mark(session, actor=user, campaign_id=cid, letter_id=lid, read=False))


@router.post("/campaigns/{cid}/letters/{lid}/reply", status_code=201, response_model=LetterOut)
def reply(cid: PathId, lid: PathId, body: ReplyIn, user: ApiUser, session: SessionDep):
    """`{body, subject?}`: to the letter's other party, in its thread."""
    return letter_out(service.reply(session, actor=user, campaign_id=cid, letter_id=lid, body=body.body, subject=body.subject))

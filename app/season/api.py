"""Deadlines over the API (API.md `deadline`), and the daily digest's address (`me/digest`,
issue 28: double opt-in — the confirmation link itself is opened in a browser)."""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks, Request, Response

from app.accounts.deps import ApiUser, SessionDep
from app.core.templating import request_gettext
from app.core.types import PathId
from app.season import digest, optin, service
from app.season.schemas import DeadlineIn, DeadlineOut, DigestForm, DigestOut

router = APIRouter(tags=["season"])


@router.get("/campaigns/{cid}/deadline", response_model=DeadlineOut)
def get_deadline(cid: PathId, request: Request, user: ApiUser, session: SessionDep):
    """The current phase's deadline (members); `ends_at` null when it has none."""
    return service.read(session, actor=user, campaign_id=cid).as_dict(request_gettext(request))


@router.put("/campaigns/{cid}/deadline", response_model=DeadlineOut)
def put_deadline(cid: PathId, body: DeadlineIn, request: Request, user: ApiUser, session: SessionDep):
    """GM: the current phase ends at `ends_at`; with `auto_advance` the round moves on by itself then."""
    view = service.set_deadline(
        session,
        actor=user,
        campaign_id=cid,
        ends_at=body.ends_at,
        auto_advance=body.auto_advance,
        near_minutes=request.app.state.settings.deadline_near_minutes,
    )
    return view.as_dict(request_gettext(request))


@router.delete("/campaigns/{cid}/deadline", status_code=204)
def delete_deadline(cid: PathId, user: ApiUser, session: SessionDep):
    """GM: the current phase has no deadline any more."""
    service.clear_deadline(session, actor=user, campaign_id=cid)
    return Response(status_code=204)


def _digest_out(row, saved: optin.Saved | None = None) -> DigestOut:
    return DigestOut(
        email=row.email if row else "",
        enabled=bool(row and row.enabled),
        confirmed=bool(row and row.email and row.confirmed_at),
        confirmation_sent_at=row.token_sent_at if row else None,
        last_sent_at=row.last_sent_at if row else None,
        outcome=saved.outcome if saved else None,
    )


def _base(request: Request) -> str:
    return (request.app.state.settings.public_url or str(request.base_url)).rstrip("/")


@router.get("/me/digest", response_model=DigestOut)
def get_digest(user: ApiUser, session: SessionDep):
    """The user's daily digest: the address, whether it is confirmed (only then are digests sent)."""
    return _digest_out(digest.subscription(session, user.id))


@router.put("/me/digest", response_model=DigestOut)
def put_digest(body: DigestForm, request: Request, background: BackgroundTasks, user: ApiUser, session: SessionDep):
    """A new address gets one confirmation link by mail (3 an hour at most per user and per
    address: 429 `digest_confirm_too_many`) and no digest until it is opened."""
    saved = optin.set_subscription(
        session, actor=user, email=body.email, enabled=body.enabled, settings=request.app.state.settings, base=_base(request)
    )
    if saved.mail is not None:
        background.add_task(optin.send_after_commit, request.app.state.settings, saved.mail)
    return _digest_out(saved.row, saved)


@router.post("/me/digest/resend", response_model=DigestOut)
def resend_digest_link(request: Request, background: BackgroundTasks, user: ApiUser, session: SessionDep):
    """Another confirmation link for the address waiting to be confirmed."""
    saved = optin.resend(session, actor=user, settings=request.app.state.settings, base=_base(request))
    background.add_task(optin.send_after_commit, request.app.state.settings, saved.mail)
    return _digest_out(saved.row, saved)

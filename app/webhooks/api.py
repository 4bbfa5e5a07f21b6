"""Webhooks over the API (API.md `webhooks`): the GM's list, add and remove."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.accounts.deps import ApiUser, SessionDep
from app.core.types import PathId
from app.webhooks import sender, service  # noqa: F401  (sender: its job and after-commit wake-up)
from app.webhooks.schemas import WebhookIn, WebhookOut

router = APIRouter(tags=["webhooks"])


@router.get("/campaigns/{cid}/webhooks", response_model=list[WebhookOut])
def list_webhooks(cid: PathId, user: ApiUser, session: SessionDep):
    """GM: the campaign's hooks with their last delivery's status (never their secrets)."""
    return service.hooks(session, actor=user, campaign_id=cid)


@router.post("/campaigns/{cid}/webhooks", status_code=201, response_model=WebhookOut)
def add_webhook(cid: PathId, body: WebhookIn, request: Request, user: ApiUser, session: SessionDep):
    """GM: the campaign's public news (its chronicle entries) will be POSTed to `url`."""
    view = service.add(
        session,
        actor=user,
        campaign_id=cid,
        url=body.url,
        secret=body.secret,
        kinds=list(body.kinds),
        allow_private=request.app.state.settings.webhook_allow_private,
    )
    return view


@router.delete("/campaigns/{cid}/webhooks/{hid}", status_code=204)
def remove_webhook(cid: PathId, hid: PathId, user: ApiUser, session: SessionDep):
    """GM: the hook and its undelivered news are removed."""
    service.remove(session, actor=user, campaign_id=cid, hook_id=hid)
    return Response(status_code=204)

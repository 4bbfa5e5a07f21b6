from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.accounts import service
from app.accounts.deps import ApiUser, SessionDep
from app.accounts.schemas import (
    CampaignRef,
    InvitationRef,
    MeOut,
    MePatch,
    RegisterIn,
    TokenIn,
    TokenOut,
    UserOut,
)
from app.campaigns import service as campaigns
from app.core.errors import DomainError

router = APIRouter(tags=["accounts"])


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.post("/users", status_code=201, response_model=UserOut)
def register(body: RegisterIn, session: SessionDep):
    user = service.register(session, nickname=body.nickname, password=body.password, locale=body.locale)
    return UserOut(id=user.id, nickname=user.nickname)


@router.post("/auth/tokens", status_code=201, response_model=TokenOut)
def create_token(body: TokenIn, request: Request, session: SessionDep):
    user = service.authenticate(
        session, request.app.state.settings, nickname=body.nickname, password=body.password, address=_address(request)
    )
    request.state.locale = user.locale or "en"
    _row, token = service.create_api_token(session, request.app.state.secret_key, user=user, name=body.name or "API")
    return TokenOut(token=token)


@router.delete("/auth/tokens/current", status_code=204)
def revoke_current(request: Request, user: ApiUser, session: SessionDep):
    token_id = getattr(request.state, "api_token_id", None)
    if token_id is None:
        raise DomainError("token_not_found")
    service.revoke_api_token(session, user=user, token_id=token_id)
    return Response(status_code=204)


def _me(session, user) -> MeOut:
    return MeOut(
        id=user.id,
        nickname=user.nickname,
        locale=user.locale,
        time_zone=user.time_zone,
        campaigns=[
            CampaignRef(id=c.id, name=c.name, role=role, status=c.status, round=c.round, phase=c.phase)
            for c, role in campaigns.my_campaigns(session, user=user)
        ],
        invitations=[
            InvitationRef(campaign_id=c.id, name=c.name, gm_nickname=gm) for c, gm in campaigns.my_invitations(session, user=user)
        ],
    )


@router.get("/me", response_model=MeOut)
def me(user: ApiUser, session: SessionDep):
    return _me(session, user)


@router.patch("/me", response_model=MeOut)
def update_me(body: MePatch, user: ApiUser, session: SessionDep):
    if body.locale is not None:
        service.set_locale(session, user=user, locale=body.locale)
    if "time_zone" in body.model_fields_set:
        service.set_time_zone(session, user=user, time_zone=body.time_zone)
    return _me(session, user)

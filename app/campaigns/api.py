from __future__ import annotations

from fastapi import APIRouter

from app.accounts.deps import ApiUser, SessionDep
from app.campaigns import house_rules, lifecycle, service
from app.campaigns.models import Campaign
from app.campaigns.schemas import (
    CampaignCreate,
    CampaignOut,
    CampaignPatch,
    HideoutIn,
    InvitationOut,
    InviteIn,
    PlayerOut,
    StatusIn,
)
from app.core.types import PathId

router = APIRouter(tags=["campaigns"])


def _players(session, campaign_id: int, viewer=None) -> list[PlayerOut]:
    return [
        PlayerOut(
            player_id=p.player_id,
            nickname=p.nickname,
            hideouts=p.hideouts,
            places=p.places,
            joined_at=p.joined_at,
            gold=p.gold,
            guild_id=p.guild_id,
            away=p.away,
        )
        for p in service.players(session, campaign_id, viewer, joined=True)
    ]


def campaign_out(session, campaign: Campaign, viewer=None) -> CampaignOut:
    return CampaignOut(
        id=campaign.id,
        name=campaign.name,
        story=campaign.story,
        status=campaign.status,
        round=campaign.round,
        phase=campaign.phase,
        gm_nickname=service.gm_nickname(session, campaign),
        settings=service.settings_dict(campaign),
        modules=campaign.modules,
        guild=campaign.guild,
        settlement_rules=house_rules.of(campaign.settlement_rules),
        players=_players(session, campaign.id, viewer),
        setup_complete=campaign.setup_complete,
        wizard_step=campaign.wizard_step,
    )


@router.post("/campaigns", status_code=201, response_model=CampaignOut)
def create(body: CampaignCreate, user: ApiUser, session: SessionDep):
    campaign = service.create_campaign(session, actor=user, data=body.model_dump(exclude_unset=True))
    return campaign_out(session, campaign)


@router.get("/campaigns/{cid}", response_model=CampaignOut)
def get(cid: PathId, user: ApiUser, session: SessionDep):
    viewer = service.campaign_of(session, actor=user, campaign_id=cid, invitee_ok=True)
    return campaign_out(session, viewer.campaign, viewer)


@router.patch("/campaigns/{cid}", response_model=CampaignOut)
def patch(cid: PathId, body: CampaignPatch, user: ApiUser, session: SessionDep):
    campaign = service.update_settings(session, actor=user, campaign_id=cid, changes=body.model_dump(exclude_unset=True))
    return campaign_out(session, campaign)


@router.post("/campaigns/{cid}/invitations", status_code=201, response_model=InvitationOut)
def invite(cid: PathId, body: InviteIn, user: ApiUser, session: SessionDep):
    lifecycle.invite(session, actor=user, campaign_id=cid, nickname=body.nickname)
    return InvitationOut(nickname=body.nickname.strip(), status="pending")


@router.get("/campaigns/{cid}/invitations", response_model=list[InvitationOut])
def list_invitations(cid: PathId, user: ApiUser, session: SessionDep):
    service.gm_campaign(session, actor=user, campaign_id=cid)
    return [InvitationOut(nickname=n, status=s) for n, s in service.invitations(session, cid)]


@router.post("/campaigns/{cid}/invitations/accept", response_model=PlayerOut)
def accept(cid: PathId, user: ApiUser, session: SessionDep):
    player = lifecycle.accept_invitation(session, actor=user, campaign_id=cid)
    return next(
        p for p in _players(session, cid, service.campaign_of(session, actor=user, campaign_id=cid)) if p.player_id == player.id
    )


@router.post("/campaigns/{cid}/invitations/decline", status_code=204)
def decline(cid: PathId, user: ApiUser, session: SessionDep):
    lifecycle.decline_invitation(session, actor=user, campaign_id=cid)


@router.post("/campaigns/{cid}/status", response_model=CampaignOut)
def status(cid: PathId, body: StatusIn, user: ApiUser, session: SessionDep):
    campaign = lifecycle.set_status(session, actor=user, campaign_id=cid, target=body.status)
    return campaign_out(session, campaign)


@router.post("/campaigns/{cid}/hideouts", status_code=201, response_model=PlayerOut)
def claim(cid: PathId, body: HideoutIn, user: ApiUser, session: SessionDep):
    hideout = lifecycle.claim_hideout(session, actor=user, campaign_id=cid, place_id=body.place_id)
    return next(
        p
        for p in _players(session, cid, service.campaign_of(session, actor=user, campaign_id=cid))
        if p.player_id == hideout.player_id
    )


# POST /campaigns/{cid}/phase and /end-round: the round's flow, in app/rounds/api.py.


@router.get("/campaigns/{cid}/players", response_model=list[PlayerOut])
def players(cid: PathId, user: ApiUser, session: SessionDep):
    return _players(session, cid, service.campaign_of(session, actor=user, campaign_id=cid))

"""Guild routes of API.md over the guild service (R8.1-R8.6)."""

from __future__ import annotations

from fastapi import APIRouter

from app.accounts.deps import ApiUser, SessionDep
from app.campaigns.models import Campaign
from app.campaigns.service import campaign_of
from app.core.types import PathId
from app.guilds import rules, service
from app.guilds.models import GuildRequest
from app.guilds.schemas import GuildIn, GuildInvitationIn, GuildOut, GuildRequestOut

router = APIRouter(tags=["guilds"])


def request_out(r: GuildRequest) -> GuildRequestOut:
    return GuildRequestOut(id=r.id, guild_id=r.guild_id, player_id=r.player_id, kind=r.kind, status=r.status, fee=r.fee)


def guild_out(campaign: Campaign, view: service.GuildView) -> GuildOut:
    g, settings = view.guild, campaign.guild
    return GuildOut(
        id=g.id,
        name=g.name,
        founder_player_id=g.founder_player_id,
        level=g.level,
        member_player_ids=view.member_ids,
        allies_allowed=view.allies_allowed,
        income_per_round=rules.income(g.level, settings["level_income"]),
        next_level_cost=rules.upgrade_cost(g.level + 1, settings["level_cost"]) if g.level < settings["max_level"] else None,
        requests=[request_out(r) for r in view.requests],
    )


def _one(session, user, cid: int, guild_id: int) -> GuildOut:
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    view = next(v for v in service.guilds(session, viewer) if v.guild.id == guild_id)
    return guild_out(viewer.campaign, view)


@router.get("/campaigns/{cid}/guilds", response_model=list[GuildOut])
def list_guilds(cid: PathId, user: ApiUser, session: SessionDep):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return [guild_out(viewer.campaign, v) for v in service.guilds(session, viewer)]


@router.post("/campaigns/{cid}/guilds", status_code=201, response_model=GuildOut)
def found(cid: PathId, body: GuildIn, user: ApiUser, session: SessionDep):
    guild = service.found(session, actor=user, campaign_id=cid, name=body.name)
    return _one(session, user, cid, guild.id)


@router.post("/campaigns/{cid}/guilds/{gid}/requests", status_code=201, response_model=GuildRequestOut)
def ask(cid: PathId, gid: PathId, user: ApiUser, session: SessionDep):
    return request_out(service.ask(session, actor=user, campaign_id=cid, guild_id=gid))


@router.post("/campaigns/{cid}/guilds/{gid}/requests/{rid}/accept", response_model=GuildRequestOut)
def accept_request(cid: PathId, gid: PathId, rid: PathId, user: ApiUser, session: SessionDep):
    return request_out(service.decide_request(session, actor=user, campaign_id=cid, guild_id=gid, request_id=rid, accept=True))


@router.post("/campaigns/{cid}/guilds/{gid}/requests/{rid}/reject", response_model=GuildRequestOut)
def reject_request(cid: PathId, gid: PathId, rid: PathId, user: ApiUser, session: SessionDep):
    return request_out(service.decide_request(session, actor=user, campaign_id=cid, guild_id=gid, request_id=rid, accept=False))


@router.post("/campaigns/{cid}/guilds/{gid}/invitations", status_code=201, response_model=GuildRequestOut)
def invite(cid: PathId, gid: PathId, body: GuildInvitationIn, user: ApiUser, session: SessionDep):
    return request_out(service.invite(session, actor=user, campaign_id=cid, guild_id=gid, player_id=body.player_id))


@router.post("/campaigns/{cid}/guilds/{gid}/invitations/{iid}/accept", response_model=GuildRequestOut)
def accept_invitation(cid: PathId, gid: PathId, iid: PathId, user: ApiUser, session: SessionDep):
    return request_out(
        service.answer_invitation(session, actor=user, campaign_id=cid, guild_id=gid, invitation_id=iid, accept=True)
    )


@router.post("/campaigns/{cid}/guilds/{gid}/invitations/{iid}/decline", response_model=GuildRequestOut)
def decline_invitation(cid: PathId, gid: PathId, iid: PathId, user: ApiUser, session: SessionDep):
    return request_out(
        service.answer_invitation(session, actor=user, campaign_id=cid, guild_id=gid, invitation_id=iid, accept=False)
    )


@router.post("/campaigns/{cid}/guilds/{gid}/upgrade", response_model=GuildOut)
def upgrade(cid: PathId, gid: PathId, user: ApiUser, session: SessionDep):
    service.upgrade(session, actor=user, campaign_id=cid, guild_id=gid)
    return _one(session, user, cid, gid)


@router.post("/campaigns/{cid}/guilds/{gid}/leave", status_code=204)
def leave(cid: PathId, gid: PathId, user: ApiUser, session: SessionDep):
    service.leave(session, actor=user, campaign_id=cid, guild_id=gid)


@router.delete("/campaigns/{cid}/guilds/{gid}", status_code=204)
def dissolve(cid: PathId, gid: PathId, user: ApiUser, session: SessionDep):
    service.dissolve(session, actor=user, campaign_id=cid, guild_id=gid)

"""The guilds' use cases by name, as pages, the API and the round's steps call them: reading
the guilds (public, R8.6) and what waits for a player, who stands together in the round
(R6.2, R8.1); their membership (membership.py, R8.1-R8.4, R8.6, R8.9) and their income at
End round (income.py, R8.5)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import and_, bindparam, func, or_
from sqlmodel import Session, col, select

from app.battles import rules as battle_rules
from app.campaigns.models import Campaign
from app.core.db import read_rows
from app.core.page_head import HeadRead, kept_in_head
from app.guilds import rules
from app.guilds.income import pay_income
from app.guilds.membership import (
    MODULE,
    answer_invitation,
    ask,
    decide_request,
    dissolve,
    found,
    invite,
    join_guards,
    leave,
    refuse,
    require_guilds,
    upgrade,
)
from app.guilds.models import Guild, GuildMember, GuildRequest, GuildRoundMember
from app.visibility import Viewer

__all__ = [
    "MODULE",
    "GuildView",
    "Waiting",
    "answer_invitation",
    "ask",
    "decide_request",
    "dissolve",
    "found",
    "group_source",
    "guild_ids_of_players",
    "guilds",
    "invite",
    "join_guards",
    "keep_round_members",
    "leave",
    "pay_income",
    "refuse",
    "upgrade",
    "waiting",
]


@dataclass
class GuildView:
    guild: Guild
    member_ids: list[int] = field(default_factory=list)
    requests: list[GuildRequest] = field(default_factory=list)  # pending, seen by the founder and the asker

    @property
    def allies_allowed(self) -> int:
        return rules.allies_allowed(self.guild.level)

    @property
    def has_room(self) -> bool:
        return rules.has_room(self.guild.level, len(self.member_ids))


# Built once with the campaign as a bind parameter: the guilds and players pages read them on every
# visit (issue 37: a statement built anew costs about 80 µs a request).
_IN_CAMPAIGN = bindparam("campaign_id")
_ACTIVE_GUILDS = select(Guild).where(Guild.campaign_id == _IN_CAMPAIGN, Guild.status == "active").order_by(col(Guild.id))
_MEMBERS = select(GuildMember).where(GuildMember.campaign_id == _IN_CAMPAIGN).order_by(col(GuildMember.id))
_PENDING_REQUESTS = (
    select(GuildRequest)
    .where(GuildRequest.campaign_id == _IN_CAMPAIGN, GuildRequest.status == "pending")
    .order_by(col(GuildRequest.id))
)
_GUILD_OF_PLAYERS = select(GuildMember.player_id, GuildMember.guild_id).where(GuildMember.campaign_id == _IN_CAMPAIGN)


def guilds(session: Session, viewer: Viewer) -> list[GuildView]:
    """Active guilds with their members (public, R8.6); pending requests and invitations only
    to the guild's founder and to the player they concern. Three statements."""
    require_guilds(viewer)
    campaign = viewer.campaign
    params = {"campaign_id": campaign.id}
    views = {g.id: GuildView(g) for g in session.exec(_ACTIVE_GUILDS, params=params).all()}
    for m in session.exec(_MEMBERS, params=params).all():
        if m.guild_id in views:
            views[m.guild_id].member_ids.append(m.player_id)
    me = viewer.player.id if viewer.player else None
    if me is not None:
        for r in session.exec(_PENDING_REQUESTS, params=params).all():
            view = views.get(r.guild_id)
            if view and (r.player_id == me or view.guild.founder_player_id == me):
                view.requests.append(r)
    return list(views.values())


def guild_ids_of_players(session: Session, campaign_id: int) -> dict[int, int]:
    """player id -> guild id, for the players list (one statement)."""
    return dict(read_rows(session, _GUILD_OF_PLAYERS, {"campaign_id": campaign_id}).all())


@dataclass
class Waiting:
    """What waits for a player: requests to their guild to decide, invitations to answer."""

    requests: list[tuple[GuildRequest, Guild]] = field(default_factory=list)
    invitations: list[tuple[GuildRequest, Guild]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.requests) + len(self.invitations)


# Built once: every page of a player's dashboard asks it (building it cost as much as running it).
_PENDING = (
    select(GuildRequest, Guild)
    .join(Guild, Guild.id == GuildRequest.guild_id)
    .where(GuildRequest.campaign_id == bindparam("campaign_id"), GuildRequest.status == "pending", Guild.status == "active")
    .order_by(GuildRequest.id)
)


# How many of those wait for this player: requests to the guild they founded, invitations to
# them. Read with the page head (app/core/page_head.py): most dashboards then skip `_PENDING`,
# and whether they read it depends on this player's requests only, never on others' (R11.2).
_WAITING_COUNT = (
    select(func.count())
    .select_from(GuildRequest)
    .join(Guild, Guild.id == GuildRequest.guild_id)
    .where(
        GuildRequest.campaign_id == bindparam("campaign_id"),
        GuildRequest.status == "pending",
        Guild.status == "active",
        or_(
            and_(GuildRequest.kind == "request", Guild.founder_player_id == bindparam("player_id")),
            and_(GuildRequest.kind == "invitation", GuildRequest.player_id == bindparam("player_id")),
        ),
    )
)


def head_read(viewer: Viewer) -> HeadRead | None:
    """`_WAITING_COUNT` for this viewer, when something may wait for them."""
    if viewer.player is None or not viewer.campaign.modules.get(MODULE) or viewer.campaign.status != "running":
        return None
    return HeadRead("_guilds_waiting", _WAITING_COUNT, {"campaign_id": viewer.campaign_id, "player_id": viewer.player.id})


def waiting(session: Session, viewer: Viewer) -> Waiting:
    result = Waiting()
    read = head_read(viewer)
    if read is None or not kept_in_head(session, viewer, read):
        return result
    me = read.params["player_id"]
    rows = session.exec(_PENDING, params={"campaign_id": viewer.campaign.id}).all()
    for r, g in rows:
        if r.kind == "request" and g.founder_player_id == me:
            result.requests.append((r, g))
        elif r.kind == "invitation" and r.player_id == me:
            result.invitations.append((r, g))
    return result


AFTER_ANNOUNCE = ("battles", "settlement", "twilight")


def keep_round_members(session: Session, campaign: Campaign) -> None:
    """Before the battles are announced: who is in which guild this round (GuildRoundMember)."""
    if not campaign.modules.get(MODULE):
        return
    rows = session.exec(
        select(GuildMember.player_id, Guild.id, Guild.founder_player_id)
        .join(Guild, Guild.id == GuildMember.guild_id)
        .where(GuildMember.campaign_id == campaign.id, Guild.status == "active")
    ).all()
    session.add_all(
        GuildRoundMember(campaign_id=campaign.id, round=campaign.round, guild_id=g, player_id=p, founder_player_id=f)
        for p, g, f in rows
    )
    session.flush()


# Who stands together, built once (issue 37): as announced, and as they stand.
_AS_ANNOUNCED = select(GuildRoundMember.player_id, GuildRoundMember.guild_id, GuildRoundMember.founder_player_id).where(
    GuildRoundMember.campaign_id == bindparam("campaign_id"), GuildRoundMember.round == bindparam("round")
)
_AS_THEY_STAND = (
    select(GuildMember.player_id, Guild.id, Guild.founder_player_id)
    .join(Guild, Guild.id == GuildMember.guild_id)
    .where(GuildMember.campaign_id == bindparam("campaign_id"), Guild.status == "active")
)


def group_source(session: Session, campaign: Campaign):
    """The battle plan and Twilight ask who stands together (R6.2, R8.1): guild members,
    wherever they meet, led by the founder — as they stood when the round's battles were
    announced (so a change afterwards cannot hand over a place), before that as they stand."""
    if not campaign.modules.get(MODULE):
        return lambda player_id, event_id: []
    params = {"campaign_id": campaign.id, "round": campaign.round}
    rows = session.exec(_AS_ANNOUNCED if campaign.phase in AFTER_ANNOUNCE else _AS_THEY_STAND, params=params).all()
    of = {player_id: battle_rules.Group("guild", guild_id, founder) for player_id, guild_id, founder in rows}
    return lambda player_id, event_id: [of[player_id]] if player_id in of else []

"""Who is in which guild, and how that changes (R8.1-R8.4, R8.6, R8.9, R9.2): founding,
requests and invitations, levels, leaving, dissolving. Every fee goes through the gold
service; every change of membership is public and goes to the chronicle."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from sqlalchemy import bindparam, func
from sqlmodel import Session, select

from app.accounts.models import User
from app.battles import service as battles
from app.battles.models import Battle, BattleWarband
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign, Player
from app.campaigns.terms import word_params
from app.chronicle import service as chronicle
from app.core.db import utcnow
from app.core.errors import N_, DomainError
from app.core.ports import Port
from app.core.rows import row_by_id
from app.gold import service as gold
from app.guilds import rules
from app.guilds.models import Guild, GuildMember, GuildRequest
from app.live import service as live
from app.maps import service as maps
from app.maps.models import Place
from app.visibility import Viewer, acting_player, campaign_row

MODULE = "guilds"
# Another domain may forbid joining (mission alliances, R8.9; a port, wired in app/wiring.py):
# (session, campaign, player, nickname) -> None or raise.
JoinGuard = Callable[[Session, Campaign, Player, str], None]
join_guards = Port[JoinGuard]("guild join guards")


def refuse(campaign: Campaign, code: str, **params) -> DomainError:
    """A refusal whose message may name the campaign's guild word (R8.2)."""
    return DomainError(code, **word_params(campaign), **params)


def _nickname(session: Session, campaign: Campaign, player_id: int) -> str:
    return campaigns.nicknames(session, campaign.id).get(player_id, "?")


def require_guilds(viewer: Viewer) -> None:
    maps.require_module(viewer.campaign, MODULE)


def _acting(session: Session, actor: User, campaign_id: int) -> Viewer:
    viewer = acting_player(session, actor, campaign_id, lock_player=True)
    require_guilds(viewer)
    if viewer.campaign.status != "running":
        raise DomainError("not_running")
    return viewer


# What founding, inviting, asking, admitting and leaving ask, built once (issue 37: built on each).
_GUILD = select(Guild).where(Guild.id == bindparam("guild_id"), Guild.campaign_id == bindparam("campaign_id"))
_GUILDS = {False: _GUILD, True: _GUILD.with_for_update()}
_MEMBERS = select(GuildMember.player_id).where(GuildMember.guild_id == bindparam("guild_id")).order_by(GuildMember.id)
_MEMBERSHIP = select(GuildMember).where(GuildMember.player_id == bindparam("player_id"))
_NAME_TAKEN = select(Guild.id).where(
    Guild.campaign_id == bindparam("campaign_id"), Guild.status == "active", func.lower(Guild.name) == bindparam("name")
)
_PENDING = (
    select(GuildRequest)
    .where(GuildRequest.id == bindparam("request_id"), GuildRequest.guild_id == bindparam("guild_id"))
    .where(GuildRequest.kind == bindparam("kind"))
    .with_for_update()
)
_WAITING = select(GuildRequest.id).where(
    GuildRequest.guild_id == bindparam("guild_id"),
    GuildRequest.player_id == bindparam("player_id"),
    GuildRequest.status == "pending",
)
_OFFERS = select(GuildRequest).where(GuildRequest.player_id == bindparam("player_id"), GuildRequest.status == "pending")
_PLAYER_LOCKED = select(Player).where(Player.id == bindparam("player_id")).with_for_update()


def _guild(session: Session, campaign: Campaign, guild_id: int, *, lock: bool = True) -> Guild:
    guild = session.exec(_GUILDS[lock], params={"guild_id": guild_id, "campaign_id": campaign.id}).first()
    if guild is None:
        raise DomainError("not_found")
    if guild.status != "active":
        raise refuse(campaign, "guild_dissolved")
    return guild


def _members(session: Session, guild_id: int) -> list[int]:
    return list(session.exec(_MEMBERS, params={"guild_id": guild_id}).all())


def _membership(session: Session, player_id: int) -> GuildMember | None:
    return session.exec(_MEMBERSHIP, params={"player_id": player_id}).first()


def _may_join(session: Session, campaign: Campaign, player: Player, nickname: str) -> None:
    """R8.3, R8.9: one guild at most; a founder dissolves theirs first; not while in a
    mission alliance this round."""
    current = _membership(session, player.id)
    if current is not None:
        guild = row_by_id(session, Guild, current.guild_id)
        founder = guild.founder_player_id == player.id
        raise refuse(
            campaign, "guild_founder_dissolve_first" if founder else "guild_member_already", nickname=nickname, name=guild.name
        )
    for guard in join_guards():
        guard(session, campaign, player, nickname)


def _require_founder(campaign: Campaign, guild: Guild, player_id: int) -> None:
    if guild.founder_player_id != player_id:
        raise refuse(campaign, "guild_founder_only")


def _founders_guild(session: Session, actor: User, campaign_id: int, guild_id: int) -> tuple[Viewer, Campaign, Guild]:
    """The acting player, the campaign and the guild (locked), refused unless they found it."""
    viewer = _acting(session, actor, campaign_id)
    guild = _guild(session, viewer.campaign, guild_id)
    _require_founder(viewer.campaign, guild, viewer.player.id)
    return viewer, viewer.campaign, guild


def found(session: Session, *, actor: User, campaign_id: int, name: str) -> Guild:
    """R8.1: a player founds a guild for the cost of level 1 and names it."""
    viewer = _acting(session, actor, campaign_id)
    campaign, player = viewer.campaign, viewer.player
    name = name.strip()
    _may_join(session, campaign, player, actor.nickname)
    taken = session.exec(_NAME_TAKEN, params={"campaign_id": campaign.id, "name": name.lower()}).first()
    if taken is not None:
        raise refuse(campaign, "guild_name_taken", name=name)
    guild = Guild(campaign_id=campaign.id, name=name, founder_player_id=player.id, level=1, founded_round=campaign.round)
    session.add(guild)
    session.flush()
    gold.pay(
        session,
        campaign=campaign,
        player_id=player.id,
        amount=rules.upgrade_cost(1, campaign.guild["level_cost"]),
        kind="guild_fee",
        note=N_("Founding · %(name)s"),
        params={"name": guild.name},
    )
    session.add(GuildMember(campaign_id=campaign.id, guild_id=guild.id, player_id=player.id, joined_round=campaign.round))
    _lapse_offers(session, player.id)
    chronicle.record(session, campaign, "guild_founded", player=actor.nickname, name=guild.name)
    session.flush()
    return guild


def ask(session: Session, *, actor: User, campaign_id: int, guild_id: int) -> GuildRequest:
    """R8.3: a request to join, paid; the fee is not returned whatever the answer."""
    viewer = _acting(session, actor, campaign_id)
    campaign, player = viewer.campaign, viewer.player
    guild = _guild(session, campaign, guild_id)
    _may_join(session, campaign, player, actor.nickname)
    _no_pending(session, campaign, guild, player.id, actor.nickname)
    _require_room(session, campaign, guild)
    fee = campaign.guild["request_fee"]
    if fee:
        gold.pay(
            session,
            campaign=campaign,
            player_id=player.id,
            amount=fee,
            kind="guild_fee",
            note=N_("Request to join · %(name)s"),
            params={"name": guild.name},
        )
    request = GuildRequest(
        campaign_id=campaign.id, guild_id=guild.id, player_id=player.id, kind="request", fee=fee, round=campaign.round
    )
    session.add(request)
    session.flush()
    live.publish(session, campaign.id, "guild", subject_id=request.id, actor_user_id=actor.id)
    return request


def invite(session: Session, *, actor: User, campaign_id: int, guild_id: int, player_id: int) -> GuildRequest:
    """R8.3: the guild's invitation is free; the founder sends it."""
    viewer, campaign, guild = _founders_guild(session, actor, campaign_id, guild_id)
    invitee = campaign_row(session, Player, player_id, campaign.id)
    if invitee.id == viewer.player.id:
        raise refuse(campaign, "guild_invite_self")
    nickname = _nickname(session, campaign, invitee.id)
    _may_join(session, campaign, invitee, nickname)
    _no_pending(session, campaign, guild, invitee.id, nickname)
    _require_room(session, campaign, guild)
    invitation = GuildRequest(
        campaign_id=campaign.id, guild_id=guild.id, player_id=invitee.id, kind="invitation", round=campaign.round
    )
    session.add(invitation)
    session.flush()
    live.publish(session, campaign.id, "guild", subject_id=invitation.id, actor_user_id=actor.id)
    return invitation


def decide_request(
    session: Session, *, actor: User, campaign_id: int, guild_id: int, request_id: int, accept: bool
) -> GuildRequest:
    """The founder accepts (the newcomer pays the entry fee) or rejects (the request fee is
    lost either way)."""
    viewer, campaign, guild = _founders_guild(session, actor, campaign_id, guild_id)
    request = _pending(session, campaign, guild, request_id, "request")
    if accept:
        _admit(session, campaign, guild, request)
    else:
        request.status, request.decided_at = "rejected", utcnow()
        session.add(request)
    return request


def answer_invitation(
    session: Session, *, actor: User, campaign_id: int, guild_id: int, invitation_id: int, accept: bool
) -> GuildRequest:
    viewer = _acting(session, actor, campaign_id)
    campaign = viewer.campaign
    guild = _guild(session, campaign, guild_id)
    invitation = _pending(session, campaign, guild, invitation_id, "invitation")
    if invitation.player_id != viewer.player.id:
        raise DomainError("not_found")
    if accept:
        _admit(session, campaign, guild, invitation)
    else:
        invitation.status, invitation.decided_at = "declined", utcnow()
        session.add(invitation)
    return invitation


def upgrade(session: Session, *, actor: User, campaign_id: int, guild_id: int) -> Guild:
    """R8.4: the founder pays N × the level cost for level N, up to the GM's top level."""
    viewer, campaign, guild = _founders_guild(session, actor, campaign_id, guild_id)
    if guild.level >= campaign.guild["max_level"]:
        raise refuse(campaign, "guild_top_level", level=guild.level)
    level = guild.level + 1
    gold.pay(
        session,
        campaign=campaign,
        player_id=viewer.player.id,
        amount=rules.upgrade_cost(level, campaign.guild["level_cost"]),
        kind="guild_fee",
        note=N_("Level %(level)s · %(name)s"),
        params={"level": level, "name": guild.name},
    )
    guild.level = level
    session.add(guild)
    chronicle.record(session, campaign, "guild_upgraded", name=guild.name, level=level)
    return guild


def leave(session: Session, *, actor: User, campaign_id: int, guild_id: int) -> Guild:
    """R8.6: a member leaves (the founder dissolves instead), never during a shared battle
    that is not yet resolved."""
    viewer = _acting(session, actor, campaign_id)
    campaign, me = viewer.campaign, viewer.player.id
    guild = _guild(session, campaign, guild_id)
    membership = _membership(session, me)
    if membership is None or membership.guild_id != guild.id:
        raise refuse(campaign, "guild_not_member")
    if guild.founder_player_id == me:
        raise refuse(campaign, "guild_founder_leaves")
    _no_shared_battle(session, campaign, {me}, _members(session, guild.id))
    session.delete(membership)
    chronicle.record(session, campaign, "guild_left", player=actor.nickname, name=guild.name)
    return guild


def dissolve(session: Session, *, actor: User, campaign_id: int, guild_id: int) -> Guild:
    viewer, campaign, guild = _founders_guild(session, actor, campaign_id, guild_id)
    members = _members(session, guild.id)
    _no_shared_battle(session, campaign, set(members), members)
    for membership in session.exec(select(GuildMember).where(GuildMember.guild_id == guild.id)).all():
        session.delete(membership)
    for offer in session.exec(
        select(GuildRequest).where(GuildRequest.guild_id == guild.id, GuildRequest.status == "pending")
    ).all():
        offer.status, offer.decided_at = "lapsed", utcnow()
        session.add(offer)
    guild.status, guild.dissolved_round = "dissolved", campaign.round
    session.add(guild)
    chronicle.record(session, campaign, "guild_dissolved", player=actor.nickname, name=guild.name)
    return guild


# --- helpers ------------------------------------------------------------------------------


def _pending(session: Session, campaign: Campaign, guild: Guild, request_id: int, kind: str) -> GuildRequest:
    request = session.exec(_PENDING, params={"request_id": request_id, "guild_id": guild.id, "kind": kind}).first()
    if request is None:
        raise DomainError("not_found")
    if request.status != "pending":
        raise refuse(campaign, "guild_request_decided")
    return request


def _no_pending(session: Session, campaign: Campaign, guild: Guild, player_id: int, nickname: str) -> None:
    found = session.exec(_WAITING, params={"guild_id": guild.id, "player_id": player_id}).first()
    if found is not None:
        raise refuse(campaign, "guild_request_pending", nickname=nickname)


def _require_room(session: Session, campaign: Campaign, guild: Guild) -> None:
    if not rules.has_room(guild.level, len(_members(session, guild.id))):
        raise refuse(campaign, "guild_full", level=guild.level, allies=rules.allies_allowed(guild.level))


def _admit(session: Session, campaign: Campaign, guild: Guild, offer: GuildRequest) -> None:
    """R8.3: the accepted player pays the entry fee, which is lost. The guild row is locked
    (and, on SQLite, the whole write), so two accepts racing for the last slot admit one."""
    player = session.exec(_PLAYER_LOCKED, params={"player_id": offer.player_id}).one()
    nickname = _nickname(session, campaign, player.id)
    _may_join(session, campaign, player, nickname)
    _require_room(session, campaign, guild)
    fee = campaign.guild["entry_fee"]
    if fee:
        try:
            gold.pay(
                session,
                campaign=campaign,
                player_id=player.id,
                amount=fee,
                kind="guild_fee",
                note=N_("Entry fee · %(name)s"),
                params={"name": guild.name},
            )
        except DomainError as exc:
            if exc.code != "not_enough_gold":
                raise
            raise refuse(campaign, "guild_entry_unaffordable", nickname=nickname, fee=fee) from None
    session.add(GuildMember(campaign_id=campaign.id, guild_id=guild.id, player_id=player.id, joined_round=campaign.round))
    offer.status, offer.decided_at = "accepted", utcnow()
    session.add(offer)
    session.flush()
    _lapse_offers(session, player.id)
    chronicle.record(session, campaign, "guild_joined", player=nickname, name=guild.name)


def _lapse_offers(session: Session, player_id: int) -> None:
    """A player who joined a guild has no other way in waiting (their paid requests lapse, unreturned)."""
    for offer in session.exec(_OFFERS, params={"player_id": player_id}).all():
        offer.status, offer.decided_at = "lapsed", utcnow()
        session.add(offer)


def _no_shared_battle(session: Session, campaign: Campaign, leaving: set[int], members: list[int]) -> None:
    """R8.6: a battle of this round, not yet resolved, where a leaving player and another
    member of the guild both fight."""
    others = set(members)
    rows = session.exec(
        select(Battle.id, Battle.place_id, BattleWarband.player_id)
        .join(BattleWarband, BattleWarband.battle_id == Battle.id)
        .where(
            Battle.campaign_id == campaign.id,
            Battle.round == campaign.round,
            Battle.status.not_in(battles.DECIDED_RESULTS),
            BattleWarband.player_id.in_(others),
        )
    ).all()
    by_battle: dict[int, set[int]] = defaultdict(set)
    place_of = {}
    for battle_id, place_id, player_id in rows:
        by_battle[battle_id].add(player_id)
        place_of[battle_id] = place_id
    for battle_id, players in sorted(by_battle.items()):
        if players & leaving and len(players) >= 2:
            place = row_by_id(session, Place, place_of[battle_id])
            raise refuse(campaign, "guild_shared_battle", place=place.name if place else "?")

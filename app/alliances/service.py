"""Mission alliance use cases (R8.7-R8.10, R9.3): made for one event of the current round in
Preparation or Orders, paid by each member, secret to everyone else until Battles, public
from then on, lapsing at End round."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import bindparam, func
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.alliances.models import Alliance, AllianceMember
from app.battles import rules as battle_rules
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign, Player
from app.chronicle import service as chronicle
from app.core.db import utcnow
from app.core.errors import N_, DomainError
from app.core.page_head import HeadRead, kept_in_head
from app.core.rows import row_by_id
from app.events import service as events
from app.events.models import Event
from app.gold import service as gold
from app.guilds import service as guilds
from app.guilds.service import refuse
from app.live import service as live
from app.maps import service as maps
from app.visibility import Viewer, acting_player, campaign_row, visible_alliances

MODULE = "mission_alliances"
OPEN_PHASES = ("preparation", "orders")


@dataclass
class AllianceView:
    alliance: Alliance
    event: Event | None
    members: dict[int, AllianceMember] = field(default_factory=dict)

    def ids(self, status: str) -> list[int]:
        return sorted(p for p, m in self.members.items() if m.status == status)

    @property
    def member_ids(self) -> list[int]:
        return self.ids("member")

    @property
    def invited_ids(self) -> list[int]:
        return self.ids("invited")


# Built once (issue 37: built on each visit, they cost the alliances' page more than running them).
_EVENTS = select(Event).where(Event.id.in_(bindparam("ids", expanding=True)))
_MEMBERS = (
    select(AllianceMember).where(AllianceMember.alliance_id.in_(bindparam("ids", expanding=True))).order_by(AllianceMember.id)
)
_ALLIED = (
    select(AllianceMember.player_id, Alliance.id, Alliance.event_id, Alliance.initiator_player_id)
    .join(Alliance, Alliance.id == AllianceMember.alliance_id)
    .where(
        Alliance.campaign_id == bindparam("campaign_id"),
        Alliance.round == bindparam("round"),
        Alliance.status == "active",
        AllianceMember.status == "member",
    )
)


def _views(session: Session, rows: list[Alliance]) -> list[AllianceView]:
    views = {a.id: AllianceView(a, None) for a in rows}
    if not views:
        return []
    events_ = {e.id: e for e in session.exec(_EVENTS, params={"ids": list({a.event_id for a in rows})}).all()}
    for m in session.exec(_MEMBERS, params={"ids": list(views)}).all():
        views[m.alliance_id].members[m.player_id] = m
    for v in views.values():
        v.event = events_.get(v.alliance.event_id)
    return list(views.values())


def alliances(session: Session, viewer: Viewer, *, current_only: bool = False) -> list[AllianceView]:
    """The mission alliances this viewer may see (visibility.visible_alliances), newest first."""
    maps.require_module(viewer.campaign, MODULE)
    rows = visible_alliances(session, viewer, round_=viewer.campaign.round if current_only else None)
    views = _views(session, rows)
    me = viewer.player.id if viewer.player else None
    for view in views:
        if me not in view.members:
            # Public since Battles (R8.8): its members, not whom else it invited (the chronicle names
            # the members only, and the alliances page shows invitations only to those in it).
            view.members = {p: m for p, m in view.members.items() if m.status == "member"}
    return views


# How many alliances of this round invite this player and wait for an answer. Read with the
# page head (app/core/page_head.py): a dashboard reads the round's alliances only when one
# does, so that neither its work nor its timing tell of alliances others made (R8.8, R11.2).
def _seats_this_round(status: str) -> tuple:
    """A player's seats of one status in this round's live alliances, the campaign, the round
    and the player as bind parameters."""
    return (
        Alliance.campaign_id == bindparam("campaign_id"),
        Alliance.round == bindparam("round"),
        Alliance.status == "active",
        AllianceMember.player_id == bindparam("player_id"),
        AllianceMember.status == status,
    )


_INVITED_COUNT = (
    select(func.count())
    .select_from(AllianceMember)
    .join(Alliance, col(Alliance.id) == AllianceMember.alliance_id)
    .where(*_seats_this_round("invited"))
)


def head_read(viewer: Viewer) -> HeadRead | None:
    """`_INVITED_COUNT` for this viewer, when an alliance may wait for their answer."""
    campaign = viewer.campaign
    if (
        viewer.player is None
        or not campaign.modules.get(MODULE)
        or campaign.phase not in OPEN_PHASES
        or campaign.status != "running"
    ):
        return None
    params = {"campaign_id": viewer.campaign_id, "round": campaign.round, "player_id": viewer.player.id}
    return HeadRead("_alliances_waiting", _INVITED_COUNT, params)


def waiting(session: Session, viewer: Viewer) -> list[AllianceView]:
    """Invitations this player can still answer."""
    read = head_read(viewer)
    if read is None or not kept_in_head(session, viewer, read):
        return []
    me = read.params["player_id"]
    return [
        v
        for v in _views(session, visible_alliances(session, viewer, round_=viewer.campaign.round))
        if v.alliance.status == "active" and me in v.members and v.members[me].status == "invited"
    ]


def _acting(session: Session, actor: User, campaign_id: int) -> Viewer:
    viewer = acting_player(session, actor, campaign_id, lock_player=True)
    maps.require_module(viewer.campaign, MODULE)
    campaign = viewer.campaign
    if campaign.status != "running" or campaign.phase not in OPEN_PHASES:
        raise refuse(campaign, "alliance_phase")
    return viewer


def _not_in_guild(session: Session, campaign: Campaign, players: dict[int, str]) -> None:
    """R8.9: guild members are loyal to their guild and make no mission alliances
    (`players`: id -> nickname of those to check; one statement for all of them)."""
    if not campaign.modules.get(guilds.MODULE):
        return
    guild_of = guilds.guild_ids_of_players(session, campaign.id)
    for player_id, nickname in players.items():
        if guild_of.get(player_id):
            raise refuse(campaign, "alliance_guild_member", nickname=nickname)


# Built once, for any event or for one (issue 37: every alliance made or joined, and every
# guild founded or joined, asked it, built anew).
_LIVE_MEMBER = (
    select(AllianceMember.id).join(Alliance, Alliance.id == AllianceMember.alliance_id).where(*_seats_this_round("member"))
)
_LIVE_MEMBERS = {False: _LIVE_MEMBER, True: _LIVE_MEMBER.where(Alliance.event_id == bindparam("event_id"))}


def _in_live_alliance(session: Session, campaign: Campaign, player_id: int, event_id: int | None = None) -> bool:
    """A member of a live mission alliance of this round (for this event, when given)."""
    params = {"campaign_id": campaign.id, "round": campaign.round, "player_id": player_id, "event_id": event_id}
    return session.exec(_LIVE_MEMBERS[event_id is not None], params=params).first() is not None


def create(session: Session, *, actor: User, campaign_id: int, event_id: int, invite_player_ids: list[int]) -> Alliance:
    """R8.7: the initiator invites any number of players and pays the fee on creation."""
    viewer = _acting(session, actor, campaign_id)
    campaign, me = viewer.campaign, viewer.player.id
    event = campaign_row(session, Event, event_id, campaign.id)
    if not events.is_active(event, campaign):
        raise refuse(campaign, "alliance_event_inactive")
    invitees = sorted(set(invite_player_ids))
    if me in invitees:
        raise refuse(campaign, "alliance_invite_self")
    if not invitees:
        raise refuse(campaign, "alliance_invite_none")
    names = campaigns.nicknames(session, campaign.id)
    for player_id in invitees:
        if player_id not in names:
            raise DomainError("not_found")
    _not_in_guild(session, campaign, {me: actor.nickname, **{p: names[p] for p in invitees}})
    # One side per event: a player is in one live alliance for it at most.
    if _in_live_alliance(session, campaign, me, event.id):
        raise refuse(campaign, "alliance_already_at_event", nickname=actor.nickname)
    alliance = Alliance(campaign_id=campaign.id, round=campaign.round, event_id=event.id, initiator_player_id=me)
    session.add(alliance)
    session.flush()
    fee = _pay_fee(session, campaign, me, event.title)
    session.add(
        AllianceMember(
            campaign_id=campaign.id, alliance_id=alliance.id, player_id=me, status="member", fee=fee, decided_at=utcnow()
        )
    )
    session.add_all(AllianceMember(campaign_id=campaign.id, alliance_id=alliance.id, player_id=p) for p in invitees)
    session.flush()
    live.publish(session, campaign.id, "alliance", subject_id=alliance.id, actor_user_id=actor.id)
    return alliance


def _pay_fee(session: Session, campaign: Campaign, player_id: int, event_title: str) -> int:
    """R8.7: the alliance fee, paid on making or joining and never returned; what was paid."""
    fee = campaign.alliance_fee
    if fee:
        gold.pay(
            session,
            campaign=campaign,
            player_id=player_id,
            amount=fee,
            kind="alliance_fee",
            note=N_("%(event)s"),
            params={"event": event_title},
        )
    return fee


_ALLIANCE_LOCKED = (
    select(Alliance)
    .where(Alliance.id == bindparam("alliance_id"), Alliance.campaign_id == bindparam("campaign_id"))
    .with_for_update()
)
_MEMBER = select(AllianceMember).where(
    AllianceMember.alliance_id == bindparam("alliance_id"), AllianceMember.player_id == bindparam("player_id")
)


def _membership(session: Session, campaign: Campaign, alliance_id: int, player_id: int) -> tuple[Alliance, AllianceMember]:
    alliance = session.exec(_ALLIANCE_LOCKED, params={"alliance_id": alliance_id, "campaign_id": campaign.id}).first()
    member = None
    if alliance is not None:
        member = session.exec(_MEMBER, params={"alliance_id": alliance.id, "player_id": player_id}).first()
    # Anybody outside the alliance is told it does not exist (R8.8).
    if alliance is None or member is None:
        raise DomainError("not_found")
    if alliance.status != "active" or alliance.round != campaign.round:
        raise refuse(campaign, "alliance_over")
    return alliance, member


def accept(session: Session, *, actor: User, campaign_id: int, alliance_id: int) -> Alliance:
    """An invitee joins and pays the fee, which is lost (R8.7)."""
    viewer = _acting(session, actor, campaign_id)
    campaign, me = viewer.campaign, viewer.player.id
    alliance, member = _membership(session, campaign, alliance_id, me)
    if member.status != "invited":
        raise refuse(campaign, "alliance_not_invited")
    _not_in_guild(session, campaign, {me: actor.nickname})
    if _in_live_alliance(session, campaign, me, alliance.event_id):
        raise refuse(campaign, "alliance_already_at_event", nickname=actor.nickname)
    event = row_by_id(session, Event, alliance.event_id) if campaign.alliance_fee else None
    fee = _pay_fee(session, campaign, me, event.title if event else "")
    member.status, member.fee, member.decided_at = "member", fee, utcnow()
    session.add(member)
    return alliance


def decline(session: Session, *, actor: User, campaign_id: int, alliance_id: int) -> Alliance:
    viewer = _acting(session, actor, campaign_id)
    alliance, member = _membership(session, viewer.campaign, alliance_id, viewer.player.id)
    if member.status != "invited":
        raise refuse(viewer.campaign, "alliance_not_invited")
    member.status, member.decided_at = "declined", utcnow()
    session.add(member)
    return alliance


def withdraw(session: Session, *, actor: User, campaign_id: int, alliance_id: int) -> Alliance:
    """A member withdraws; the fee is lost. When the initiator withdraws the alliance ends for
    everybody (it was theirs: they would have taken the free place, R8.8)."""
    viewer = _acting(session, actor, campaign_id)
    campaign, me = viewer.campaign, viewer.player.id
    alliance, member = _membership(session, campaign, alliance_id, me)
    if member.status != "member":
        raise refuse(campaign, "alliance_not_member")
    member.status, member.decided_at = "withdrawn", utcnow()
    session.add(member)
    if alliance.initiator_player_id == me:
        alliance.status = "ended"
        session.add(alliance)
    return alliance


def reveal(session: Session, campaign: Campaign, previous: str | None) -> None:
    """R8.8: when Battles begins, the round's mission alliances go to the chronicle."""
    if campaign.phase != "battles" or not campaign.modules.get(MODULE):
        return
    rows = session.exec(
        select(Alliance)
        .where(Alliance.campaign_id == campaign.id, Alliance.round == campaign.round, Alliance.status == "active")
        .order_by(Alliance.id)
    ).all()
    names = campaigns.nicknames(session, campaign.id)
    for view in _views(session, list(rows)):
        if len(view.member_ids) < 2:
            continue
        allies = [names.get(p, "?") for p in view.member_ids if p != view.alliance.initiator_player_id]
        chronicle.record(
            session,
            campaign,
            "alliance_revealed",
            initiator=names.get(view.alliance.initiator_player_id, "?"),
            allies=", ".join(allies),
            title=view.event.title if view.event else "",
        )


def lapse(session: Session, campaign: Campaign) -> None:
    """End round (R8.8, R7.6): the round's mission alliances lapse."""
    for alliance in session.exec(select(Alliance).where(Alliance.campaign_id == campaign.id, Alliance.status == "active")).all():
        alliance.status = "lapsed"
        session.add(alliance)


def group_source(session: Session, campaign: Campaign):
    """Mission allies stand together at their event (R6.2, R8.8), led by the initiator."""
    if not campaign.modules.get(MODULE):
        return lambda player_id, event_id: []
    rows = session.exec(_ALLIED, params={"campaign_id": campaign.id, "round": campaign.round}).all()
    of: dict[tuple[int, int], list[battle_rules.Group]] = defaultdict(list)
    for player_id, alliance_id, event_id, initiator in rows:
        of[(player_id, event_id)].append(battle_rules.Group("alliance", alliance_id, initiator))
    return lambda player_id, event_id: of.get((player_id, event_id), []) if event_id is not None else []


def guild_guard(session: Session, campaign: Campaign, player: Player, nickname: str) -> None:
    """R8.9: a player in a mission alliance this round joins a guild only after it lapses
    or after withdrawing from it."""
    if campaign.modules.get(MODULE) and _in_live_alliance(session, campaign, player.id):
        raise refuse(campaign, "guild_in_alliance", nickname=nickname)


def undo_for_ended_event(session: Session, campaign: Campaign, event: Event) -> None:
    """The GM ends an event before Battles: its mission alliances end too, and every fee paid
    for them comes back, as the orders' mercenary fees do."""
    for alliance in session.exec(
        select(Alliance).where(Alliance.event_id == event.id, Alliance.round == campaign.round, Alliance.status == "active")
    ).all():
        alliance.status = "ended"
        session.add(alliance)
        for member in session.exec(
            select(AllianceMember).where(
                AllianceMember.alliance_id == alliance.id, AllianceMember.status == "member", AllianceMember.fee > 0
            )
        ).all():
            gold.credit(
                session,
                campaign=campaign,
                player_id=member.player_id,
                amount=member.fee,
                kind="alliance_fee",
                note=N_("Refund · %(event)s"),
                params={"event": event.title},
            )

"""People who come and go (issue 36): co-GMs (R12.8), away players (R12.11) and a seat handed
to another user (R12.10). Joining late (R12.12) is app/campaigns/lifecycle.py's, with every
other way of joining. Who is a game master is decided in app/visibility/ (Viewer.is_gm)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.accounts import rules as account_rules
from app.accounts.models import User
from app.audit import service as audit
from app.campaigns.models import Campaign, Invitation, Player
from app.chronicle import service as chronicle
from app.core.db import read_rows
from app.core.errors import DomainError
from app.core.live import user_key, wake_after_commit
from app.core.ports import Port
from app.people.models import Away, GameMaster
from app.visibility import Viewer, require_gm, require_writable, viewer_for
from app.warbands.models import Order

# --- co-GMs (R12.8) --------------------------------------------------------------------------


@dataclass
class GameMasterRow:
    user_id: int
    nickname: str
    owner: bool  # the campaign's own GM: never removed


# Built once (issue 37: a statement built anew costs each visit of the players page about 80 µs).
_GAME_MASTERS = (
    select(User.id, User.nickname)
    .join(GameMaster, col(GameMaster.user_id) == User.id)
    .where(GameMaster.campaign_id == bindparam("campaign_id"))
    .order_by(GameMaster.id)
)


def game_masters(session: Session, viewer: Viewer) -> list[GameMasterRow]:
    """The campaign's game masters, its own GM first (the GMs' to see)."""
    require_gm(viewer)
    campaign = viewer.campaign
    owner = session.get(User, campaign.gm_user_id)
    rows = read_rows(session, _GAME_MASTERS, {"campaign_id": campaign.id}).all()
    return [GameMasterRow(campaign.gm_user_id, owner.nickname if owner else "", True)] + [
        GameMasterRow(uid, nick, False) for uid, nick in rows
    ]


def _user_by_nickname(session: Session, nickname: str) -> User:
    user = session.exec(select(User).where(User.nickname_key == account_rules.nickname_key(nickname))).first()
    if user is None:
        raise DomainError("user_unknown", nickname=nickname.strip())
    return user


def _in_campaign(session: Session, campaign: Campaign, user: User) -> str | None:
    """What this user already is in the campaign: 'gm', 'player', 'invited' or None."""
    if (
        user.id == campaign.gm_user_id
        or session.exec(select(GameMaster.id).where(GameMaster.campaign_id == campaign.id, GameMaster.user_id == user.id)).first()
    ):
        return "gm"
    if session.exec(select(Player.id).where(Player.campaign_id == campaign.id, Player.user_id == user.id)).first():
        return "player"
    pending = select(Invitation.id).where(
        Invitation.campaign_id == campaign.id, Invitation.user_id == user.id, Invitation.status == "pending"
    )
    return "invited" if session.exec(pending).first() else None


def add_game_master(session: Session, *, actor: User, campaign_id: int, nickname: str) -> GameMasterRow:
    """A GM shares the campaign with another user: the same rights and the same limits. A
    player (or an invitee) of the campaign cannot be one, and nobody is added twice."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    user = _user_by_nickname(session, nickname)
    already = _in_campaign(session, viewer.campaign, user)
    if already == "gm":
        raise DomainError("already_gm", nickname=user.nickname)
    if already is not None:
        raise DomainError("player_cannot_be_gm", nickname=user.nickname)
    session.add(GameMaster(campaign_id=viewer.campaign_id, user_id=user.id))
    session.flush()
    chronicle.record(session, viewer.campaign, "game_master_added", nickname=user.nickname)
    audit.record(session, viewer.campaign, actor, "game_master_added", f"user:{user.id}", after={"nickname": user.nickname})
    return GameMasterRow(user.id, user.nickname, False)


def remove_game_master(session: Session, *, actor: User, campaign_id: int, user_id: int) -> str:
    """A co-GM leaves (a GM removes them, or they step down); the campaign's own GM stays.
    Returns the nickname removed."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    if user_id == viewer.campaign.gm_user_id:
        raise DomainError("owner_gm_stays")
    row = session.exec(select(GameMaster).where(GameMaster.campaign_id == campaign_id, GameMaster.user_id == user_id)).first()
    if row is None:
        raise DomainError("not_found")
    nickname = session.get(User, user_id).nickname
    session.delete(row)
    session.flush()
    wake_after_commit(session, {user_key(user_id)})  # their open streams ask again, and close
    chronicle.record(session, viewer.campaign, "game_master_removed", nickname=nickname)
    audit.record(session, viewer.campaign, actor, "game_master_removed", f"user:{user_id}", before={"nickname": nickname})
    return nickname


# --- away players (R12.11) -------------------------------------------------------------------


def _seat(session: Session, viewer: Viewer, player_id: int) -> Player:
    """The player this viewer may act for: themselves, or anyone for a GM."""
    if not viewer.is_gm and (viewer.player is None or viewer.player.id != player_id):
        raise DomainError("not_found" if viewer.player is None else "forbidden")
    player = session.exec(select(Player).where(Player.id == player_id, Player.campaign_id == viewer.campaign_id)).first()
    if player is None:
        raise DomainError("not_found")
    return player


def first_open_round(campaign: Campaign) -> int:
    """The first round whose orders are still to come: the current one until its Battles."""
    if campaign.status != "running":
        return 1
    return campaign.round if campaign.phase in ("preparation", "orders") else campaign.round + 1


def mark_away(session: Session, *, actor: User, campaign_id: int, player_id: int, from_round: int, to_round: int) -> Away:
    """The player is away from_round..to_round: their warbands stay home and defend, nothing
    reminds them, and nobody waits for their orders. Orders already sent for a round it
    covers are cancelled by the player first (their fees are theirs to take back)."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    player = _seat(session, viewer, player_id)
    campaign = viewer.campaign
    first = first_open_round(campaign)
    if from_round < first or to_round < from_round:
        raise DomainError("away_rounds", first=first)
    if campaign.status == "running" and from_round == campaign.round and sent_this_round(session, campaign, player.id):
        raise DomainError("away_orders_sent")
    away = session.exec(select(Away).where(Away.player_id == player.id)).first() or Away(
        campaign_id=campaign.id, player_id=player.id, from_round=from_round, to_round=to_round
    )
    away.from_round, away.to_round = from_round, to_round
    session.add(away)
    session.flush()
    return away


def clear_away(session: Session, *, actor: User, campaign_id: int, player_id: int) -> bool:
    """The player is back; False when they were not marked away."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    player = _seat(session, viewer, player_id)
    away = session.exec(select(Away).where(Away.player_id == player.id)).first()
    if away is None:
        return False
    session.delete(away)
    session.flush()
    return True


def sent_this_round(session: Session, campaign: Campaign, player_id: int) -> bool:
    return (
        session.exec(
            select(Order.id).where(Order.campaign_id == campaign.id, Order.round == campaign.round, Order.player_id == player_id)
        ).first()
        is not None
    )


# --- a seat handed over (R12.10) -------------------------------------------------------------

# A higher domain may keep something for a seat's holder: an imported campaign's placeholder
# account and the seat's record (app/exports), nobody's to take once the GM hands the seat
# over. `(session, player_id=, previous=) -> None`, in the handover's transaction. A port,
# wired in app/wiring.py.
SeatReleased = Callable[..., None]
seats_released = Port[SeatReleased]("seats handed over")


def handover(session: Session, *, actor: User, campaign_id: int, player_id: int, nickname: str) -> tuple[str, str]:
    """A GM hands a player's seat — company, gold, warbands, places, letters, all of it kept by
    the player's id — to another user, who is nothing in the campaign yet. The old user loses
    it at once: every page, call and open live stream asks viewer_for, which no longer finds
    them. Returns (old nickname, new nickname)."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    player = session.exec(
        select(Player).where(Player.id == player_id, Player.campaign_id == viewer.campaign_id).with_for_update()
    ).first()
    if player is None:
        raise DomainError("not_found")
    user = _user_by_nickname(session, nickname)
    if _in_campaign(session, viewer.campaign, user) is not None:
        raise DomainError("handover_user_busy", nickname=user.nickname)
    previous = session.get(User, player.user_id)
    player.user_id = user.id
    session.add(player)
    session.flush()
    wake_after_commit(session, {user_key(previous.id if previous else 0)})  # their open streams ask again, and close
    old = previous.nickname if previous else ""
    for release in seats_released():
        release(session, player_id=player.id, previous=previous)
    chronicle.record(session, viewer.campaign, "seat_handed_over", previous=old, nickname=user.nickname)
    audit.record(
        session,
        viewer.campaign,
        actor,
        "seat_handed_over",
        f"player:{player.id}",
        before={"nickname": old},
        after={"nickname": user.nickname},
    )
    return old, user.nickname

"""The campaign's lifecycle (R1.4-R1.6): invitations and joining, hideout selection, and the
status moves (hideouts, running, finished). A layer above the campaign's base, gold and the
live stream (tools/layers.py): joining pays the starting gold, a status move is told live."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app.accounts import rules as account_rules
from app.accounts.models import User
from app.campaigns import rules
from app.campaigns.models import Campaign, Invitation, Player
from app.campaigns.service import player_count, roster_size
from app.chronicle import service as chronicle
from app.core.db import utcnow
from app.core.errors import DomainError
from app.core.ports import Port
from app.gold import service as gold
from app.live import service as live
from app.maps.models import Hideout, Place
from app.people.models import GameMaster
from app.visibility import require_gm, require_writable, viewer_for

# --- roster (R1.4) ---------------------------------------------------------------


def invite(session: Session, *, actor: User, campaign_id: int, nickname: str) -> Invitation:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    campaign = viewer.campaign
    _roster_open(campaign)
    user = session.exec(select(User).where(User.nickname_key == account_rules.nickname_key(nickname))).first()
    if user is None:
        raise DomainError("user_unknown", nickname=nickname.strip())
    co_gm = select(GameMaster.id).where(GameMaster.campaign_id == campaign.id, GameMaster.user_id == user.id)
    if user.id == campaign.gm_user_id or session.exec(co_gm).first() is not None:
        raise DomainError("gm_cannot_play")  # R12.8: a co-GM is not a player either
    if session.exec(select(Player.id).where(Player.campaign_id == campaign.id, Player.user_id == user.id)).first():
        raise DomainError("already_player", nickname=user.nickname)
    invitation = session.exec(
        select(Invitation).where(Invitation.campaign_id == campaign.id, Invitation.user_id == user.id)
    ).first()
    if invitation is not None and invitation.status == "pending":
        raise DomainError("already_invited", nickname=user.nickname)
    if roster_size(session, campaign.id) >= campaign.max_players:
        raise DomainError("campaign_full", max=campaign.max_players)
    if invitation is None:
        invitation = Invitation(campaign_id=campaign.id, user_id=user.id)
    # A declined or lapsed invitation can be sent again.
    invitation.status, invitation.created_at, invitation.decided_at = "pending", utcnow(), None
    session.add(invitation)
    session.flush()
    return invitation


def _roster_open(campaign: Campaign) -> None:
    """R1.4, R12.12: the roster is open in setup, and again in each Preparation of a running
    campaign (a late joiner), never while hideouts are chosen or once it is finished."""
    if campaign.status == "running" and campaign.phase != "preparation":
        raise DomainError("late_join_phase")
    if campaign.status not in ("setup", "running"):
        raise DomainError("roster_closed")


def _pending_invitation(session: Session, user: User, campaign_id: int) -> tuple[Campaign, Invitation]:
    viewer = viewer_for(session, user, campaign_id, lock=True, invitee_ok=True)
    invitation = session.exec(
        select(Invitation).where(
            Invitation.campaign_id == campaign_id, Invitation.user_id == user.id, Invitation.status == "pending"
        )
    ).first()
    if invitation is None:
        raise DomainError("no_invitation")
    return viewer.campaign, invitation


# A higher domain may keep a seat for the invitee: an imported campaign's player with its
# company, gold and history (app/exports). `(session, campaign=, user=) -> Player | None`;
# taking the seat binds the invitee to that player instead of adding an empty one, whatever
# the campaign's status (the seat is already on the roster).
# A port, wired in app/wiring.py.
SeatTaker = Callable[..., "Player | None"]
seat_takers = Port[SeatTaker]("seat takers")


def accept_invitation(session: Session, *, actor: User, campaign_id: int) -> Player:
    campaign, invitation = _pending_invitation(session, actor, campaign_id)
    for take in seat_takers():
        seat = take(session, campaign=campaign, user=actor)
        if seat is not None:
            invitation.status, invitation.decided_at = "accepted", utcnow()
            session.add(invitation)
            chronicle.record(session, campaign, "player_joined", nickname=actor.nickname)
            return seat
    _roster_open(campaign)
    if player_count(session, campaign.id) >= campaign.max_players:
        raise DomainError("campaign_full", max=campaign.max_players)
    invitation.status, invitation.decided_at = "accepted", utcnow()
    player = Player(campaign_id=campaign.id, user_id=actor.id)
    session.add_all([invitation, player])
    session.flush()
    # R1.6 (decision): the starting gold arrives on joining, so the shop works before round 1;
    # a late joiner's arrives with their hideout (R12.12, claim_hideout).
    if campaign.starting_gold and campaign.status == "setup":
        gold.credit(session, campaign=campaign, player_id=player.id, amount=campaign.starting_gold, kind="start")
    chronicle.record(session, campaign, "player_joined", nickname=actor.nickname)
    return player


def decline_invitation(session: Session, *, actor: User, campaign_id: int) -> None:
    _campaign, invitation = _pending_invitation(session, actor, campaign_id)
    invitation.status, invitation.decided_at = "declined", utcnow()
    session.add(invitation)


# --- lifecycle (R1.5, R1.6) -------------------------------------------------------


def _free_flagged_places(session: Session, campaign_id: int) -> list[Place]:
    return list(
        session.exec(
            select(Place)
            .where(Place.campaign_id == campaign_id, Place.hideout_slot.is_(True), Place.owner_player_id.is_(None))
            .order_by(Place.id)
        ).all()
    )


def set_status(session: Session, *, actor: User, campaign_id: int, target: str) -> Campaign:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    campaign = viewer.campaign
    rules.check_status_move(campaign.status, target)
    if target == "hideouts":
        rules.check_enter_hideouts(player_count(session, campaign.id), len(_free_flagged_places(session, campaign.id)))
        for invitation in session.exec(
            select(Invitation).where(Invitation.campaign_id == campaign.id, Invitation.status == "pending")
        ).all():
            invitation.status, invitation.decided_at = "lapsed", utcnow()
            session.add(invitation)
        campaign.status = "hideouts"
        chronicle.record(session, campaign, "hideouts_opened")
    elif target == "running":
        missing = session.exec(
            select(User.nickname)
            .join(Player, Player.user_id == User.id)
            .outerjoin(Hideout, Hideout.player_id == Player.id)
            .where(Player.campaign_id == campaign.id, Hideout.id.is_(None))
            .order_by(User.nickname)
        ).all()
        rules.check_start(list(missing))
        move = rules.start_move()
        campaign.status, campaign.round, campaign.phase = "running", move.round, move.phase
        campaign.started_at = utcnow()
        campaign.setup_complete = True
        chronicle.record(session, campaign, "campaign_started")
    else:
        campaign.status = "finished"
        campaign.finished_at = utcnow()
        chronicle.record(session, campaign, "campaign_finished")
    session.add(campaign)
    step = {"hideouts": "hideouts", "running": "started"}.get(target, "finished")
    live.publish(
        session,
        campaign.id,
        "phase",
        actor_user_id=actor.id,
        step=step,
        status=campaign.status,
        phase=campaign.phase,
        round=campaign.round,
    )
    return campaign


def claim_hideout(session: Session, *, actor: User, campaign_id: int, place_id: int) -> Hideout:
    """R1.5: the unique place of a hideout makes two concurrent claims end with one winner."""
    viewer = viewer_for(session, actor, campaign_id)
    campaign = viewer.campaign
    if viewer.player is None:
        raise DomainError("not_a_player")
    late = campaign.status == "running"  # R12.12: a late joiner without a place yet
    if late and campaign.phase != "preparation":
        raise DomainError("late_join_phase")
    if campaign.status != "hideouts" and not late:
        raise DomainError("wrong_status", status=rules.status_name(campaign.status), needed=rules.status_name("hideouts"))
    # Locking the player too stops one player claiming two places at once on PostgreSQL.
    session.exec(select(Player.id).where(Player.id == viewer.player.id).with_for_update()).one()
    place = session.exec(select(Place).where(Place.id == place_id, Place.campaign_id == campaign.id).with_for_update()).first()
    if place is None:
        raise DomainError("not_found")
    if not place.hideout_slot:
        raise DomainError("hideout_not_flagged", place=place.name)
    if session.exec(select(Hideout.id).where(Hideout.player_id == viewer.player.id)).first() is not None:
        raise DomainError("hideout_already_chosen")
    if place.owner_player_id is not None:
        raise DomainError("hideout_taken", place=place.name)
    hideout = Hideout(campaign_id=campaign.id, place_id=place.id, player_id=viewer.player.id, round=campaign.round if late else 0)
    place.owner_player_id = viewer.player.id
    session.add_all([hideout, place])
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError:
        raise DomainError("hideout_taken", place=place.name) from None
    if late:
        if campaign.starting_gold:
            gold.credit(session, campaign=campaign, player_id=viewer.player.id, amount=campaign.starting_gold, kind="start")
        chronicle.record(session, campaign, "player_joined_late", nickname=actor.nickname, round=campaign.round, place=place.name)
    else:
        chronicle.record(session, campaign, "hideout_claimed", nickname=actor.nickname, place=place.name)
    return hideout

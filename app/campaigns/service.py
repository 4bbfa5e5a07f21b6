"""Campaign use cases: wizard and settings, roster, hideout selection, lifecycle, phases."""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app.accounts import rules as account_rules
from app.accounts.models import User
from app.campaigns import house_rules, rules
from app.campaigns.models import Campaign, Invitation, Player
from app.chronicle import service as chronicle, texts as chronicle_texts
from app.gold import service as gold
from app.core.db import utcnow
from app.core.errors import DomainError, Msg, N_
from app.live import service as live
from app.maps.models import Hideout, Place
from app.visibility import Viewer, hidden_gold, require_gm, require_writable, viewer_for

chronicle_texts.add_labels(("from_phase", "to_phase"), rules.PHASE_NAMES)

SETTING_FIELDS = (
    "name", "story", "max_players", "starting_gold", "round_income", "gold_per_point",
    "sale_loss_percent", "warband_points", "underdog_points_per_die", "alliance_fee",
)
FIELD_LABELS = {
    "modules": N_("Modules"),
    "guild": N_("Guild settings"),
    "alliance_fee": N_("The mission-alliance fee"),
}


def create_campaign(session: Session, *, actor: User, data: dict) -> Campaign:
    campaign = Campaign(
        gm_user_id=actor.id,
        name=data["name"].strip(),
        modules=rules.normalize_modules({}, data.get("modules") or {}),
        guild=rules.normalize_guild({}, data.get("guild") or {}),
        settlement_rules=house_rules.normalize({}, data["settlement_rules"]) if data.get("settlement_rules") else {},
    )
    for key in SETTING_FIELDS:
        if key != "name" and data.get(key) is not None:
            setattr(campaign, key, data[key])
    session.add(campaign)
    session.flush()
    chronicle.record(session, campaign, "campaign_created", gm=actor.nickname)
    return campaign


def update_settings(session: Session, *, actor: User, campaign_id: int, changes: dict, wizard_step: int | None = None) -> Campaign:
    """Saves any subset of settings (a wizard step or an API PATCH)."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    campaign = viewer.campaign
    new_modules = rules.normalize_modules(campaign.modules, changes["modules"]) if changes.get("modules") else campaign.modules
    new_guild = rules.normalize_guild(campaign.guild, changes["guild"]) if changes.get("guild") else campaign.guild
    candidate = {"modules": new_modules, "guild": new_guild}
    if "alliance_fee" in changes and changes["alliance_fee"] is not None:
        candidate["alliance_fee"] = changes["alliance_fee"]
    old = {"modules": campaign.modules, "guild": campaign.guild, "alliance_fee": campaign.alliance_fee}
    locked = rules.locked_changes(campaign.status, old, candidate)
    if locked:
        raise DomainError("settings_locked", field=Msg(FIELD_LABELS[locked[0]]))
    if changes.get("starting_gold") is not None and changes["starting_gold"] != campaign.starting_gold:
        if _player_count(session, campaign.id) > 0:
            raise DomainError("starting_gold_locked")
    if changes.get("max_players") is not None:
        rules.check_max_players(changes["max_players"], _roster_size(session, campaign.id))
    for key in SETTING_FIELDS:
        if changes.get(key) is not None:
            value = changes[key].strip() if key == "name" else changes[key]
            setattr(campaign, key, value)
    campaign.modules = new_modules
    campaign.guild = new_guild
    if changes.get("settlement_rules"):
        # Casualty table, experience, ranks, retinue: the GM may change them at any time.
        campaign.settlement_rules = house_rules.normalize(campaign.settlement_rules, changes["settlement_rules"])
    if wizard_step is not None:
        campaign.wizard_step = max(campaign.wizard_step, min(wizard_step + 1, rules.WIZARD_STEPS))
        if wizard_step >= rules.WIZARD_STEPS:
            campaign.setup_complete = True
    session.add(campaign)
    return campaign


def _player_count(session: Session, campaign_id: int) -> int:
    return session.exec(select(func.count()).select_from(Player).where(Player.campaign_id == campaign_id)).one()


def _roster_size(session: Session, campaign_id: int) -> int:
    pending = session.exec(
        select(func.count())
        .select_from(Invitation)
        .where(Invitation.campaign_id == campaign_id, Invitation.status == "pending")
    ).one()
    return _player_count(session, campaign_id) + pending


# --- roster (R1.4) ---------------------------------------------------------------


def invite(session: Session, *, actor: User, campaign_id: int, nickname: str) -> Invitation:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    campaign = viewer.campaign
    if campaign.status != "setup":
        raise DomainError("roster_closed")
    user = session.exec(select(User).where(User.nickname_key == account_rules.nickname_key(nickname))).first()
    if user is None:
        raise DomainError("user_unknown", nickname=nickname.strip())
    if user.id == campaign.gm_user_id:
        raise DomainError("gm_cannot_play")
    if session.exec(select(Player.id).where(Player.campaign_id == campaign.id, Player.user_id == user.id)).first():
        raise DomainError("already_player", nickname=user.nickname)
    invitation = session.exec(
        select(Invitation).where(Invitation.campaign_id == campaign.id, Invitation.user_id == user.id)
    ).first()
    if invitation is not None and invitation.status == "pending":
        raise DomainError("already_invited", nickname=user.nickname)
    if _roster_size(session, campaign.id) >= campaign.max_players:
        raise DomainError("campaign_full", max=campaign.max_players)
    if invitation is None:
        invitation = Invitation(campaign_id=campaign.id, user_id=user.id)
    # A declined or lapsed invitation can be sent again.
    invitation.status, invitation.created_at, invitation.decided_at = "pending", utcnow(), None
    session.add(invitation)
    session.flush()
    return invitation


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
SEAT_TAKERS: list = []


def add_seat_taker(taker) -> None:
    if taker not in SEAT_TAKERS:
        SEAT_TAKERS.append(taker)


def accept_invitation(session: Session, *, actor: User, campaign_id: int) -> Player:
    campaign, invitation = _pending_invitation(session, actor, campaign_id)
    for take in SEAT_TAKERS:
        seat = take(session, campaign=campaign, user=actor)
        if seat is not None:
            invitation.status, invitation.decided_at = "accepted", utcnow()
            session.add(invitation)
            chronicle.record(session, campaign, "player_joined", nickname=actor.nickname)
            return seat
    if campaign.status != "setup":
        raise DomainError("roster_closed")
    if _player_count(session, campaign.id) >= campaign.max_players:
        raise DomainError("campaign_full", max=campaign.max_players)
    invitation.status, invitation.decided_at = "accepted", utcnow()
    player = Player(campaign_id=campaign.id, user_id=actor.id)
    session.add_all([invitation, player])
    session.flush()
    # R1.6 (decision): the starting gold arrives on joining, so the shop works before round 1.
    if campaign.starting_gold:
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
        rules.check_enter_hideouts(_player_count(session, campaign.id), len(_free_flagged_places(session, campaign.id)))
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
    live.publish(session, campaign.id, "phase", actor_user_id=actor.id, step=step, status=campaign.status,
                 phase=campaign.phase, round=campaign.round)
    return campaign


def claim_hideout(session: Session, *, actor: User, campaign_id: int, place_id: int) -> Hideout:
    """R1.5: the unique place of a hideout makes two concurrent claims end with one winner."""
    viewer = viewer_for(session, actor, campaign_id)
    campaign = viewer.campaign
    if viewer.player is None:
        raise DomainError("not_a_player")
    if campaign.status != "hideouts":
        raise DomainError("wrong_status", status=rules.status_name(campaign.status), needed=rules.status_name("hideouts"))
    # Locking the player too stops one player claiming two places at once on PostgreSQL.
    session.exec(select(Player.id).where(Player.id == viewer.player.id).with_for_update()).one()
    place = session.exec(
        select(Place).where(Place.id == place_id, Place.campaign_id == campaign.id).with_for_update()
    ).first()
    if place is None:
        raise DomainError("not_found")
    if not place.hideout_slot:
        raise DomainError("hideout_not_flagged", place=place.name)
    if session.exec(select(Hideout.id).where(Hideout.player_id == viewer.player.id)).first() is not None:
        raise DomainError("hideout_already_chosen")
    if place.owner_player_id is not None:
        raise DomainError("hideout_taken", place=place.name)
    hideout = Hideout(campaign_id=campaign.id, place_id=place.id, player_id=viewer.player.id, round=0)
    place.owner_player_id = viewer.player.id
    session.add_all([hideout, place])
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError:
        raise DomainError("hideout_taken", place=place.name) from None
    chronicle.record(session, campaign, "hideout_claimed", nickname=actor.nickname, place=place.name)
    return hideout


# --- phases (R2.1-R2.3) -----------------------------------------------------------
# The round's flow (phase changes with announcing, the Twilight gate, End round) lives in
# app/rounds/, above the domains it drives; these are the campaign's own two steps of it.


def move_phase(session: Session, *, campaign: Campaign, phase: str) -> str:
    """R2.2: checks the move and changes the phase (the campaign row is locked by the
    caller); returns the phase it left."""
    rules.check_phase_move(campaign.status, campaign.phase, phase)
    previous = campaign.phase
    campaign.phase = phase
    session.add(campaign)
    chronicle.record(session, campaign, "phase_changed", round=campaign.round, from_phase=previous, to_phase=phase)
    return previous


def open_next_round(session: Session, *, campaign: Campaign, move: rules.PhaseMove) -> int:
    """R2.3: the next round opens in Preparation; returns the round that ended."""
    ended = campaign.round
    campaign.round, campaign.phase = move.round, move.phase
    session.add(campaign)
    chronicle.record(session, campaign, "round_ended", round=ended, next=move.round)
    return ended


# --- reading ------------------------------------------------------------------------


@dataclass
class PlayerRow:
    player_id: int
    user_id: int
    nickname: str
    joined_at: object
    gold: int | None = None
    hideouts: list[int] = field(default_factory=list)
    places: list[int] = field(default_factory=list)
    guild_id: int | None = None


def campaign_of(session: Session, *, actor: User, campaign_id: int, invitee_ok: bool = False) -> Viewer:
    """Read use case for every campaign page and call: the campaign as this actor may see it
    (members; a pending invitee where asked), from `visibility` — 404 for anybody else."""
    return viewer_for(session, actor, campaign_id, invitee_ok=invitee_ok)


def gm_campaign(session: Session, *, actor: User, campaign_id: int) -> Viewer:
    """The campaign for a GM-only read (the companies overview, the editors): 403 for players."""
    viewer = viewer_for(session, actor, campaign_id)
    require_gm(viewer)
    return viewer


# The guilds domain tells which guild each player is in (R8.1) without campaigns importing it:
# (session, campaign id) -> {player id: guild id}.
PLAYER_GUILDS: list = []


def add_player_guilds(source) -> None:
    if source not in PLAYER_GUILDS:
        PLAYER_GUILDS.append(source)


def players(session: Session, campaign_id: int, viewer: Viewer | None = None) -> list[PlayerRow]:
    """Three statements whatever the roster size. Gold is there only where `viewer` may see
    it (R11.2: the player themselves and the GM); without a viewer, nobody's."""
    rows = session.exec(
        select(Player, User.nickname).join(User, User.id == Player.user_id).where(Player.campaign_id == campaign_id).order_by(Player.id)
    ).all()
    by_id = {p.id: PlayerRow(p.id, p.user_id, nick, p.joined_at, p.gold if viewer is not None and viewer.may_see_gold_of(p.id) else None)
             for p, nick in rows}
    for pid, place_id in session.exec(
        select(Hideout.player_id, Hideout.place_id).where(Hideout.campaign_id == campaign_id).order_by(Hideout.id)
    ).all():
        if pid in by_id:
            by_id[pid].hideouts.append(place_id)
    for pid, place_id in session.exec(
        select(Place.owner_player_id, Place.id)
        .where(Place.campaign_id == campaign_id, Place.owner_player_id.is_not(None))
        .order_by(Place.id)
    ).all():
        if pid in by_id:
            by_id[pid].places.append(place_id)
    # The GM's figures leave out what only the owner sees (transfers, R8.11) and still add up.
    for pid, hidden in (hidden_gold(session, viewer) if viewer is not None else {}).items():
        if pid in by_id and by_id[pid].gold is not None:
            by_id[pid].gold -= hidden
    for source in PLAYER_GUILDS:
        for pid, guild_id in source(session, campaign_id).items():
            if pid in by_id:
                by_id[pid].guild_id = guild_id
    return list(by_id.values())


def nicknames(session: Session, campaign_id: int) -> dict[int, str]:
    """Player id -> nickname in one statement."""
    return dict(session.exec(select(Player.id, User.nickname).join(User, User.id == Player.user_id)
                             .where(Player.campaign_id == campaign_id)).all())


def invitations_seen_by(session: Session, viewer: Viewer) -> list[tuple[str, str]]:
    """Pending and answered invitations are the GM's to see (the players list shows players)."""
    return invitations(session, viewer.campaign.id) if viewer.is_gm else []


def invitations(session: Session, campaign_id: int) -> list[tuple[str, str]]:
    return list(
        session.exec(
            select(User.nickname, Invitation.status)
            .join(User, User.id == Invitation.user_id)
            .where(Invitation.campaign_id == campaign_id, Invitation.status != "accepted")
            .order_by(Invitation.id)
        ).all()
    )


def gm_nickname(session: Session, campaign: Campaign) -> str:
    return session.exec(select(User.nickname).where(User.id == campaign.gm_user_id)).one()


def my_campaigns(session: Session, *, user: User) -> list[tuple[Campaign, str]]:
    """The user's campaigns with their role: 'gm' or 'player'."""
    as_gm = session.exec(select(Campaign).where(Campaign.gm_user_id == user.id)).all()
    as_player = session.exec(
        select(Campaign).join(Player, Player.campaign_id == Campaign.id).where(Player.user_id == user.id)
    ).all()
    result = [(c, "gm") for c in as_gm] + [(c, "player") for c in as_player]
    return sorted(result, key=lambda cr: (cr[0].status == "finished", -cr[0].id))


def my_invitations(session: Session, *, user: User) -> list[tuple[Campaign, str]]:
    return list(
        session.exec(
            select(Campaign, User.nickname)
            .join(Invitation, Invitation.campaign_id == Campaign.id)
            .join(User, User.id == Campaign.gm_user_id)
            .where(Invitation.user_id == user.id, Invitation.status == "pending")
            .order_by(Invitation.id)
        ).all()
    )


def settings_dict(campaign: Campaign) -> dict:
    return {key: getattr(campaign, key) for key in SETTING_FIELDS if key not in ("name", "story")}

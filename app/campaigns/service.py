"""The campaign's base: the wizard and its settings, the roster as read, and the campaign's own
steps of a phase change. Joining, claiming a hideout and starting are app/campaigns/lifecycle.py,
a layer higher: they pay the starting gold and tell the live stream (tools/layers.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Select, bindparam, func, literal_column, or_, union_all
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.campaigns import house_rules, rules, terms
from app.campaigns.models import Campaign, Invitation, Player
from app.chronicle import service as chronicle
from app.chronicle import texts as chronicle_texts
from app.core.db import read_rows
from app.core.errors import N_, DomainError
from app.guilds.models import GuildMember
from app.maps.models import Hideout, Place
from app.people.models import Away, GameMaster
from app.versions.remembered import remembered
from app.visibility import Viewer, hidden_gold, require_gm, require_writable, viewer_for

chronicle_texts.add_labels(("from_phase", "to_phase"), rules.PHASE_NAMES)

SETTING_FIELDS = (
    "name",
    "story",
    "max_players",
    "starting_gold",
    "round_income",
    "gold_per_point",
    "sale_loss_percent",
    "warband_points",
    "underdog_points_per_die",
    "alliance_fee",
)
FIELD_LABELS = {
    "modules": N_("Modules"),
    "guild": N_("%(Guild)s settings"),  # in the campaign's words (R8.2)
    "alliance_fee": N_("The %(alliance)s fee"),
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


def update_settings(
    session: Session, *, actor: User, campaign_id: int, changes: dict, wizard_step: int | None = None
) -> Campaign:
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
        raise DomainError("settings_locked", field=terms.CampaignMsg(terms.term_of(campaign), FIELD_LABELS[locked[0]]))
    gold_changes = changes.get("starting_gold") is not None and changes["starting_gold"] != campaign.starting_gold
    if gold_changes and player_count(session, campaign.id) > 0:
        raise DomainError("starting_gold_locked")
    if changes.get("max_players") is not None:
        rules.check_max_players(changes["max_players"], roster_size(session, campaign.id))
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


def player_count(session: Session, campaign_id: int) -> int:
    return session.exec(select(func.count()).select_from(Player).where(Player.campaign_id == campaign_id)).one()


def roster_size(session: Session, campaign_id: int) -> int:
    pending = session.exec(
        select(func.count()).select_from(Invitation).where(Invitation.campaign_id == campaign_id, Invitation.status == "pending")
    ).one()
    return player_count(session, campaign_id) + pending


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
    joined_at: object  # None unless asked for (`roster(joined=True)`)
    gold: int | None = None
    hideouts: list[int] = field(default_factory=list)
    places: list[int] = field(default_factory=list)
    guild_id: int | None = None
    away: dict | None = None  # R12.11: {from_round, to_round}, for everyone to see


def campaign_of(session: Session, *, actor: User, campaign_id: int, invitee_ok: bool = False) -> Viewer:
    """Read use case for every campaign page and call: the campaign as this actor may see it
    (members; a pending invitee where asked), from `visibility` — 404 for anybody else."""
    return viewer_for(session, actor, campaign_id, invitee_ok=invitee_ok)


def gm_campaign(session: Session, *, actor: User, campaign_id: int) -> Viewer:
    """The campaign for a GM-only read (the companies overview, the editors): 403 for players."""
    viewer = viewer_for(session, actor, campaign_id)
    require_gm(viewer)
    return viewer


# The roster's parts, built once (every page with the roster asks: issue 37).
_IN_CAMPAIGN = bindparam("campaign_id")


# A player is in one guild at most and away for one span at most (unique per player): both come
# with the roster's own row.
def _roster_of(*more) -> Select:
    return (
        select(
            Player.id,
            Player.user_id,
            User.nickname,
            Player.gold,
            GuildMember.guild_id,
            Away.from_round,
            Away.to_round,
            *more,
        )
        .join(User, col(User.id) == Player.user_id)
        .outerjoin(GuildMember, col(GuildMember.player_id) == Player.id)
        .outerjoin(Away, col(Away.player_id) == Player.id)
        .where(Player.campaign_id == _IN_CAMPAIGN)
        .order_by(Player.id)
    )


# No page shows when a player joined, and a time read costs about a microsecond a row (SQLite
# keeps it as text, parsed on the way out): only the API's list of players reads it (issue 37).
_ROSTER = _roster_of()
_ROSTER_JOINED = _roster_of(Player.joined_at)


# Hideouts, then owned places, each in the order made: one statement (on PostgreSQL each round
# trip is a tenth of a millisecond of CPU more: issue 37).
_HIDEOUT, _OWNED = 0, 1
_HIDEOUTS_AND_OWNED = union_all(
    select(
        literal_column(str(_HIDEOUT)).label("kind"),
        col(Hideout.player_id).label("player_id"),
        Hideout.place_id,
        col(Hideout.id).label("made"),
    ).where(Hideout.campaign_id == _IN_CAMPAIGN),
    select(literal_column(str(_OWNED)), Place.owner_player_id, Place.id, Place.id).where(
        Place.campaign_id == _IN_CAMPAIGN, col(Place.owner_player_id).is_not(None)
    ),
).order_by("kind", "made")


def players(session: Session, campaign_id: int, viewer: Viewer | None = None, *, joined: bool = False) -> list[PlayerRow]:
    """Two statements whatever the roster size (three with a GM viewer: the hidden gold). Gold is there only where `viewer` may
    see it (R11.2: the player themselves and the GM); without a viewer, nobody's. A page that
    lists the places too reads both in two statements: maps.reading.roster_and_places.
    `joined`: with the time each joined (the API's players)."""
    by_id = roster(session, campaign_id, viewer, joined=joined)
    for kind, pid, place_id, _made in read_rows(session, _HIDEOUTS_AND_OWNED, {"campaign_id": campaign_id}).all():
        if pid in by_id:
            (by_id[pid].hideouts if kind == _HIDEOUT else by_id[pid].places).append(place_id)
    return list(by_id.values())


def roster(session: Session, campaign_id: int, viewer: Viewer | None = None, *, joined: bool = False) -> dict[int, PlayerRow]:
    """The players by id in one statement (two with a GM viewer), their hideouts and places not
    yet filled in: `players` and the places' own reading fill them. `joined`: with the time
    each joined."""
    # Columns, not Player rows: a page reads the roster, and forty ORM objects cost more than
    # the statement (issue 37).
    by_id = {
        pid: PlayerRow(
            pid,
            user_id,
            nick,
            joined_at[0] if joined_at else None,
            gold if viewer is not None and viewer.sees_balance_of(pid) else None,
            guild_id=guild_id,  # R8.1
            away=None if from_round is None else {"from_round": from_round, "to_round": to_round},
        )
        for pid, user_id, nick, gold, guild_id, from_round, to_round, *joined_at in read_rows(
            session, _ROSTER_JOINED if joined else _ROSTER, {"campaign_id": campaign_id}
        ).all()
    }
    # The GM's figures leave out what only the owner sees (transfers, R8.11) and still add up.
    for pid, hidden in (hidden_gold(session, viewer) if viewer is not None else {}).items():
        if pid in by_id and by_id[pid].gold is not None:
            by_id[pid].gold -= hidden
    return by_id


# Statements a page runs on every visit are built once, with bind parameters: building one
# anew costs each request about 80 µs of SQLAlchemy's construction and cache key (issue 37).
_AWAY_NOW = select(Away.player_id).where(
    Away.campaign_id == bindparam("campaign_id"), Away.from_round <= bindparam("round"), Away.to_round >= bindparam("round")
)


def away_now(session: Session, campaign: Campaign) -> set[int]:
    """R12.11: the players away this round — their warbands stay home, nothing reminds them,
    nobody waits for their orders."""
    return set(read_rows(session, _AWAY_NOW, {"campaign_id": campaign.id, "round": campaign.round}).scalars())


_NICKNAMES = (
    select(Player.id, User.nickname)
    .join(User, col(User.id) == Player.user_id)
    .where(Player.campaign_id == _IN_CAMPAIGN)
    .order_by(Player.id)
)


def nicknames(session: Session, campaign_id: int) -> dict[int, str]:
    """Player id -> nickname in one statement, in the players' order (what most pages need of
    the roster: `players` reads three; the map colours owners by that order)."""
    return dict(read_rows(session, _NICKNAMES, {"campaign_id": campaign_id}).all())


def nicknames_seen(session: Session, viewer: Viewer) -> dict[int, str]:
    """`nicknames` for a page: the same for every member, remembered while nothing every member
    sees has changed (app/versions/remembered.py); a dict of its own."""
    return dict(remembered(session, viewer, "nicknames", None, lambda: nicknames(session, viewer.campaign_id), public=True))


def invitations_seen_by(session: Session, viewer: Viewer) -> list[tuple[str, str]]:
    """Pending and answered invitations are the GM's to see (the players list shows players)."""
    return invitations(session, viewer.campaign.id) if viewer.is_gm else []


_INVITATIONS = (
    select(User.nickname, Invitation.status)
    .join(User, col(User.id) == Invitation.user_id)
    .where(Invitation.campaign_id == _IN_CAMPAIGN, Invitation.status != "accepted")
    .order_by(Invitation.id)
)


def invitations(session: Session, campaign_id: int) -> list[tuple[str, str]]:
    return [(nickname, status) for nickname, status in read_rows(session, _INVITATIONS, {"campaign_id": campaign_id}).all()]


_NICKNAME = select(User.nickname).where(User.id == bindparam("user_id"))


def gm_nickname(session: Session, campaign: Campaign) -> str:
    return session.exec(_NICKNAME, params={"user_id": campaign.gm_user_id}).one()


# The home page's and GET /me's reads, built once (issue 37: building them cost more than
# running them).
_AS_GM = select(Campaign).where(
    or_(
        Campaign.gm_user_id == bindparam("user_id"),
        col(Campaign.id).in_(select(GameMaster.campaign_id).where(GameMaster.user_id == bindparam("user_id"))),
    )
)
_AS_PLAYER = select(Campaign).join(Player, Player.campaign_id == Campaign.id).where(Player.user_id == bindparam("user_id"))
_INVITED = (
    select(Campaign, User.nickname)
    .join(Invitation, Invitation.campaign_id == Campaign.id)
    .join(User, User.id == Campaign.gm_user_id)
    .where(Invitation.user_id == bindparam("user_id"), Invitation.status == "pending")
    .order_by(Invitation.id)
)


def my_campaigns(session: Session, *, user: User) -> list[tuple[Campaign, str]]:
    """The user's campaigns with their role: 'gm' (their own or as a co-GM, R12.8) or 'player'."""
    mine = {"user_id": user.id}
    as_gm = session.exec(_AS_GM, params=mine).all()
    as_player = session.exec(_AS_PLAYER, params=mine).all()
    result = [(c, "gm") for c in as_gm] + [(c, "player") for c in as_player]
    return sorted(result, key=lambda cr: (cr[0].status == "finished", -cr[0].id))


def my_invitations(session: Session, *, user: User) -> list[tuple[Campaign, str]]:
    return [(campaign, gm) for campaign, gm in session.exec(_INVITED, params={"user_id": user.id}).all()]


def settings_dict(campaign: Campaign) -> dict:
    return {key: getattr(campaign, key) for key in SETTING_FIELDS if key not in ("name", "story")}

"""Reading the round's battles and arrivals: public to the campaign's members (R6.5), with
what each viewer has to do about their results (R6.8)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.battles import rules
from app.battles.models import Arrival, Battle, BattleConfirmation, BattleWarband
from app.campaigns.models import Campaign
from app.core.db import columns_except, read_rows
from app.core.errors import DomainError
from app.core.pagination import Listing, Page, paginate
from app.versions.remembered import remembered
from app.visibility import Viewer, viewer_for
from app.warbands import service as warbands
from app.warbands.models import Warband

# Participants report, confirm and dispute in Battles; the GM resolves or corrects in Battles
# and Settlement; from Twilight on results are closed (R6.8, R7.2).
PLAYER_RESULT_PHASES = ("battles",)
# A battle's result is final once confirmed by the other sides or resolved by the GM.
DECIDED_RESULTS = ("confirmed", "resolved")
GM_RESULT_PHASES = ("battles", "settlement")
# A to-do list's reads, built once (rosters=False): a round's battles as rows, the player's
# own or all, and who fights on which side, not with what.
# Its battles without the times they were made and decided, which no list shows and SQLite
# keeps as text, parsed row by row on the way out; its warbands and its confirmations by the
# round, not by a list of the battles' ids, which SQLAlchemy writes into each statement anew
# (issue 37: the two cost a GM's dashboard about 90 µs of its 350 reading the round).
_UNLISTED = ("created_at", "decided_at")
_IN_ROUND_OF = (Battle.campaign_id == bindparam("campaign_id"), Battle.round == bindparam("round"))
_FIGHTS = Battle.id.in_(select(BattleWarband.battle_id).where(BattleWarband.player_id == bindparam("player_id")))
_ROUND_BATTLES = select(*columns_except(Battle, *_UNLISTED)).where(*_IN_ROUND_OF)
_ROUND_IDS = {False: select(Battle.id).where(*_IN_ROUND_OF), True: select(Battle.id).where(*_IN_ROUND_OF, _FIGHTS)}
_LISTED_BATTLES = {False: _ROUND_BATTLES.order_by(Battle.id), True: _ROUND_BATTLES.where(_FIGHTS).order_by(Battle.id)}
_LISTED_WARBANDS = {
    own: select(*columns_except(BattleWarband, "roster"))
    .where(BattleWarband.battle_id.in_(_ROUND_IDS[own]))
    .order_by(BattleWarband.side, BattleWarband.id)
    for own in (False, True)
}
_CONFIRMATIONS = select(BattleConfirmation.battle_id, BattleConfirmation.player_id).where(
    BattleConfirmation.battle_id.in_(bindparam("ids", expanding=True))
)
_ROUND_CONFIRMATIONS = {
    own: select(BattleConfirmation.battle_id, BattleConfirmation.player_id).where(
        BattleConfirmation.battle_id.in_(_ROUND_IDS[own])
    )
    for own in (False, True)
}
# The same reads as ORM objects, with the rosters (rosters=True), also built once (issue 37: a
# statement built anew costs about 80 µs a request): by round or by id, all or the player's own.
_IN_ROUND = Battle.round == bindparam("round")
_WITH_ID = Battle.id.in_(bindparam("battle_ids", expanding=True))
_BATTLES = {
    (by_id, own): select(Battle)
    .where(Battle.campaign_id == bindparam("campaign_id"), *([_FIGHTS] if own else []), _WITH_ID if by_id else _IN_ROUND)
    .order_by(Battle.id)
    for by_id in (False, True)
    for own in (False, True)
}
_ROSTERS = (
    select(BattleWarband)
    .where(BattleWarband.battle_id.in_(bindparam("ids", expanding=True)))
    .order_by(BattleWarband.side, BattleWarband.id)
)


@dataclass(frozen=True)
class SideFigures:
    """V10: a side's total points and its Underdog (bonus-model points, dice)."""

    points: int
    underdog_dice: int
    bonus_points: int


@dataclass
class BattleView:
    battle: Battle
    warbands: list[BattleWarband]
    confirmations: set[int] = field(default_factory=set)

    @property
    def participants(self) -> list[int]:
        return sorted({w.player_id for w in self.warbands})

    def sides(self) -> list[list[BattleWarband]]:
        grouped: dict[int, list[BattleWarband]] = defaultdict(list)
        for w in self.warbands:
            grouped[w.side].append(w)
        return [grouped[k] for k in sorted(grouped)]

    @staticmethod
    def side_figures(side: list[BattleWarband]) -> SideFigures:
        """Fixed when announced: each warband of a side carries the side's Underdog."""
        return SideFigures(sum(w.points for w in side), side[0].underdog_dice, side[0].bonus_points)

    @property
    def side_of(self) -> dict[int, int]:
        return {w.player_id: w.side for w in self.warbands}

    def asked_to_confirm(self) -> set[int]:
        """R6.8: who may confirm the entered result now (none unless one is entered)."""
        if self.battle.status != "reported":
            return set()
        return rules.asked_to_confirm(self.side_of, self.battle.reported_by_player_id, self.confirmations)


def battles_of(
    session: Session,
    campaign: Campaign,
    round_: int | None = None,
    battle_ids: list[int] | None = None,
    player_id: int | None = None,
    rosters: bool = True,
) -> list[BattleView]:
    """Battles of a round with their warbands and confirmations (three statements); with
    `player_id`, only the battles that player fights; `rosters=False` leaves the warbands'
    rosters unread (a to-do list needs who fights, not with what; reading one then raises)
    and reads plain rows with the same attributes: nothing changes them, and a round's ORM
    objects cost a GM's dashboard about half a millisecond (issue 37). Its confirmations are
    those of the battles whose result waits for them (`reported`), all that `asked_to_confirm`
    reads: a round with none of those is read in two statements."""
    round_ = campaign.round if round_ is None else round_
    if not rosters and battle_ids is None:
        return _listed_of(session, {"campaign_id": campaign.id, "round": round_, "player_id": player_id})
    query = _BATTLES[(battle_ids is not None, player_id is not None)]
    params = {"campaign_id": campaign.id, "round": round_, "battle_ids": battle_ids or [], "player_id": player_id}
    battles = list(session.exec(query, params=params).all())
    ids = [b.id for b in battles]
    warbands: dict[int, list[BattleWarband]] = defaultdict(list)
    confirmations: dict[int, set[int]] = defaultdict(set)
    if ids:
        for w in session.exec(_ROSTERS, params={"ids": ids}).all():
            warbands[w.battle_id].append(w)
        for battle_id, confirmed_by in read_rows(session, _CONFIRMATIONS, {"ids": ids}).all():
            confirmations[battle_id].add(confirmed_by)
    return [BattleView(b, warbands[b.id], confirmations[b.id]) for b in battles]


def _listed_of(session: Session, params: dict) -> list[BattleView]:
    """`battles_of(rosters=False)`: rows, the warbands and confirmations read by the round."""
    own = params["player_id"] is not None
    battles = list(read_rows(session, _LISTED_BATTLES[own], params).all())
    warbands: dict[int, list[BattleWarband]] = defaultdict(list)
    confirmations: dict[int, set[int]] = defaultdict(set)
    if battles:
        for w in read_rows(session, _LISTED_WARBANDS[own], params).all():
            warbands[w.battle_id].append(w)
        reported = {b.id for b in battles if b.status == "reported"}  # none other asks to confirm
        if reported:
            for battle_id, confirmed_by in read_rows(session, _ROUND_CONFIRMATIONS[own], params).all():
                if battle_id in reported:
                    confirmations[battle_id].add(confirmed_by)
    return [BattleView(b, warbands[b.id], confirmations[b.id]) for b in battles]


def listed(session: Session, viewer: Viewer, round_: int | None = None, player_id: int | None = None) -> list[BattleView]:
    """`battles_of(rosters=False)` for a page or a to-do list, remembered while nothing every
    member sees has changed (app/versions/remembered.py); a list of its own, of shared views. An
    earlier round, asked for by name, is read each time: remembered, any member could fill the
    memory with every round of every campaign."""
    return list(
        remembered(
            session,
            viewer,
            "battles_listed",
            player_id,
            lambda: battles_of(session, viewer.campaign, round_, player_id=player_id, rosters=False),
            public=True,  # R6.5: battles are public to the campaign's members
            keep=round_ is None,
        )
    )


# Built once (issue 37: building the list and its count cost an API call more than running them).
_ROUND_BATTLE_IDS = Listing(_ROUND_IDS[False].order_by(Battle.id))


def battle_page(session: Session, campaign: Campaign, round_: int | None, *, page: int, per_page: int) -> Page:
    """One page of a round's battles, sliced in the database (public to members, R6.5)."""
    shown = {"campaign_id": campaign.id, "round": campaign.round if round_ is None else round_}
    ids = paginate(session, _ROUND_BATTLE_IDS, page=page, per_page=per_page, params=shown)
    ids.items = battles_of(session, campaign, battle_ids=list(ids.items)) if ids.items else []
    return ids


def battle(session: Session, *, actor: User, campaign_id: int, battle_id: int) -> tuple[Viewer, BattleView]:
    """Battles and their rosters are public to the campaign's members (R6.5)."""
    viewer = viewer_for(session, actor, campaign_id)
    found = battles_of(session, viewer.campaign, battle_ids=[battle_id])
    if not found:
        raise DomainError("not_found")
    return viewer, found[0]


# Built once: the battles page reads them on every visit (issue 37: about 80 µs a visit).
_ARRIVALS = (
    select(Arrival)
    .where(Arrival.campaign_id == bindparam("campaign_id"), Arrival.round == bindparam("round"))
    .order_by(Arrival.place_id, Arrival.id)
)
_ARRIVALS_AT = _ARRIVALS.where(Arrival.place_id == bindparam("place_id"))


def arrivals_of(session: Session, campaign: Campaign, round_: int | None = None, place_id: int | None = None) -> list[Arrival]:
    """Warbands that did not fight where they went this round: unopposed or left out (R6.2,
    R6.4). Public like the battles (orders are public from Battles on)."""
    params = {"campaign_id": campaign.id, "round": campaign.round if round_ is None else round_}
    if place_id is None:
        return list(session.exec(_ARRIVALS, params=params).all())
    return list(session.exec(_ARRIVALS_AT, params={**params, "place_id": place_id}).all())


# The columns the battles list shows of an arrival, as rows (public like the battles), with its
# warband's name (one statement, not a second one of the arrivals' warband ids).
_LISTED_ARRIVALS = (
    select(Arrival.place_id, Arrival.warband_id, Arrival.player_id, Arrival.kind, col(Warband.name).label("warband_name"))
    .outerjoin(Warband, col(Warband.id) == Arrival.warband_id)
    .where(Arrival.campaign_id == bindparam("campaign_id"), Arrival.round == bindparam("round"))
    .order_by(Arrival.place_id, Arrival.id)
)


def listed_arrivals(session: Session, viewer: Viewer, round_: int | None = None) -> tuple[list, dict[int, str]]:
    """The round's arrivals as the battles list shows them, and their warbands' names: of the
    round under way, remembered while nothing every member sees has changed
    (app/versions/remembered.py); an earlier round is read each time, as `listed`'s."""

    def read() -> tuple[list, dict[int, str]]:
        shown = viewer.campaign.round if round_ is None else round_
        rows = list(read_rows(session, _LISTED_ARRIVALS, {"campaign_id": viewer.campaign_id, "round": shown}).all())
        return rows, warbands.names_read_with(rows)

    rows, names = remembered(session, viewer, "arrivals_listed", None, read, public=True, keep=round_ is None)
    return list(rows), dict(names)


def warband_names(session: Session, arrivals: list[Arrival]) -> dict[int, str]:
    """Names of the arrivals' warbands, in one statement."""
    return warbands.names_by_id(session, [a.warband_id for a in arrivals])


def waiting_for(
    views: list[BattleView], player_id: int | None, is_gm: bool, phase: str | None = "battles"
) -> list[tuple[str, BattleView]]:
    """What a viewer should do about the round's battles: report, confirm (a player of a side
    the entered result waits for, never the reporter's side, R6.8), or resolve — each only
    while its phase allows it."""
    todo = []
    for v in views:
        status = v.battle.status
        if is_gm and status == "disputed" and phase in GM_RESULT_PHASES:
            todo.append(("resolve", v))
        elif player_id in v.participants and phase in PLAYER_RESULT_PHASES:
            if status == "announced":
                todo.append(("report", v))
            elif player_id in v.asked_to_confirm():
                todo.append(("confirm", v))
    return todo

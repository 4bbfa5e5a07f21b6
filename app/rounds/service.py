"""The round's flow (R2.1-R2.3, R7.2-R7.6): phase changes with the battles' announcement, the
Twilight gate (gate.py), Twilight's outcomes and the GM's choices, and End round. This layer
sits above the domains it drives; what each step asks of guilds, alliances, movement and the
season, and in which order, is written in rounds/steps.py."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.audit import service as audit
from app.battles import service as battles
from app.battles.models import Arrival
from app.campaigns import rules as campaign_rules
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign, Player
from app.campaigns.rules import PUBLIC_ORDER_PHASES
from app.catalog.catalog import Catalog
from app.chronicle import service as chronicle
from app.core.db import read_rows
from app.core.errors import DomainError
from app.events import service as events
from app.gold import service as gold
from app.live import service as live
from app.maps import service as maps
from app.maps.models import Hideout, Place
from app.rounds import rules, steps
from app.rounds.gate import check_twilight_gate
from app.rounds.gate import missing_for_twilight as missing_for_twilight  # the season's reminders ask
from app.rounds.gate import results_in as results_in
from app.rounds.models import TwilightChoice
from app.settlement import service as settlement
from app.visibility import Viewer, gm_viewer, kept, viewer_for, visible_ransoms

# --- phases -----------------------------------------------------------------------------------


def set_phase(session: Session, *, actor: User, campaign_id: int, phase: str, catalog: Catalog) -> Campaign:
    """R2.1, R2.2: the GM moves the round on. Battles announces the battles (R6) in the
    same transaction; Twilight opens only when R7.2 allows it."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    if not viewer.is_gm:
        raise DomainError("gm_only")
    campaign = viewer.campaign
    campaign_rules.check_phase_move(campaign.status, campaign.phase, phase)
    if phase == "twilight":
        check_twilight_gate(session, campaign)
    previous = campaigns.move_phase(session, campaign=campaign, phase=phase)
    audit.record(
        session, campaign, actor, "phase_changed", f"round:{campaign.round}", before={"phase": previous}, after={"phase": phase}
    )
    live.publish(session, campaign.id, "phase", actor_user_id=actor.id, step="phase", phase=phase, round=campaign.round)
    if phase == "battles":
        steps.before_battles(session, campaign)
        battles.announce(session, campaign=campaign, catalog=catalog, groups=steps.battle_groups(session, campaign))
        live.publish(session, campaign.id, "battles", actor_user_id=actor.id, round=campaign.round)
    steps.phase_moved(session, campaign, previous)
    if phase == "twilight":
        # R7.3, R7.5: the GM hears how many places wait for a choice.
        count = len([r for r in twilight_rows(session, campaign) if r.missing_choice])
        live.publish(session, campaign.id, "twilight", count=count)
    return campaign


# --- Twilight (R7.3-R7.5, R8.10) --------------------------------------------------------------


@dataclass
class TwilightRow:
    """One place where warbands arrived this round, with its outcome."""

    place_id: int
    outcome: rules.Outcome
    choice: int | None = None
    battles: list[battles.BattleView] = field(default_factory=list)
    unopposed: list[Arrival] = field(default_factory=list)
    left_out: list[Arrival] = field(default_factory=list)

    @property
    def missing_choice(self) -> bool:
        return self.outcome.needs_gm_choice and self.choice is None

    @property
    def new_owner(self) -> int | None:
        return self.outcome.new_owner(self.choice)

    @property
    def changes_hands(self) -> bool:
        return self.new_owner is not None and self.new_owner != self.outcome.owner


# Built once: the Twilight page reads them on every visit (issue 37: about 80 µs a statement).
_OWNERS = select(Place.id, Place.owner_player_id).where(col(Place.id).in_(bindparam("ids", expanding=True)))
_CHOICES = select(TwilightChoice.place_id, TwilightChoice.player_id).where(
    TwilightChoice.campaign_id == bindparam("campaign_id"), TwilightChoice.round == bindparam("round")
)


def twilight_rows(session: Session, campaign: Campaign, views: list[battles.BattleView] | None = None) -> list[TwilightRow]:
    """Outcomes of every place where warbands arrived this round, counting every battle
    at the place across its events (a bounded number of statements)."""
    views = battles.battles_of(session, campaign) if views is None else views
    arrivals = battles.arrivals_of(session, campaign)
    place_ids = sorted({v.battle.place_id for v in views} | {a.place_id for a in arrivals})
    if not place_ids:
        return []
    owners = dict(read_rows(session, _OWNERS, {"ids": place_ids}).all())
    choices = dict(read_rows(session, _CHOICES, {"campaign_id": campaign.id, "round": campaign.round}).all())
    allies = steps.battle_groups(session, campaign)
    by_place: dict[int, TwilightRow] = {}
    for place_id in place_ids:
        here = [v for v in views if v.battle.place_id == place_id]
        came = [a for a in arrivals if a.place_id == place_id]
        data = rules.PlaceRound(
            place_id,
            owners.get(place_id),
            battles=[
                rules.Fought(v.battle.event_id, tuple(v.participants), tuple(v.battle.winners))
                for v in here
                if v.battle.status in settlement.DECIDED
            ],
            unopposed=[rules.Came(a.player_id, a.event_id) for a in came if a.kind == "unopposed"],
            left_out=[rules.Came(a.player_id, a.event_id) for a in came if a.kind == "left_out"],
        )
        # Undecided battles (before the gate) count as fought, without winners yet.
        data.battles += [
            rules.Fought(v.battle.event_id, tuple(v.participants), ()) for v in here if v.battle.status not in settlement.DECIDED
        ]
        outcome = rules.outcome(data, allies)
        choice = choices.get(place_id)
        by_place[place_id] = TwilightRow(
            place_id,
            outcome,
            choice if outcome.needs_gm_choice else None,
            here,
            [a for a in came if a.kind == "unopposed"],
            [a for a in came if a.kind == "left_out"],
        )
    return [by_place[p] for p in place_ids]


@dataclass
class TwilightView:
    viewer: Viewer
    rows: list[TwilightRow]
    missing: list[rules.Missing]

    @property
    def final(self) -> bool:
        c = self.viewer.campaign
        return c.status == "running" and c.phase == "twilight"

    @property
    def choices_missing(self) -> list[TwilightRow]:
        return [r for r in self.rows if r.missing_choice]


def twilight(session: Session, *, actor: User, campaign_id: int) -> TwilightView:
    """Battles, results and arrivals are public from Battles on, so every member sees the
    round's outcomes; before Battles there is nothing to show."""
    return twilight_for(session, viewer_for(session, actor, campaign_id))


def twilight_for(session: Session, viewer: Viewer) -> TwilightView:
    """`twilight` for a viewer already seated: a page's, read with its login (issue 37)."""
    campaign = viewer.campaign
    if campaign.status not in ("running", "finished") or campaign.phase not in PUBLIC_ORDER_PHASES:
        return TwilightView(viewer, [], [])
    views = battles.battles_of(session, campaign)
    missing = missing_for_twilight(session, campaign, views) if campaign.phase != "twilight" else []
    return TwilightView(viewer, twilight_rows(session, campaign, views), missing)


def choose(session: Session, *, actor: User, campaign_id: int, place_id: int, player_id: int) -> TwilightChoice:
    """R7.3, R7.5: where the rules leave it open, the GM chooses who takes the place."""
    viewer = gm_viewer(session, actor, campaign_id)
    campaign = viewer.campaign
    if campaign.status != "running" or campaign.phase != "twilight":
        raise DomainError("twilight_phase")
    row = next((r for r in twilight_rows(session, campaign) if r.place_id == place_id), None)
    place = session.get(Place, place_id)
    if row is None or place is None or place.campaign_id != campaign.id:
        raise DomainError("not_found")
    if not row.outcome.needs_gm_choice:
        raise DomainError("twilight_no_choice", place=place.name)
    if player_id not in row.outcome.candidates:
        raise DomainError("twilight_candidate", place=place.name)
    found = session.exec(
        select(TwilightChoice).where(
            TwilightChoice.campaign_id == campaign.id, TwilightChoice.round == campaign.round, TwilightChoice.place_id == place_id
        )
    ).first()
    if found is None:
        found = TwilightChoice(campaign_id=campaign.id, round=campaign.round, place_id=place_id, player_id=player_id)
    found.player_id = player_id
    session.add(found)
    session.flush()
    return found


# --- End round (R2.3, R7.6) ---------------------------------------------------------------------


@dataclass
class Capture:
    place_id: int
    place: str
    player_id: int
    previous: int | None


@dataclass
class RoundEnd:
    campaign: Campaign
    ended: int
    captures: list[Capture]
    payments: list[rules.Payment]


def _capture(session: Session, campaign: Campaign, place: Place, player_id: int, hideouts: dict[int, Hideout]) -> None:
    """The taker owns the place and sets up a hideout there — also over another player's
    hideout, which that player loses (R7.3, R7.4)."""
    place.owner_player_id = player_id
    session.add(place)
    hideout = hideouts.get(place.id)
    if hideout is None:
        session.add(Hideout(campaign_id=campaign.id, place_id=place.id, player_id=player_id, round=campaign.round))
    elif hideout.player_id != player_id:
        hideout.player_id, hideout.round = player_id, campaign.round
        session.add(hideout)


def end_round(session: Session, *, actor: User, campaign_id: int, round_: int) -> RoundEnd:
    """R2.3, R7.6 in one transaction: captures, income (a place taken this round pays its
    new owner now), later issues' steps (guild income, alliances lapsing), expired events,
    unpaid ransoms lapsing, resting models ready again, and the next round in Preparation.
    The campaign row is locked and the request names the round it ends, so a repeated or
    concurrent request changes nothing."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    if not viewer.is_gm:
        raise DomainError("gm_only")
    campaign = viewer.campaign
    move = campaign_rules.check_end_round(campaign.status, campaign.phase, campaign.round, round_)
    rows = twilight_rows(session, campaign)
    _require_choices(session, campaign, rows)
    steps.end_round_begins(session, campaign)
    captures, places = _captures(session, campaign, rows)
    player_ids = list(session.exec(select(Player.id).where(Player.campaign_id == campaign.id).order_by(Player.id)).all())
    payments = rules.income(player_ids, campaign.round_income, [(p.id, p.owner_player_id, p.income) for p in places.values()])
    for pay in payments:
        note = places[pay.place_id].name if pay.place_id else ""
        gold.credit(session, campaign=campaign, player_id=pay.player_id, amount=pay.amount, kind=pay.kind, note=note)
    steps.end_round(session, campaign)
    events.expire_events(session, campaign=campaign, next_round=move.round)
    settlement.lapse_ransoms(session, campaign=campaign)
    settlement.rest_over(session, campaign=campaign, ended_round=campaign.round)
    # Orders belong to their round: with the next round they no longer hold any warband.
    ended = campaigns.open_next_round(session, campaign=campaign, move=move)
    audit.record(
        session, campaign, actor, "round_ended", f"round:{ended}", after={"captures": len(captures), "next_round": campaign.round}
    )
    live.publish(
        session,
        campaign.id,
        "phase",
        actor_user_id=actor.id,
        step="round_ended",
        phase=campaign.phase,
        round=campaign.round,
        ended=ended,
    )
    return RoundEnd(campaign, ended, captures, payments)


def _require_choices(session: Session, campaign: Campaign, rows: list[TwilightRow]) -> None:
    """R7.3: the round does not end while a place's taker waits for the GM's choice."""
    undecided = [r for r in rows if r.missing_choice]
    if undecided:
        labels = maps.labels(session, campaign.id)
        raise DomainError(
            "twilight_choice_missing",
            places=", ".join(labels.get(r.place_id, "") for r in undecided),
            details=[
                {"code": "twilight_choice_missing", "place_id": r.place_id, "candidates": list(r.outcome.candidates)}
                for r in undecided
            ],
        )


def _captures(session: Session, campaign: Campaign, rows: list[TwilightRow]) -> tuple[list[Capture], dict[int, Place]]:
    """R7.3, R7.4: the places that change hands, told in the chronicle; answers them with the
    campaign's places, locked, which the income reads next (a place taken pays its new owner)."""
    names = campaigns.nicknames(session, campaign.id)
    places = {p.id: p for p in session.exec(select(Place).where(Place.campaign_id == campaign.id).with_for_update()).all()}
    hideouts = {h.place_id: h for h in session.exec(select(Hideout).where(Hideout.campaign_id == campaign.id)).all()}
    captures = []
    for row in rows:
        if row.changes_hands:
            place = places[row.place_id]
            captures.append(Capture(place.id, place.name, row.new_owner, place.owner_player_id))
            _capture(session, campaign, place, row.new_owner, hideouts)
    for c in captures:
        if c.previous is None:
            chronicle.record(session, campaign, "place_taken", player=names.get(c.player_id, "?"), place=c.place)
        else:
            chronicle.record(
                session,
                campaign,
                "place_taken_from",
                player=names.get(c.player_id, "?"),
                place=c.place,
                previous=names.get(c.previous, "?"),
            )
    if not captures:
        chronicle.record(session, campaign, "round_no_captures", round=campaign.round)
    session.flush()
    return captures, places


# --- what each viewer should do about the round (the dashboard) --------------------------------


@dataclass
class RoundTodo:
    battles: list[tuple[str, battles.BattleView]] = field(default_factory=list)
    settle: list[settlement.Pending] = field(default_factory=list)  # the viewer's own, or everybody's for the GM
    ransoms: list = field(default_factory=list)
    choices: int = 0
    missing: list[rules.Missing] = field(default_factory=list)
    # The battles read for it (the GM: every battle of the round, without rosters), which the
    # dashboard's "What to do now" reads again otherwise (issue 37).
    views: list[battles.BattleView] = field(default_factory=list)


def page_todo(session: Session, viewer: Viewer) -> RoundTodo:
    """`todo` for drawing a page: worked out once per request (kept on the viewer), as the
    dashboard's panel and its "What to do now" both ask."""
    return kept(viewer, "_todo", lambda: todo(session, viewer))


def todo(session: Session, viewer: Viewer) -> RoundTodo:
    campaign = viewer.campaign
    result = RoundTodo()
    if campaign.status != "running" or campaign.phase not in PUBLIC_ORDER_PHASES:
        return result
    me = viewer.player.id if viewer.player else None
    # A player's to-do list needs only the battles they fight (issue 17: not every battle of a
    # big round with its rosters); the GM's needs all (disputes, everybody's settlements).
    views = battles.listed(session, viewer, player_id=None if viewer.is_gm else (me if me is not None else -1))
    result.views = views
    result.battles = battles.waiting_for(views, me, viewer.is_gm, campaign.phase)
    if campaign.phase == "settlement":
        result.settle = settlement.pending(session, campaign, views, None if viewer.is_gm else (me if me is not None else -1))
    if campaign.phase in ("settlement", "twilight") and (viewer.player is not None or viewer.is_gm):
        result.ransoms = [
            r for r in visible_ransoms(session, viewer) if r.round == campaign.round and r.status in ("awaiting", "offered")
        ]
    if campaign.phase == "twilight" and viewer.is_gm:
        result.choices = len([r for r in twilight_rows(session, campaign, views) if r.missing_choice])
    return result

"""The battle clock's use cases (issue 18): settings, reading a battle's clock, and running it.
Battles (and so their clocks) are public to the campaign's members from Battles on (R6.5);
only the battle's participants run its clock, and the GM may also put it right."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.battles import service as battles
from app.battles.models import Battle
from app.campaigns.models import Campaign
from app.chronicle import service as chronicle
from app.chronicle.texts import add_labels
from app.clock import rules
from app.clock.models import BattleClock
from app.core.db import utcnow
from app.core.errors import N_, DomainError
from app.events.models import Event
from app.live.service import publish
from app.maps import service as maps
from app.visibility import Viewer, require_gm, require_writable, viewer_for

END_NAMES = {
    "turns": N_("the last turn was played"),
    "time": N_("every side ran out of time"),
    "manual": N_("ended at the table"),
}
add_labels(("clock_end",), END_NAMES)


def now_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


def _ms(moment: datetime | None) -> int | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _moment(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)


# --- settings ----------------------------------------------------------------------------------


def campaign_settings(campaign: Campaign) -> rules.Settings:
    return rules.settings_of(campaign.clock)


def battle_settings(campaign: Campaign, event: Event | None) -> rules.Settings:
    """The event's override, else the campaign's defaults."""
    base = campaign_settings(campaign)
    return rules.settings_of(event.clock, base) if event is not None and event.clock is not None else base


def set_campaign_settings(session: Session, *, actor: User, campaign_id: int, settings: rules.Settings) -> Campaign:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    viewer.campaign.clock = settings.as_dict()
    session.add(viewer.campaign)
    return viewer.campaign


def set_event_settings(
    session: Session, *, actor: User, campaign_id: int, event_id: int, settings: rules.Settings | None
) -> Event:
    """`settings=None`: the event's battles use the campaign's clock again."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    event = session.get(Event, event_id)
    if event is None or event.campaign_id != campaign_id:
        raise DomainError("not_found")
    event.clock = settings.as_dict() if settings is not None else None
    session.add(event)
    return event


# Built once: the rules page shows them to the GM on every visit (issue 37).
_OPEN_EVENTS = (
    select(Event).where(Event.campaign_id == bindparam("campaign_id"), col(Event.ended_round).is_(None)).order_by(col(Event.id))
)


def events_with_settings(session: Session, campaign: Campaign) -> list[Event]:
    """The events of this round and later (the ones whose battles are still to come)."""
    return list(session.exec(_OPEN_EVENTS, params={"campaign_id": campaign.id}).all())


# --- reading -----------------------------------------------------------------------------------


@dataclass
class SideClock:
    side: int
    player_ids: list[int]
    names: list[str]  # its warbands
    remaining_ms: int | None
    out_of_time: bool
    out_turn: int | None


@dataclass
class ClockView:
    battle_id: int
    settings: rules.Settings
    status: str  # ready (not started), running, paused, ended
    turn: int
    running_side: int | None
    sides: list[SideClock]
    extra_roll: int | None = None
    ended_reason: str | None = None
    version: int = 0
    may_run: bool = False
    may_correct: bool = False
    order: list[int] = field(default_factory=list)

    @property
    def running(self) -> SideClock | None:
        return next((s for s in self.sides if s.side == self.running_side), None)

    def as_dict(self) -> dict:
        """The API's shape (API.md `clock`), with what a client needs to draw it."""
        return {
            "battle_id": self.battle_id,
            "status": self.status,
            "turn": self.turn,
            "max_turns": self.settings.max_turns,
            "extra_turn_on": self.settings.extra_turn_on,
            "extra_roll": self.extra_roll,
            "minutes_per_side": self.settings.minutes_per_side,
            "running_side": self.running_side,
            "order": self.order,
            "ended_reason": self.ended_reason,
            "version": self.version,
            "sides": [
                {
                    "side": s.side,
                    "player_ids": s.player_ids,
                    "warbands": s.names,
                    "remaining_ms": s.remaining_ms,
                    "out_of_time": s.out_of_time,
                    "out_turn": s.out_turn,
                }
                for s in self.sides
            ],
        }


def _state(row: BattleClock) -> rules.State:
    return rules.State(
        order=tuple(row.order),
        limit_ms=row.minutes_per_side * 60_000 if row.minutes_per_side else None,
        max_turns=row.max_turns,
        extra_turn_on=row.extra_turn_on,
        status=row.status,
        turn=row.turn,
        running=row.running_side,
        since=_ms(row.running_since),
        used={int(k): v for k, v in row.used_ms.items()},
        out={int(k): v for k, v in row.out_turn.items()},
        extra_roll=row.extra_roll,
        ended=row.ended_reason,
    )


def _store(row: BattleClock, state: rules.State) -> None:
    row.order = list(state.order)
    row.status, row.turn, row.running_side = state.status, state.turn, state.running
    row.running_since = _moment(state.since)
    row.used_ms = {str(k): v for k, v in state.used.items()}
    row.out_turn = {str(k): v for k, v in state.out.items()}
    row.extra_roll, row.ended_reason = state.extra_roll, state.ended
    row.version += 1
    row.updated_at = utcnow()


def _open(viewer: Viewer, view: battles.BattleView) -> bool:
    campaign = viewer.campaign
    return (
        campaign.status == "running"
        and campaign.phase == "battles"
        and view.battle.status == "announced"
        and view.battle.round == campaign.round
    )


# A battle's clock, built once (issue 37: the clock's page and API read it on every tick).
_CLOCK_OF = select(BattleClock).where(BattleClock.battle_id == bindparam("battle_id"))


def _may_run(viewer: Viewer, view: battles.BattleView) -> bool:
    return viewer.is_gm or (viewer.player is not None and viewer.player.id in view.participants)


def _event(session: Session, battle: Battle) -> Event | None:
    return session.get(Event, battle.event_id) if battle.event_id else None


def clock_view(
    session: Session,
    viewer: Viewer,
    view: battles.BattleView,
    now: int,
    row: BattleClock | None = None,
    settings: rules.Settings | None = None,
) -> ClockView:
    if row is None:
        row = session.exec(_CLOCK_OF, params={"battle_id": view.battle.id}).first()
    sides = view.sides()
    numbers = [side[0].side for side in sides]
    if row is None:
        settings = settings or battle_settings(viewer.campaign, _event(session, view.battle))
        state = rules.State(
            order=tuple(numbers),
            limit_ms=settings.minutes_per_side * 60_000 if settings.minutes_per_side else None,
            max_turns=settings.max_turns,
            extra_turn_on=settings.extra_turn_on,
            status="ready",
        )
        version = 0
    else:
        settings = rules.Settings(row.minutes_per_side, row.max_turns, row.extra_turn_on)
        state, version = _state(row), row.version
    open_ = _open(viewer, view)
    if row is not None and state.status == "running" and not open_:
        # Nobody can run it any more (the result is in, or Battles is over): it stands as it
        # stood at its last tap instead of ticking on.
        state = dataclasses.replace(state, status="paused", since=None)
    return ClockView(
        battle_id=view.battle.id,
        settings=settings,
        status=state.status,
        turn=state.turn,
        running_side=state.running,
        order=list(state.order) or numbers,
        sides=[
            SideClock(
                side=side[0].side,
                player_ids=sorted({w.player_id for w in side}),
                names=[w.name for w in side],
                remaining_ms=rules.remaining(state, side[0].side, now),
                out_of_time=rules.out_of_time(state, side[0].side, now),
                out_turn=state.out.get(side[0].side),
            )
            for side in sides
        ],
        extra_roll=state.extra_roll,
        ended_reason=state.ended,
        version=version,
        may_run=open_ and _may_run(viewer, view) and state.status != "ended",
        may_correct=open_ and viewer.is_gm and state.status in ("running", "paused"),
    )


def battle_clock(session: Session, *, actor: User, campaign_id: int, battle_id: int, now: int | None = None) -> ClockView:
    viewer, view = battles.battle(session, actor=actor, campaign_id=campaign_id, battle_id=battle_id)
    return clock_view(session, viewer, view, now_ms() if now is None else now)


# --- running it --------------------------------------------------------------------------------


@dataclass
class Tap:
    action: str
    side: int | None = None
    roll: int | None = None
    remaining_ms: int | None = None
    turn: int | None = None
    version: int | None = None
    at: int | None = None  # when a tap sent later was made (R12.1)


# A tap sent later counts from when it was made, within this long before it arrives.
LATE_TAP_MS = 24 * 60 * 60 * 1000


def _when(tap: Tap, row: BattleClock | None, now: int) -> int:
    """R12.1: the moment a tap acts at — now, or when an offline tap was made: not after now,
    nor before the running side's run began (the clock's time never runs backwards)."""
    if tap.at is None:
        return now
    since = _ms(row.running_since) if row else None
    return max(min(tap.at, now), since if since is not None else now - LATE_TAP_MS, now - LATE_TAP_MS)


def _seeded_roll(battle: Battle, state: rules.State):
    """The extra turn's die when nobody entered one: seeded by the battle, so it is the same
    die whoever's phone asks, and stored with the clock."""
    return lambda: random.Random(f"clock:{battle.seed}:{battle.id}:{state.max_turns}").randint(1, 6)


def act(session: Session, *, actor: User, campaign_id: int, battle_id: int, tap: Tap, now: int | None = None) -> ClockView:
    now = now_ms() if now is None else now
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    # The battle row's lock makes taps on one clock take turns (two phones, one tap each).
    session.exec(select(Battle.id).where(Battle.id == battle_id, Battle.campaign_id == campaign_id).with_for_update()).first()
    found = battles.battles_of(session, viewer.campaign, battle_ids=[battle_id])
    if not found:
        raise DomainError("not_found")
    view = found[0]
    if not _may_run(viewer, view):
        raise DomainError("clock_participants_only")
    if tap.action == "correct":
        require_gm(viewer)
    if not _open(viewer, view):
        raise DomainError("clock_closed")
    row = session.exec(_CLOCK_OF, params={"battle_id": battle_id}).first()
    if tap.version is not None and tap.version != (row.version if row else 0):
        raise DomainError("clock_changed")
    now = _when(tap, row, now)
    before = _state(row) if row else None
    if row is None:
        if tap.action != "start":
            raise DomainError("clock_not_started")
        settings = battle_settings(viewer.campaign, _event(session, view.battle))
        numbers = [side[0].side for side in view.sides()]
        state = rules.new(numbers, settings, numbers[0] if tap.side is None else tap.side, now)
        row = BattleClock(
            battle_id=battle_id,
            campaign_id=campaign_id,
            minutes_per_side=settings.minutes_per_side,
            max_turns=settings.max_turns,
            extra_turn_on=settings.extra_turn_on,
        )
    else:
        state = _apply(before, tap, now, _seeded_roll(view.battle, before))
    _store(row, state)
    session.add(row)
    _chronicle(session, viewer.campaign, view, before, state)
    publish(
        session,
        campaign_id,
        "clock",
        subject_id=battle_id,
        actor_user_id=actor.id,
        status=state.status,
        turn=state.turn,
        running_side=state.running,
        version=row.version,
    )
    session.flush()
    return clock_view(session, viewer, view, now, row)


def _apply(state: rules.State, tap: Tap, now: int, roll) -> rules.State:
    if tap.action == "start":
        return rules.resume(state, now)
    if tap.action == "switch":
        return rules.switch(state, now, roll)
    if tap.action == "pause":
        return rules.pause(state, now)
    if tap.action == "next_turn":
        return rules.next_turn(state, now, roll)
    if tap.action == "end":
        return rules.end(state, now)
    if tap.action == "roll":
        return rules.enter_roll(state, tap.roll if tap.roll is not None else roll())
    return rules.correct(state, now, side=tap.side, remaining_ms=tap.remaining_ms, turn=tap.turn)


def _chronicle(
    session: Session, campaign: Campaign, view: battles.BattleView, before: rules.State | None, after: rules.State
) -> None:
    """The clock's record in the chronicle: each side whose time ran out, and how the game ended."""
    place = maps.labels(session, campaign.id).get(view.battle.place_id, "")
    names = {side[0].side: " & ".join(w.name for w in side) for side in view.sides()}
    for side, turn in sorted(after.out.items()):
        if before is None or side not in before.out:
            chronicle.record(session, campaign, "clock_out_of_time", place=place, side=names.get(side, ""), turn=turn)
    if after.status == "ended" and (before is None or before.status != "ended"):
        chronicle.record(session, campaign, "clock_ended", place=place, turns=after.turn, clock_end=after.ended)

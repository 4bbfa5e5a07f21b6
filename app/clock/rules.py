"""The battle clock's arithmetic (issue 18), pure: every function takes the time as `now`
(milliseconds) and returns a new state, so tests inject the clock and never sleep.

Out of time (the Wavrin 2017 pack, shared/seeds/001): the side finishes the action in
progress, then gives no more orders for the rest of the game; the other sides play their
remaining turns (a 7th on its roll); when the last side also runs out, the game ends."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from app.core.errors import DomainError

DEFAULT_TURNS = 6
DEFAULT_EXTRA_ON = 4
MAX_MINUTES = 600
MAX_TURNS = 20
ACTIONS = ("start", "switch", "pause", "next_turn", "end", "roll", "correct")


@dataclass(frozen=True)
class Settings:
    """minutes_per_side None: no time limit (the clock counts turns only)."""

    minutes_per_side: int | None = None
    max_turns: int = DEFAULT_TURNS
    extra_turn_on: int | None = DEFAULT_EXTRA_ON

    def as_dict(self) -> dict:
        return {"minutes_per_side": self.minutes_per_side, "max_turns": self.max_turns, "extra_turn_on": self.extra_turn_on}


def settings_of(stored: dict | None, fallback: Settings | None = None) -> Settings:
    """Settings from a stored dict (the campaign's, or an event's override); missing keys take
    the fallback's, or the pack's (no time limit, 6 turns, a 7th on 4+)."""
    base = fallback or Settings()
    stored = stored or {}
    return Settings(
        minutes_per_side=stored.get("minutes_per_side", base.minutes_per_side),
        max_turns=stored.get("max_turns", base.max_turns) or base.max_turns,
        extra_turn_on=stored.get("extra_turn_on", base.extra_turn_on),
    )


@dataclass(frozen=True)
class State:
    order: tuple[int, ...]  # side numbers in playing order
    limit_ms: int | None  # per side; None: no time limit
    max_turns: int
    extra_turn_on: int | None
    status: str = "running"  # running, paused, ended
    turn: int = 1
    running: int | None = None  # the side whose turn it is (its clock runs unless paused)
    since: int | None = None  # when the running side's run began (ms), while running
    used: dict[int, int] = field(default_factory=dict)
    out: dict[int, int] = field(default_factory=dict)  # side -> the turn its time ran out
    extra_roll: int | None = None
    ended: str | None = None  # turns, time, manual


def new(order: list[int], settings: Settings, first: int, now: int) -> State:
    """The clock started, `first` playing (the order turns so that it leads every turn)."""
    if first not in order:
        raise DomainError("clock_side_unknown")
    at = order.index(first)
    turned = tuple(order[at:] + order[:at])
    limit = settings.minutes_per_side * 60_000 if settings.minutes_per_side else None
    return State(
        order=turned,
        limit_ms=limit,
        max_turns=settings.max_turns,
        extra_turn_on=settings.extra_turn_on,
        turn=1,
        running=first,
        since=now,
        used=dict.fromkeys(turned, 0),
    )


def used(state: State, side: int, now: int) -> int:
    spent = state.used.get(side, 0)
    if state.status == "running" and state.running == side and state.since is not None:
        spent += max(0, now - state.since)
    return spent


def remaining(state: State, side: int, now: int) -> int | None:
    if state.limit_ms is None:
        return None
    return max(0, state.limit_ms - used(state, side, now))


def out_of_time(state: State, side: int, now: int) -> bool:
    left = remaining(state, side, now)
    return side in state.out or (left is not None and left <= 0)


def _charge(state: State, now: int) -> State:
    """The running side's run so far, added to its used time (its time marked out if spent)."""
    if state.status != "running" or state.running is None:
        return state
    side = state.running
    spent = used(state, side, now)
    out = dict(state.out)
    if state.limit_ms is not None:
        if spent >= state.limit_ms and side not in out:
            out[side] = state.turn
        spent = min(spent, state.limit_ms)
    return replace(state, used={**state.used, side: spent}, out=out, since=now)


def _require(state: State, *statuses: str) -> None:
    if state.status not in statuses:
        raise DomainError(
            "clock_ended" if state.status == "ended" else ("clock_paused" if state.status == "paused" else "clock_running")
        )


def _end(state: State, reason: str) -> State:
    return replace(state, status="ended", running=None, since=None, ended=reason)


def _next_turn(state: State, now: int, roll) -> State:
    """The turn after this one, or the end: after the last turn the extra turn is rolled for
    (once; `roll()` gives the die when nobody entered one) and played on its number or more.
    With every side out of time the game is over, whatever turn it is (nothing to roll for)."""
    playing = [s for s in state.order if s not in state.out]
    if not playing:
        return _end(state, "time")
    turn = state.turn + 1
    if turn > state.max_turns:
        extra_on = state.extra_turn_on
        if extra_on is None or turn > state.max_turns + 1:
            return _end(state, "turns")
        rolled = state.extra_roll if state.extra_roll is not None else roll()
        state = replace(state, extra_roll=rolled)
        if rolled < extra_on:
            return _end(state, "turns")
    return replace(state, turn=turn, running=playing[0], since=now if state.status == "running" else None)


def switch(state: State, now: int, roll) -> State:
    """The running side is done (its turn, or its action after its time ran out): the next side
    with time left plays; past the last side of the order, the next turn begins."""
    _require(state, "running")
    state = _charge(state, now)
    at = state.order.index(state.running)
    for step in range(1, len(state.order) + 1):
        index = (at + step) % len(state.order)
        side = state.order[index]
        if index <= at:
            # Wrapped: every side (with time) has played this turn.
            return _next_turn(state, now, roll)
        if side not in state.out:
            return replace(state, running=side, since=now)
    return _next_turn(state, now, roll)


def pause(state: State, now: int) -> State:
    _require(state, "running")
    state = _charge(state, now)
    return replace(state, status="paused", since=None)


def resume(state: State, now: int) -> State:
    _require(state, "paused")
    return replace(state, status="running", since=now)


def next_turn(state: State, now: int, roll) -> State:
    """The next turn at once (a game played without time, or a correction): its first side
    with time left plays."""
    _require(state, "running", "paused")
    return _next_turn(_charge(state, now), now, roll)


def end(state: State, now: int) -> State:
    _require(state, "running", "paused")
    return _end(_charge(state, now), "manual")


def enter_roll(state: State, value: int) -> State:
    """The extra turn's die rolled at the table, before the last turn ends."""
    _require(state, "running", "paused")
    if state.extra_turn_on is None:
        raise DomainError("clock_no_extra_turn")
    if state.extra_roll is not None:
        raise DomainError("clock_rolled")
    if not 1 <= value <= 6:
        raise DomainError("clock_roll_invalid")
    return replace(state, extra_roll=value)


def correct(
    state: State, now: int, *, side: int | None = None, remaining_ms: int | None = None, turn: int | None = None
) -> State:
    """The GM puts the clock right: a side's remaining time, the turn, or who plays."""
    _require(state, "running", "paused")
    state = _charge(state, now)
    if side is not None and side not in state.order:
        raise DomainError("clock_side_unknown")
    if turn is not None:
        if not 1 <= turn <= state.max_turns + (1 if state.extra_turn_on else 0):
            raise DomainError("clock_turn_invalid")
        state = replace(state, turn=turn)
    if remaining_ms is not None:
        if side is None or state.limit_ms is None or not 0 <= remaining_ms <= state.limit_ms:
            raise DomainError("clock_remaining_invalid")
        out = {s: t for s, t in state.out.items() if s != side or remaining_ms == 0}
        if remaining_ms == 0:
            out.setdefault(side, state.turn)
        state = replace(state, used={**state.used, side: state.limit_ms - remaining_ms}, out=out)
    elif side is not None:
        state = replace(state, running=side, since=now if state.status == "running" else None)
    return state

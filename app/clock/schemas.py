from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.clock import rules
from app.core.types import Between


class ClockSettingsIn(BaseModel):
    """The battle clock's settings: minutes per side (null: no time limit), turns, and the
    extra turn's number on a die (null: no extra turn)."""

    model_config = ConfigDict(extra="forbid")
    minutes_per_side: Annotated[int, Between(1, rules.MAX_MINUTES)] | None = None
    max_turns: Annotated[int, Between(1, rules.MAX_TURNS)] = rules.DEFAULT_TURNS
    extra_turn_on: Annotated[int, Between(2, 6)] | None = rules.DEFAULT_EXTRA_ON

    def settings(self) -> rules.Settings:
        return rules.Settings(self.minutes_per_side, self.max_turns, self.extra_turn_on)


class EventClockIn(BaseModel):
    """An event's own clock for its battles; `clock: null` gives them the campaign's again."""

    model_config = ConfigDict(extra="forbid")
    clock: ClockSettingsIn | None = None


class ClockSettingsOut(BaseModel):
    minutes_per_side: int | None
    max_turns: int
    extra_turn_on: int | None


class EventClockOut(BaseModel):
    event_id: int
    clock: ClockSettingsOut | None  # null: the campaign's
    effective: ClockSettingsOut


class ClockTapIn(BaseModel):
    """`start` (with `side`: who plays first; on a paused clock, resumes), `switch` (the
    running side is done), `pause`, `next_turn`, `end`, `roll` (the extra turn's die, `roll`
    1–6; without it the server rolls), and the GM's `correct` (`side` with `remaining_ms`, or
    `side` alone to give it the turn, and/or `turn`). `version`: the clock as the client
    saw it; a tap on an older clock is refused (409 `clock_changed`)."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["start", "switch", "pause", "next_turn", "end", "roll", "correct"]
    side: Annotated[int, Between(0, 1000)] | None = None
    roll: Annotated[int, Between(1, 6)] | None = None
    remaining_ms: Annotated[int, Between(0, rules.MAX_MINUTES * 60_000)] | None = None
    turn: Annotated[int, Between(1, rules.MAX_TURNS + 1)] | None = None
    version: Annotated[int, Between(0, 2**31 - 1)] | None = None
    # R12.1: a tap kept on a phone offline and sent later says when it was made (ms since the
    # epoch); the server takes that moment, never before the clock's last change nor after now.
    at: Annotated[int, Between(0, 2**53)] | None = None


class SideClockOut(BaseModel):
    side: int
    player_ids: list[int]
    warbands: list[str]
    remaining_ms: int | None
    out_of_time: bool
    out_turn: int | None


class ClockOut(BaseModel):
    battle_id: int
    status: Literal["ready", "running", "paused", "ended"]
    turn: int
    max_turns: int
    extra_turn_on: int | None
    extra_roll: int | None
    minutes_per_side: int | None
    running_side: int | None
    order: list[int] = Field(description="side numbers in playing order")
    ended_reason: Literal["turns", "time", "manual"] | None
    version: int
    sides: list[SideClockOut]

"""API shapes of Twilight (API.md "twilight row", extended) and End round."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from app.core.types import Id

Reason = Literal[
    "sole_winner",
    "guild",
    "alliance",
    "winners_choice",
    "unopposed",
    "unopposed_guild",
    "unopposed_alliance",
    "unopposed_choice",
    "draw",
    "unopposed_owned",
    "left_out",
]


class ArrivalOut(BaseModel):
    warband_id: int
    player_id: int
    event_id: int | None
    kind: Literal["unopposed", "left_out"]


class TwilightRowOut(BaseModel):
    """One place where warbands arrived this round. `outcome` is "taken" (it changes hands),
    "kept" (it stays as it is) or "gm_choice" (the GM chooses among `candidates`); `reason`
    says which rule decided (R7.3-R7.5, R8.10)."""

    place_id: int
    outcome: Literal["taken", "kept", "gm_choice"]
    reason: Reason
    owner_player_id: int | None
    proposed_owner_player_id: int | None
    needs_gm_choice: bool
    candidates: list[int]
    chosen_player_id: int | None
    battle_ids: list[int]
    arrivals: list[ArrivalOut]


class MissingOut(BaseModel):
    kind: Literal["result", "settlement"]
    battle_id: int
    place_id: int
    player_ids: list[int]
    warband: str


class TwilightOut(BaseModel):
    round: int
    phase: str | None
    final: bool
    places: list[TwilightRowOut]
    choices_missing: list[int]
    waiting_for: list[MissingOut]


class ChoiceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    place_id: Id
    player_id: Id

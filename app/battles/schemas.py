"""API input and output shapes."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.core.types import Id, Name


class BattleWarbandOut(BaseModel):
    id: int
    player_id: int
    name: str
    points: int
    roster: list[dict]
    underdog_dice: int
    bonus_points: int


class SideOut(BaseModel):
    side: int
    player_ids: list[int]
    warbands: list[BattleWarbandOut]
    role: str | None


class BattleOut(BaseModel):
    id: int
    round: int
    place_id: int
    event_id: int | None
    scenario: str | None
    other_mission: str | None
    roles: bool
    beacon_hint: bool
    notes: str
    status: str
    seed: int
    sides: list[SideOut]
    winners: list[int]
    reported_by_player_id: int | None
    confirmed_by: list[int]
    dispute_reason: str


class BattlePage(BaseModel):
    items: list[BattleOut]
    page: int
    pages: int
    total: int


class WinnersIn(BaseModel):
    winner_player_ids: list[Id] = Field(default_factory=list, max_length=40)


class DisputeIn(BaseModel):
    reason: str = Field(max_length=2000)


class ResultForm(BaseModel):
    """The battle page's result (the API's WinnersIn): the ticked winners (`winner`), the one
    winner's button (`winner_one`) or the Draw button."""
    winner: list[Id] = Field(default_factory=list, max_length=40)
    winner_one: Id | None = None
    draw: Literal["1"] | None = None

    @property
    def winners(self) -> list[int]:
        if self.draw:
            return []
        return self.winner or ([self.winner_one] if self.winner_one is not None else [])


class DisputeForm(DisputeIn):
    """The battle page's dispute: the API's DisputeIn; a blank reason is a missing one."""
    reason: Name(2000)

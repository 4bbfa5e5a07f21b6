"""API input and output shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from app.core.pagination import PageOut
from app.core.types import Id, Name


class BattleWarbandOut(BaseModel):
    id: int
    player_id: int
    name: str
    points: int
    roster: list[dict]
    underdog_dice: int = Field(description="Its side's Underdog dice (V10: Underdog is decided per side).")
    bonus_points: int = Field(description="Its side's bonus-model points (V10: Underdog is decided per side).")


class SideOut(BaseModel):
    side: int
    player_ids: list[int]
    points: int = Field(description="The side's total points: its warbands' points together (V10).")
    underdog_dice: int = Field(description="V10: one die per full underdog_points_per_die of bonus_points.")
    bonus_points: int = Field(description="V10: how many points the side is short of the strongest side.")
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


class BattlePage(PageOut[BattleOut]):
    pass


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

    reason: Annotated[str, Name(2000)]


class ConfirmLinkOut(BaseModel):
    url: str = Field(description="Opened without logging in: the battle, its result, Confirm and Dispute (R12.2).")
    expires_at: datetime | None = Field(
        description="The phase's deadline, if the GM set one; the link ends with the phase anyway."
    )


class PhotoOut(BaseModel):
    id: int
    url: str = Field(description="The photo itself, for the campaign's members only (R12.3).")
    width: int
    height: int
    player_id: int | None = Field(description="Who added it (null: the game master).")

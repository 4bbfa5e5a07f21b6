from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from app.core.types import Between, Flag, Id, Name


class EventIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    place_id: Id
    title: Annotated[str, Name(120)]
    text: str = Field(default="", max_length=20_000)
    duration: Annotated[int, Between(1, 100)] = 1
    scenario: str | None = Field(default=None, max_length=120)
    other_mission: str | None = Field(default=None, max_length=20_000)
    roles: Literal["attacker_defender", "none"] | None = None
    blockade: Flag = False
    points_limit: Annotated[int, Between(1, 10_000)] | None = None
    reward: str = Field(default="", max_length=5_000)
    notes: str = Field(default="", max_length=20_000)


class EventPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: Annotated[str, Name(120)] | None = None
    text: str | None = Field(default=None, max_length=20_000)
    duration: Annotated[int, Between(1, 100)] | None = None
    scenario: str | None = Field(default=None, max_length=120)
    other_mission: str | None = Field(default=None, max_length=20_000)
    roles: Literal["attacker_defender", "none"] | None = None
    blockade: Flag | None = None
    points_limit: Annotated[int, Between(1, 10_000)] | None = None
    reward: str | None = Field(default=None, max_length=5_000)
    notes: str | None = Field(default=None, max_length=20_000)

    @field_validator("title", "text", "duration", "blockade", "reward", "notes", mode="before")
    @classmethod
    def _no_null(cls, value):
        """These columns always hold a value: null is refused as a missing field (422), never
        stored (it was a 500)."""
        if value is None:
            raise PydanticCustomError("missing", "Field required")
        return value


class EventOut(BaseModel):
    id: int
    place_id: int
    title: str
    text: str
    round_added: int
    duration: int
    last_round: int
    active: bool
    scenario: str | None
    other_mission: str | None
    roles: str | None
    blockade: bool
    points_limit: int | None
    reward: str
    notes: str
    # R5.5: the sent orders this edit or end undid (their fees refunded, owners told).
    undone_orders: int = 0

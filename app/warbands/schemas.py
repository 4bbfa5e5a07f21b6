from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class WarbandIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=80)
    model_ids: list[int] = Field(default_factory=list, max_length=100)
    mercenary: str | None = Field(default=None, max_length=120)


class WarbandPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, min_length=1, max_length=80)
    model_ids: list[int] | None = Field(default=None, max_length=100)
    mercenary: str | None = Field(default=None, max_length=120)


class OrderIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    event_id: int | None = None
    place_id: int | None = None


class ProblemOut(BaseModel):
    code: str
    message: str


class WarbandOut(BaseModel):
    id: int
    player_id: int
    name: str
    points: int
    model_ids: list[int]
    mercenary: str | None
    location_place_id: int | None = None
    problems: list[ProblemOut]
    order: "OrderOut | None" = None


class OrderOut(BaseModel):
    warband_id: int
    player_id: int
    round: int
    event_id: int | None
    place_id: int
    points: int

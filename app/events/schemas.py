from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class EventIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    place_id: int
    title: str = Field(min_length=1, max_length=120)
    text: str = Field(default="", max_length=20_000)
    duration: int = Field(default=1, ge=1, le=100)
    scenario: str | None = Field(default=None, max_length=120)
    other_mission: str | None = Field(default=None, max_length=20_000)
    roles: Literal["attacker_defender", "none"] | None = None
    blockade: bool = False
    points_limit: int | None = Field(default=None, ge=1, le=10_000)
    reward: str = Field(default="", max_length=5_000)
    notes: str = Field(default="", max_length=20_000)


class EventPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str | None = Field(default=None, min_length=1, max_length=120)
    text: str | None = Field(default=None, max_length=20_000)
    duration: int | None = Field(default=None, ge=1, le=100)
    scenario: str | None = Field(default=None, max_length=120)
    other_mission: str | None = Field(default=None, max_length=20_000)
    roles: Literal["attacker_defender", "none"] | None = None
    blockade: bool | None = None
    points_limit: int | None = Field(default=None, ge=1, le=10_000)
    reward: str | None = Field(default=None, max_length=5_000)
    notes: str | None = Field(default=None, max_length=20_000)


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

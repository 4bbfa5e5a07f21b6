from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.types import Flag, Id, Int, Name


class EventIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    place_id: Id
    title: Name(120)
    text: str = Field(default="", max_length=20_000)
    duration: Int(1, 100) = 1
    scenario: str | None = Field(default=None, max_length=120)
    other_mission: str | None = Field(default=None, max_length=20_000)
    roles: Literal["attacker_defender", "none"] | None = None
    blockade: Flag = False
    points_limit: Int(1, 10_000) | None = None
    reward: str = Field(default="", max_length=5_000)
    notes: str = Field(default="", max_length=20_000)


class EventPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: Name(120) | None = None
    text: str | None = Field(default=None, max_length=20_000)
    duration: Int(1, 100) | None = None
    scenario: str | None = Field(default=None, max_length=120)
    other_mission: str | None = Field(default=None, max_length=20_000)
    roles: Literal["attacker_defender", "none"] | None = None
    blockade: Flag | None = None
    points_limit: Int(1, 10_000) | None = None
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

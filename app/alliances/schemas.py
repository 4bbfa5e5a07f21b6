from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.types import Id


class AllianceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    event_id: Id
    invite_player_ids: list[Id] = Field(min_length=1, max_length=100)


class AllianceOut(BaseModel):
    id: int
    event_id: int
    round: int
    initiator_player_id: int
    member_player_ids: list[int]
    invited_player_ids: list[int]
    status: Literal["active", "ended", "lapsed"]

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict

from app.core.types import Id, Name


class GuildIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Name(60)]


class GuildInvitationIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player_id: Id


class GuildRequestOut(BaseModel):
    """A request (`kind: request`, paid by the asker) or an invitation (free), seen by the
    guild's founder and the player it concerns."""

    id: int
    guild_id: int
    player_id: int
    kind: Literal["request", "invitation"]
    status: Literal["pending", "accepted", "rejected", "declined", "lapsed"]
    fee: int


class GuildOut(BaseModel):
    id: int
    name: str
    founder_player_id: int
    level: int
    member_player_ids: list[int]
    allies_allowed: int
    next_level_cost: int | None
    income_per_round: int
    requests: list[GuildRequestOut] = []

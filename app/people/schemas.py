"""API (and form) shapes of the people who come and go (issue 36)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from app.core.types import Between, Name

Round = Annotated[int, Between(1, 10_000)]


class NicknameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    nickname: str = Field(min_length=1, max_length=64)


class NicknameForm(BaseModel):
    nickname: Annotated[str, Name(64)]


class GameMasterOut(BaseModel):
    user_id: int
    nickname: str
    owner: bool  # the campaign's own GM, who cannot be removed


class AwayIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    from_round: Round
    to_round: Round


class AwayOut(BaseModel):
    player_id: int
    from_round: int
    to_round: int

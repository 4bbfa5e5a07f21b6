"""API (and form) input and output shapes for campaigns."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

GuildTerm = Literal["guild", "consortium", "group", "brotherhood", "cartel", "alliance"]
Money = Field(default=None, ge=0, le=1_000_000)


class ModulesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    guilds: bool | None = None
    mission_alliances: bool | None = None
    letters: bool | None = None
    gold_transfers: bool | None = None
    multi_band_battles: bool | None = None
    battle_size_limit: int | None = Field(default=None, ge=3, le=40)
    paths: bool | None = None
    movement: bool | None = None


class GuildIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    term: GuildTerm | None = None
    level_cost: int | None = Money
    level_income: int | None = Money
    max_level: int | None = Field(default=None, ge=1, le=20)
    request_fee: int | None = Money
    entry_fee: int | None = Money


class CampaignPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, min_length=1, max_length=120)
    story: str | None = Field(default=None, max_length=20_000)
    max_players: int | None = Field(default=None, ge=2, le=40)
    starting_gold: int | None = Money
    round_income: int | None = Money
    gold_per_point: int | None = Field(default=None, ge=1, le=1000)
    sale_loss_percent: int | None = Field(default=None, ge=0, le=100)
    warband_points: int | None = Field(default=None, ge=1, le=10_000)
    underdog_points_per_die: int | None = Field(default=None, ge=1, le=10_000)
    alliance_fee: int | None = Money
    modules: ModulesIn | None = None
    guild: GuildIn | None = None


class CampaignCreate(CampaignPatch):
    name: str = Field(min_length=1, max_length=120)


class StatusIn(BaseModel):
    status: Literal["hideouts", "running", "finished"]


class PhaseIn(BaseModel):
    phase: str = Field(max_length=32)


class EndRoundIn(BaseModel):
    round: int = Field(ge=0, le=100_000)


class InviteIn(BaseModel):
    nickname: str = Field(min_length=1, max_length=64)


class HideoutIn(BaseModel):
    place_id: int


class PlayerOut(BaseModel):
    player_id: int
    nickname: str
    hideouts: list[int]
    places: list[int]
    guild_id: int | None = None
    joined_at: datetime
    gold: int | None = None  # only for the player themselves and the GM (R11.2)


class InvitationOut(BaseModel):
    nickname: str
    status: str


class CampaignOut(BaseModel):
    id: int
    name: str
    story: str
    status: str
    round: int
    phase: str | None
    gm_nickname: str
    settings: dict
    modules: dict
    guild: dict
    players: list[PlayerOut]
    setup_complete: bool
    wizard_step: int

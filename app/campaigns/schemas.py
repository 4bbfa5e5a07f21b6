"""API (and form) input and output shapes for campaigns."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.campaigns.house_rules import MAX_DIE, MIN_DIE
from app.core.types import Between, Flag, Id, Money, Name

GuildTerm = Literal["guild", "consortium", "group", "brotherhood", "cartel", "alliance"]


class ModulesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    guilds: Flag | None = None
    mission_alliances: Flag | None = None
    letters: Flag | None = None
    gold_transfers: Flag | None = None
    multi_band_battles: Flag | None = None
    battle_size_limit: Annotated[int, Between(3, 40)] | None = None
    paths: Flag | None = None
    movement: Flag | None = None


class GuildSettingsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    term: GuildTerm | None = None
    level_cost: Money | None = None
    level_income: Money | None = None
    max_level: Annotated[int, Between(1, 20)] | None = None
    request_fee: Money | None = None
    entry_fee: Money | None = None


class CasualtyFaceIn(BaseModel):
    """One face of the casualty die (V12): what it means, and whether a dead model's items
    are lost with it."""

    model_config = ConfigDict(extra="forbid")
    result: Literal["recovered", "miss_next", "permanent", "dead", "captured"]
    items_lost: Flag = False


class XpAwardsIn(BaseModel):
    """Experience awards (V14); the house default is 1, 1, 1, 1 and the leader's 2."""

    model_config = ConfigDict(extra="forbid")
    taking_part: Annotated[int, Between(0, 20)] | None = None
    per_enemy: Annotated[int, Between(0, 20)] | None = None
    objective: Annotated[int, Between(0, 20)] | None = None
    win: Annotated[int, Between(0, 20)] | None = None
    leader_bonus: Annotated[int, Between(0, 20)] | None = None


class RetinueRulesIn(BaseModel):
    """V16: retinue models free besides the leader, and the points each further role costs."""

    model_config = ConfigDict(extra="forbid")
    free_retinue: Annotated[int, Between(0, 100)] | None = None
    role_cost: Annotated[int, Between(0, 100)] | None = None


class SettlementRulesIn(BaseModel):
    """The campaign's settlement settings; a part left out keeps what it was."""

    model_config = ConfigDict(extra="forbid")
    casualty_table: list[CasualtyFaceIn] | None = Field(
        default=None, min_length=2, max_length=20, description="One entry per face of the die, from 1 up (a D10 by default)."
    )
    xp: XpAwardsIn | None = None
    ranks: list[Annotated[int, Between(1, 10_000)]] | None = Field(
        default=None,
        min_length=1,
        max_length=10,
        description="Experience for ranks 1, 2, …, rising (house default 5/10/16/23/31).",
    )
    retinue: RetinueRulesIn | None = None


class CampaignPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Name(120)] | None = None
    story: str | None = Field(default=None, max_length=20_000)
    max_players: Annotated[int, Between(2, 40)] | None = None
    starting_gold: Money | None = None
    round_income: Money | None = None
    gold_per_point: Annotated[int, Between(1, 1000)] | None = None
    sale_loss_percent: Annotated[int, Between(0, 100)] | None = None
    warband_points: Annotated[int, Between(1, 10_000)] | None = None
    underdog_points_per_die: Annotated[int, Between(1, 10_000)] | None = None
    alliance_fee: Money | None = None
    modules: ModulesIn | None = None
    guild: GuildSettingsIn | None = None
    settlement_rules: SettlementRulesIn | None = None


class CampaignCreate(CampaignPatch):
    name: Annotated[str, Name(120)]


class StatusIn(BaseModel):
    status: Literal["hideouts", "running", "finished"]


class PhaseIn(BaseModel):
    phase: str = Field(max_length=32, json_schema_extra={"enum": ["preparation", "orders", "battles", "settlement", "twilight"]})


class EndRoundIn(BaseModel):
    round: Annotated[int, Between(0, 100_000)]


class InviteIn(BaseModel):
    nickname: str = Field(min_length=1, max_length=64)


class HideoutIn(BaseModel):
    place_id: Id


# --- page forms: what only the pages post, with the API's limits ------------------------


class InviteForm(InviteIn):
    """The players page's invitation: the API's InviteIn; a blank nickname is a missing one."""

    nickname: Annotated[str, Name(64)]


class CasualtyDieForm(BaseModel):
    """Wizard step 5: the sides of the casualty die, which say how many faces the table has
    (each face is then a choice of CasualtyFaceIn)."""

    die: Annotated[int, Between(MIN_DIE, MAX_DIE)] = 10


class PlayerOut(BaseModel):
    player_id: int
    nickname: str
    hideouts: list[int]
    places: list[int]
    guild_id: int | None = None
    joined_at: datetime
    gold: int | None = None  # only for the player themselves and the GM (R11.2)
    away: dict[str, int] | None = None  # R12.11: {from_round, to_round}; everyone sees it


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
    settlement_rules: dict = {}
    players: list[PlayerOut]
    setup_complete: bool
    wizard_step: int

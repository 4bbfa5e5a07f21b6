"""API (and form) shapes of a settlement (API.md "Settlement body") and of ransoms."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.types import Between, Flag, Id, Money

Injury = Literal["recovered", "miss_next", "permanent", "dead", "captured"]


class CourseIn(BaseModel):
    """V11. `took_out` maps a model id (as a string) to the enemy models it took out; the
    result is the battle's (won, lost, draw) and a different one is refused."""

    model_config = ConfigDict(extra="forbid")
    taken_out: list[Id] = Field(default_factory=list, max_length=100)
    took_out: dict[str, Annotated[int, Between(0, 99)]] = Field(default_factory=dict, max_length=100)
    objectives: list[Id] = Field(default_factory=list, max_length=100)
    result: Literal["won", "lost", "draw"] | None = None


class InjuryIn(BaseModel):
    """V12: a casualty result entered from the table top (or the captor/text of a rolled one)."""

    model_config = ConfigDict(extra="forbid")
    model_id: Id
    result: Injury
    text: str | None = Field(default=None, max_length=200)
    captor_player_id: Id | None = None
    items_lost: Flag | None = None


class EquipmentIn(BaseModel):
    """V13: where an item goes — a model of the warband, or null for the stash — or lost."""

    model_config = ConfigDict(extra="forbid")
    item_id: Id
    model_id: Id | None = None
    lost: Flag = False


class ExperienceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model_id: Id
    xp: Annotated[int, Between(0, 999)]


class PromotionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model_id: Id
    rank: Annotated[int, Between(1, 10)]
    upgrade: str = Field(max_length=200)


class RetinueIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    leader_id: Id | None = None
    retinue_ids: list[Id] = Field(default_factory=list, max_length=100)


class SettlementIn(BaseModel):
    """Any of the six steps; a step left out keeps what was saved."""

    model_config = ConfigDict(extra="forbid")
    course: CourseIn | None = None
    injuries: list[InjuryIn] | None = Field(default=None, max_length=100)
    equipment: list[EquipmentIn] | None = Field(default=None, max_length=200)
    experience: list[ExperienceIn] | None = Field(default=None, max_length=100)
    promotions: list[PromotionIn] | None = Field(default=None, max_length=100)
    retinue: RetinueIn | None = None


class RollIn(BaseModel):
    """Roll a taken-out model's casualty result; `reroll` spends the Healer's re-roll."""

    model_config = ConfigDict(extra="forbid")
    model_id: Id
    reroll: Flag = False


class RansomOfferIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    price: Money


class RansomOut(BaseModel):
    id: int
    round: int
    battle_id: int | None = None
    model_id: int
    model_name: str
    owner_player_id: int
    captor_player_id: int
    price: int | None
    status: Literal["awaiting", "offered", "paid", "refused", "lapsed"]
    decided_at: datetime | None


class SettlementModelOut(BaseModel):
    model_id: int
    name: str
    types: list[str]
    healer: bool
    status: str
    xp: int
    rank: int
    role: str | None
    injuries: list[str]


class SettlementItemOut(BaseModel):
    item_id: int
    name: str
    slot: str
    rarity: str
    model_id: int | None


class RollOut(BaseModel):
    model_id: int
    seed: int
    face: int
    result: str
    items_lost: bool
    healer: bool


class DueOut(BaseModel):
    model_id: int
    ranks: list[int]


class ProposalOut(BaseModel):
    """What the house rules propose: experience by V14 (before the leader's extra points)
    and the rank-ups due by V15."""

    experience: list[ExperienceIn]
    leader_bonus: int
    due_promotions: list[DueOut]


class SettlementOut(BaseModel):
    battle_id: int
    warband_id: int
    player_id: int
    round: int
    status: Literal["draft", "closed"]
    result: Literal["won", "lost", "draw"] | None
    steps: dict
    proposal: ProposalOut
    rolls: list[RollOut]
    healer: bool
    healer_used: bool
    models: list[SettlementModelOut]
    items: list[SettlementItemOut]
    retinue_cost: int
    ransoms: list[RansomOut]
    problem: str | None = None
    closed_at: datetime | None = None


class PendingOut(BaseModel):
    battle_id: int
    place_id: int
    warband_id: int
    warband: str
    player_id: int
    status: Literal["none", "draft"]


class SettlementListOut(BaseModel):
    """The round's settlements this viewer may see, and the warbands still to settle."""

    round: int
    closed: list[dict]
    pending: list[PendingOut]

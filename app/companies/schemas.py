from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class FactionIn(BaseModel):
    faction: str = Field(max_length=120)


class BuyModelIn(BaseModel):
    profile: str = Field(max_length=120)


class BuyItemIn(BaseModel):
    item: str = Field(max_length=120)


class AssignIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model_id: int | None


class RewardIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player_id: int
    item: str | None = Field(default=None, max_length=120)
    profile: str | None = Field(default=None, max_length=120)


class ModelOut(BaseModel):
    id: int
    name: str
    profile: str
    types: list[str]
    points: int
    price: int
    stats: dict[str, str]
    special_rules: list[str]
    unique: bool
    reward: bool
    status: str
    item_ids: list[int]


class ItemOut(BaseModel):
    id: int
    item: str
    name: str
    rarity: str
    slot: str
    points: int
    price: int
    reward: bool
    model_id: int | None


class CompanyOut(BaseModel):
    player_id: int
    faction: str | None
    confirmed: bool
    gold: int
    models: list[ModelOut]
    items: list[ItemOut]


class RefundOut(BaseModel):
    refund: int

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.core.types import Id


class FactionIn(BaseModel):
    faction: str = Field(max_length=120)


class BuyModelIn(BaseModel):
    profile: str = Field(max_length=120)


class BuyItemIn(BaseModel):
    item: str = Field(max_length=120)


class AssignIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model_id: Id | None


class RewardIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player_id: Id
    item: str | None = Field(default=None, max_length=120)
    profile: str | None = Field(default=None, max_length=120)


class ShopForm(BaseModel):
    """The shop's filter, posted back with a purchase: the shop page's query limits."""

    type: str = Field(default="", max_length=20)
    q: str = Field(default="", max_length=80)


class ModelNameIn(BaseModel):
    """Issue 29: the player's own name for a model; null or empty takes it away."""

    model_config = ConfigDict(extra="forbid")
    given_name: str | None = Field(max_length=40)


class ModelOut(BaseModel):
    id: int
    name: str  # the profile's name, as bought
    # Issue 29: the player's name for it, and the label pages show (given name, or "Ax 2").
    given_name: str | None = None
    label: str = ""
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
    # Settlement (V12-V16): experience, rank, role in the company, injuries, upgrades.
    xp: int = 0
    rank: int = 0
    role: str | None = None
    injuries: list[str] = []
    upgrades: list[dict] = []


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
    gold: int | None  # null for the GM with the gold transfers module on (R11.2)
    models: list[ModelOut]
    items: list[ItemOut]


class RefundOut(BaseModel):
    refund: int


class RosterImportOut(BaseModel):
    """R12.15: the models bought from a roster file, the items bought with them (or to the
    stash), the entries not in the catalog and the items not sold (upgrades as "<model>:
    <name>"), the gold after."""

    bought: list[ModelOut]
    items: list[ItemOut] = []
    unmatched: list[str]
    refused: list[str] = []
    gold: int

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class PlaceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=80)
    description: str = Field(default="", max_length=20_000)
    income: int = Field(default=0, ge=0, le=100_000)
    hideout_slot: bool = False
    x: float = Field(default=50.0, ge=0, le=100)
    y: float = Field(default=50.0, ge=0, le=100)
    parent_id: int | None = None
    entry: bool = False


class PlacePatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, min_length=1, max_length=80)
    description: str | None = Field(default=None, max_length=20_000)
    income: int | None = Field(default=None, ge=0, le=100_000)
    hideout_slot: bool | None = None
    x: float | None = Field(default=None, ge=0, le=100)
    y: float | None = Field(default=None, ge=0, le=100)
    parent_id: int | None = None
    entry: bool | None = None
    has_map: bool | None = None


class PlaceOut(BaseModel):
    id: int
    name: str
    description: str
    income: int
    hideout_slot: bool
    x: float
    y: float
    parent_id: int | None
    has_map: bool
    entry: bool
    owner_player_id: int | None
    hideout: bool
    events: list[int] = []


class PathIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    from_id: int
    to_id: int
    one_way: bool = False


class PathPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    one_way: bool | None = None
    reverse: bool = False


class PathOut(BaseModel):
    id: int
    from_id: int
    to_id: int
    one_way: bool


class MapImageOut(BaseModel):
    url: str
    original_url: str | None
    width: int
    height: int


class BreadcrumbOut(BaseModel):
    id: int
    name: str


class MapOut(BaseModel):
    of: int | None
    name: str
    image: MapImageOut | None
    breadcrumbs: list[BreadcrumbOut]
    places: list[PlaceOut]
    paths: list[PathOut]
    warband_positions: list[dict] = []

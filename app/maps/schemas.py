from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.types import Between, Flag, Id, Name


class PlaceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Name(80)]
    description: str = Field(default="", max_length=20_000)
    income: Annotated[int, Between(0, 100_000)] = 0
    hideout_slot: Flag = False
    x: Annotated[float, Between(0, 100)] | None = Field(
        default=None, description="Percent of the map's width; omit for a free spot"
    )
    y: Annotated[float, Between(0, 100)] | None = Field(
        default=None, description="Percent of the map's height; omit for a free spot"
    )
    parent_id: Id | None = None
    entry: Flag = False


class BulkPlaceIn(BaseModel):
    """A place of a list added at once (R12.14): laid out on its map by the server."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Name(80)]
    description: str = Field(default="", max_length=20_000)
    income: Annotated[int, Between(0, 100_000)] = 0
    hideout_slot: Flag = False
    parent_id: Id | None = None


class PlacesBulkIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    places: list[BulkPlaceIn] = Field(min_length=1, max_length=200)


class PlacePatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Name(80)] | None = None
    description: str | None = Field(default=None, max_length=20_000)
    income: Annotated[int, Between(0, 100_000)] | None = None
    hideout_slot: Flag | None = None
    x: Annotated[float, Between(0, 100)] | None = None
    y: Annotated[float, Between(0, 100)] | None = None
    parent_id: Id | None = None
    entry: Flag | None = None
    has_map: Flag | None = None


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


class PlacesOut(BaseModel):
    items: list[PlaceOut]
    crowded: list[str] = []  # R12.14: new places the full map could not keep apart (move them)


class PathIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    from_id: Id
    to_id: Id
    one_way: Flag = False


class PathPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    one_way: Flag | None = None
    reverse: Flag = False


# --- page forms: the map editor's, with the map they go back to (`of`) -------------------


class MapForm(BaseModel):
    """Which map a form goes back to: the place whose map it is, none for the campaign map."""

    of: Id | None = None


class BulkForm(MapForm):
    """The map editor's pasted list: one place per line (`name; income; ⚑`), onto the map `of`."""

    lines: str = Field(default="", max_length=40_000)


class PathForm(PathIn, MapForm):
    """Draw a path from the map's sheet: the API's PathIn."""


class PathChangeForm(MapForm):
    """The sheet's path buttons: make it one-way or two-way, or reverse it (the API's PathPatch)."""

    action: Literal["one_way", "two_way", "reverse"]

    def patch(self) -> PathPatch:
        return PathPatch(one_way={"one_way": True, "two_way": False}.get(self.action), reverse=self.action == "reverse")


class MoveForm(BaseModel):
    """Dragging a marker: its new position in percent of the map (the API's PlacePatch x, y)."""

    x: Annotated[float, Between(0, 100)]
    y: Annotated[float, Between(0, 100)]


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

from __future__ import annotations

from sqlalchemy import CheckConstraint, UniqueConstraint
from sqlmodel import Field, SQLModel


class Place(SQLModel, table=True):
    __tablename__ = "place"
    __table_args__ = (
        CheckConstraint("x >= 0 AND x <= 100 AND y >= 0 AND y <= 100", name="position"),
        CheckConstraint("income >= 0", name="income_nonnegative"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    parent_id: int | None = Field(default=None, foreign_key="place.id", index=True, ondelete="CASCADE")
    name: str = Field(max_length=80)
    description: str = ""
    income: int = 0
    hideout_slot: bool = False
    # Position on its map, in percent of the map's width and height.
    x: float = 50.0
    y: float = 50.0
    owner_player_id: int | None = Field(default=None, foreign_key="player.id", index=True)
    has_map: bool = False
    entry: bool = False
    # The place's own map image (see core/images.py); None draws the built-in background.
    map_image: str | None = Field(default=None, max_length=64)
    map_original: str | None = Field(default=None, max_length=64)
    map_width: int | None = None
    map_height: int | None = None


class Path(SQLModel, table=True):
    """A path between two places on one map (paths module, R9.7); two-way unless one_way,
    in which case it leads from `from_place_id` to `to_place_id`."""

    __tablename__ = "path"
    __table_args__ = (
        UniqueConstraint("from_place_id", "to_place_id"),
        CheckConstraint("from_place_id <> to_place_id", name="distinct_ends"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    from_place_id: int = Field(foreign_key="place.id", index=True, ondelete="CASCADE")
    to_place_id: int = Field(foreign_key="place.id", index=True, ondelete="CASCADE")
    one_way: bool = False


class Hideout(SQLModel, table=True):
    """A player's hideout at a place; the unique place makes concurrent claims safe."""

    __tablename__ = "hideout"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    place_id: int = Field(foreign_key="place.id", unique=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    round: int = 0

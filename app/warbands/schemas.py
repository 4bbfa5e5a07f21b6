from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.core.types import Id, Name


class WarbandIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Name(80)]
    model_ids: list[Id] = Field(default_factory=list, max_length=100)
    mercenary: str | None = Field(default=None, max_length=120)
    # With the movement module: the hideout where it gathers (default: the player's first).
    location_place_id: Id | None = None


class WarbandPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Name(80)] | None = None
    model_ids: list[Id] | None = Field(default=None, max_length=100)
    mercenary: str | None = Field(default=None, max_length=120)


class OrderIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    event_id: Id | None = None
    place_id: Id | None = None


# --- page forms: the API's shapes with what only the pages post -------------------------


class WarbandForm(WarbandIn):
    """The builder's Save: the API's WarbandIn, and the warband being edited (none for a new one)."""

    warband_id: Id | None = None


class WarbandCheckForm(BaseModel):
    """The builder's live check: the ticked models and the mercenary; the name is only shown
    again, so it is not checked here."""

    model_config = ConfigDict(extra="ignore")
    warband_id: Id | None = None
    model_ids: list[Id] = Field(default_factory=list, max_length=100)
    mercenary: str | None = Field(default=None, max_length=120)


class TakeOutForm(BaseModel):
    """The one-tap button that takes a model that cannot fight out of its warband (R4.7)."""

    model_id: Id


class SendForm(BaseModel):
    """The send page's one choice, "event:12" or "place:3": the API's OrderIn from one field."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["event", "place"]
    number: Id

    @model_validator(mode="before")
    @classmethod
    def _target(cls, data):
        if isinstance(data, dict) and "target" in data:
            kind, _sep, number = str(data["target"]).partition(":")
            return {"kind": kind, "number": number}
        return data

    def order(self) -> OrderIn:
        return OrderIn(**{f"{self.kind}_id": self.number})


class ProblemOut(BaseModel):
    code: str
    message: str


class WarbandOut(BaseModel):
    id: int
    player_id: int
    name: str
    points: int
    model_ids: list[int]
    mercenary: str | None
    location_place_id: int | None = None
    problems: list[ProblemOut]
    order: OrderOut | None = None


class OrderOut(BaseModel):
    warband_id: int
    player_id: int
    round: int
    event_id: int | None
    place_id: int
    points: int
    # With the movement module: where the warband set out from (R9.8).
    from_place_id: int | None = None


class PositionIn(BaseModel):
    """The GM places a warband (a scattered one, or a correction) — R9.8."""

    model_config = ConfigDict(extra="forbid")
    place_id: Id


class PositionOut(BaseModel):
    """Where a warband stands (public with the movement module, R9.8); null: scattered."""

    warband_id: int
    name: str
    player_id: int
    place_id: int | None

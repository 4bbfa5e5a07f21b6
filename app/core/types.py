"""Input types shared by every API schema, page form and route: ids that fit the database's
32-bit integer columns, bounded amounts, names that are not just spaces, strict booleans.
A value outside them is a 422 (or, for an id in a path, a 404) — never a database error."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from annotated_types import Ge, GroupedMetadata, Le
from fastapi import Path, Query
from pydantic import BeforeValidator, StrictBool, StringConstraints
from pydantic_core import PydanticCustomError

from app.core.errors import DomainError

MAX_ID = 2**31 - 1  # PostgreSQL `integer`
MAX_AMOUNT = 1_000_000


def _no_bool(value):
    """JSON `true` is not the number 1 (pydantic would take it); form strings still parse."""
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


class Between(GroupedMetadata):
    """A number within bounds, as `Annotated[int, Between(1, 10)]` (or float). The bounds come
    before the validator so that the OpenAPI document states them (minimum, maximum)."""

    def __init__(self, ge: float | None = None, le: float | None = None) -> None:
        self.ge = ge
        self.le = le

    def __iter__(self) -> Iterator[object]:
        if self.ge is not None:
            yield Ge(self.ge)
        if self.le is not None:
            yield Le(self.le)
        yield BeforeValidator(_no_bool)


Id = Annotated[int, Between(1, MAX_ID)]
Money = Annotated[int, Between(0, MAX_AMOUNT)]
PathId = Annotated[int, Path(ge=1, le=MAX_ID)]
Amount = Annotated[int, Between(-MAX_AMOUNT, MAX_AMOUNT)]
Flag = StrictBool


def whole_number(value, low: int, high: int) -> int:
    """A whole number within bounds, for settings kept as JSON (house rules, settlement steps)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise DomainError("field_not_integer")
    if value < low:
        raise DomainError("field_too_small", min=low)
    if value > high:
        raise DomainError("field_too_large", max=high)
    return value


def Name(max_length: int) -> StringConstraints:
    """A name or title, as `Annotated[str, Name(80)]`: surrounding spaces go first, then it must
    keep at least one character."""
    return StringConstraints(strip_whitespace=True, min_length=1, max_length=max_length)


def QueryId(default=None):
    return Query(default, ge=1, le=MAX_ID)


def QueryRound(default=None):
    return Query(default, ge=0, le=100_000)


def QueryPage(default=1):
    return Query(default, ge=1, le=100_000)

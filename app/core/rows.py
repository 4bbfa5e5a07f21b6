"""A row by its id, as `Session.get` answers it, with its statement built once per class.

`Session.get` looks the row up in the session first and, when it is not there, builds a new
select of it, with its cache key, on every call: the use cases ask it for the ids in a
request's path (a warband, a place, a player, the campaign), so every write built one or more
(issue 37). Here the session is asked first in the same way, and a missing or expired row is
read by a statement built once for its class."""

from __future__ import annotations

import functools
from typing import Any, TypeVar, cast

from sqlalchemy import Select, bindparam, inspect, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.util import identity_key

T = TypeVar("T")


@functools.cache
def _by_id(cls: Any) -> Select:
    key: Any
    (key,) = inspect(cls).primary_key  # every table here has one column for its id
    return select(cls).where(key == bindparam("row_id"))


def row_by_id(session: Session, cls: type[T], row_id: Any) -> T | None:
    """`session.get(cls, row_id)`: the session's own object when it holds it loaded, else the
    row read (None when there is none)."""
    held = session.identity_map.get(identity_key(cls, row_id))
    if held is not None and not inspect(held).expired:
        return held if isinstance(held, cls) else None
    return session.execute(_by_id(cast(Any, cls)), {"row_id": row_id}).scalars().first()

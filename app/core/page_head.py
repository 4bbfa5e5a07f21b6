"""The few small values every campaign page asks for as it is drawn (issue 37): the unread
letters' badge, the phase's deadline, the point the live stream resumes from. Each is its
module's own one-value statement; read one by one they cost a round trip each on every page
(a quarter of a millisecond of CPU each on PostgreSQL). The first one a request asks for reads
them all in one statement, each as a scalar subquery, and keeps every value on the request's
viewer, where the module's `kept` finds it.

Modules plug what their pages will ask into `head_reads` (app/wiring.py): for a viewer, their
read or None. Each read keeps its module's statement and parameter names: they are renamed
here, once for each set of reads; the same read, alone, is its own statement."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import Select, bindparam, select
from sqlalchemy.sql.elements import BindParameter
from sqlalchemy.sql.visitors import replacement_traverse
from sqlmodel import Session

from app.core.db import read_rows
from app.core.ports import Port

_DONE = "_page_head_read"


@dataclass(frozen=True)
class HeadRead:
    """One value of the page head: where it is kept on the viewer, and the statement of one row
    and one column that reads it, built once (its identity is its part of the cache key)."""

    name: str
    statement: Select
    params: dict[str, Any]


head_reads = Port[Callable[[Any], HeadRead | None]]("page head reads")


def kept_in_head(session: Session, viewer: Any, read: HeadRead) -> Any:
    """`visibility.kept` for a value of the page head: the first such value a request asks
    for reads every one not known yet, together. Asked again after it was forgotten (a letter
    was just read), or when no module plugged it for this viewer, it is read alone."""
    known = viewer.__dict__
    if read.name not in known and _DONE not in known:
        known[_DONE] = True
        _read_all(session, viewer)
    if read.name not in known:
        known[read.name] = read_rows(session, read.statement, read.params).scalar()
    return known[read.name]


def _read_all(session: Session, viewer: Any) -> None:
    plugged = (read_of(viewer) for read_of in head_reads())
    reads = [read for read in plugged if read is not None and read.name not in viewer.__dict__]
    if not reads:
        return
    statement = _together(tuple((read.name, read.statement) for read in reads))
    params = {f"{read.name}__{key}": value for read in reads for key, value in read.params.items()}
    row = read_rows(session, statement, params).one()
    for read, value in zip(reads, row, strict=True):
        viewer.__dict__[read.name] = value


@lru_cache(maxsize=64)
def _together(parts: tuple[tuple[str, Select], ...]) -> Select:
    """One statement of one row: each part a scalar subquery, its parameters prefixed with its
    name (two modules may both say `campaign_id`)."""
    columns = []
    for name, statement in parts:
        renamed = cast(Select, replacement_traverse(statement, {}, _prefixed(f"{name}__")))
        columns.append(renamed.scalar_subquery().label(name.strip("_")))
    return select(*columns)


def _prefixed(prefix: str) -> Callable[..., Any]:
    def rename(element: Any, **_kw: Any) -> Any:
        # Only the parameters the caller names; a value written into the statement stays.
        if isinstance(element, BindParameter) and element.value is None and element.callable is None:
            return bindparam(prefix + element.key, type_=element.type)
        return None

    return rename

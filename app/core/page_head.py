"""The few small values every campaign page asks for as it is drawn (issue 37): the unread
letters' badge, the phase's deadline, the point the live stream resumes from. Each is its
module's own one-value statement; read one by one they cost a round trip each on every page
(a quarter of a millisecond of CPU each on PostgreSQL). The first one a request asks for reads
them all in one statement, each as a scalar subquery, and keeps every value on the request's
viewer, where the module's `kept` finds it.

Modules plug what their pages will ask into `head_reads` (app/wiring.py): for a viewer, their
read or None. Each read keeps its module's statement and parameter names: they are renamed
here, once for each set of reads; the same read, alone, is its own statement.

A viewer's pages ask the same head visit after visit, so it can come in the statement of the
page's login, a round trip less (`expected`, `read_with`, `prefill`): the reads this login's
pages of the campaign made last time are added to that statement as columns, and their values
are taken only if the viewer the login finds makes exactly those reads (the same names,
statements and parameters). Otherwise (a seat changed, the phase moved on, a first visit) the
head is read when first asked, as before, and those reads are remembered for the next visit.
Only which reads a login's pages made is remembered, never a value."""

from __future__ import annotations

from collections.abc import Callable, Hashable
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
_SHAPE_KEY = "_page_head_shape_key"
_WITH_LOGIN = "_page_head_with_login"
# The reads of each (campaign, login)'s pages, as last made: at most SHAPES_KEPT, then all
# forgotten at once (each page whose reads were forgotten reads its head alone once more).
_SHAPES: dict[Hashable, tuple[HeadRead, ...]] = {}
SHAPES_KEPT = 4096


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
    plugged = _plugged(viewer)
    key = viewer.__dict__.get(_SHAPE_KEY)
    if key is not None:
        if len(_SHAPES) >= SHAPES_KEPT:
            _SHAPES.clear()
        _SHAPES[key] = plugged
    reads = [read for read in plugged if read.name not in viewer.__dict__]
    if not reads:
        return
    row = read_rows(session, _together(_parts(reads)), _params(reads)).one()
    for read, value in zip(reads, row, strict=True):
        viewer.__dict__[read.name] = value


def _plugged(viewer: Any) -> tuple[HeadRead, ...]:
    return tuple(read for read in (read_of(viewer) for read_of in head_reads()) if read is not None)


def expected(key: Hashable) -> tuple[HeadRead, ...]:
    """The reads the pages of this (campaign, login) made last time; none when not known."""
    return _SHAPES.get(key, ())


def read_with(statement: Select, reads: tuple[HeadRead, ...]) -> tuple[Select, dict[str, Any]]:
    """`statement` with the head `reads` as columns after its own, and their parameters."""
    if not reads:
        return statement, {}
    return _with_columns(statement, _parts(reads)), _params(reads)


def prefill(viewer: Any, key: Hashable, reads: tuple[HeadRead, ...], values: tuple) -> None:
    """The viewer's head from `values`, read by `reads` with its login, when those are the
    reads this viewer makes; otherwise nothing (read when first asked). The reads its head is
    read by are remembered under `key` then."""
    known = viewer.__dict__
    known[_SHAPE_KEY] = key
    if not reads or _DONE in known:
        return
    own = _plugged(viewer)
    if len(own) != len(reads) or not all(map(_same, own, reads)):
        return
    known[_DONE] = True
    known[_WITH_LOGIN] = True
    for read, value in zip(reads, values, strict=True):
        known.setdefault(read.name, value)


def came_with_login(viewer: Any) -> bool:
    """Whether the viewer's head was read in its login's statement, with its campaign's row
    (one statement sees one state of the database, whatever the isolation level)."""
    return viewer.__dict__.get(_WITH_LOGIN, False)


def _same(one: HeadRead, other: HeadRead) -> bool:
    return one.name == other.name and one.statement is other.statement and one.params == other.params


def _parts(reads) -> tuple[tuple[str, Select], ...]:
    return tuple((read.name, read.statement) for read in reads)


def _params(reads) -> dict[str, Any]:
    return {f"{read.name}__{key}": value for read in reads for key, value in read.params.items()}


@lru_cache(maxsize=64)
def _together(parts: tuple[tuple[str, Select], ...]) -> Select:
    """One statement of one row: the parts' columns (`_columns`)."""
    return select(*_columns(parts))


@lru_cache(maxsize=64)
def _with_columns(statement: Select, parts: tuple[tuple[str, Select], ...]) -> Select:
    return statement.add_columns(*_columns(parts))


@lru_cache(maxsize=64)
def _columns(parts: tuple[tuple[str, Select], ...]) -> tuple:
    """Each part a scalar subquery, its parameters prefixed with its name (two modules may both
    say `campaign_id`)."""
    columns = []
    for name, statement in parts:
        renamed = cast(Select, replacement_traverse(statement, {}, _prefixed(f"{name}__")))
        columns.append(renamed.scalar_subquery().label(name.strip("_")))
    return tuple(columns)


def _prefixed(prefix: str) -> Callable[..., Any]:
    def rename(element: Any, **_kw: Any) -> Any:
        # Only the parameters the caller names; a value written into the statement stays.
        if isinstance(element, BindParameter) and element.value is None and element.callable is None:
            return bindparam(prefix + element.key, type_=element.type)
        return None

    return rename

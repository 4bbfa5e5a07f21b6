"""One way to cut a list into pages (API.md: `?page=&per_page=` answering items, page, pages,
total): the slice and the count of the whole list in one statement, whatever the list's size."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import ceil
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends, Query
from pydantic import BaseModel
from sqlalchemy import bindparam, func, literal_column
from sqlmodel import Session, select

from app.core.db import read_rows

MAX_PER_PAGE = 200
MAX_PAGE = 100_000
T = TypeVar("T")


@dataclass
class Page:
    items: list
    page: int
    pages: int
    total: int


class Listing:
    """A list's statement built once, with bind parameters (a module's constant), and with it its
    page-and-count statement and its count: a page that lists on every visit builds none of
    them again (issue 37: building them cost each visit about 80 µs of SQLAlchemy)."""

    __slots__ = ("count", "paged", "query", "width")

    def __init__(self, query: Any) -> None:
        self.query = query
        # The count as an uncorrelated subquery, worked out once: a window count (`count() over ()`)
        # would hold every row of the list to count them before the slice is taken.
        # It selects nothing but a constant: SQLite would read every column of the list for it.
        listed = query.order_by(None).with_only_columns(literal_column("1"), maintain_column_froms=True)
        self.count = select(func.count()).select_from(listed.subquery())
        self.paged = (
            query.add_columns(self.count.scalar_subquery().label("page_total"))
            .offset(bindparam("page_offset"))
            .limit(bindparam("page_limit"))
        )
        self.width = len(query.column_descriptions)  # entities and columns asked for, not table columns


def paginate(
    session: Session, query: Any, *, page: int = 1, per_page: int = 50, params: dict | None = None, rows: bool = False
) -> Page:
    """`query` is a select() already filtered and ordered (of one entity or column: the items are
    those; of several: tuples of them), or a `Listing` of one with its bind parameters in
    `params`. Each row of the slice carries the count of the whole selection, so the page and
    the total are one statement, not two (issue 37: the chronicle, the letters and the ledger,
    on every visit). A page past the end has no row to carry it: it is counted alone. `rows`:
    a one-entity list's items as plain rows with the entity's attributes, for a page that only
    shows them (thirty ORM objects cost the chronicle's page more than its statement)."""
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    page = max(1, page)
    listing = query if isinstance(query, Listing) else Listing(query)
    params = params or {}
    sliced = {**params, "page_offset": (page - 1) * per_page, "page_limit": per_page}
    # session.execute, not exec: exec would answer a one-entity select's first column only.
    found = (read_rows(session, listing.paged, sliced) if rows else session.execute(listing.paged, sliced)).all()
    if found:
        total = found[0][-1]
    elif page == 1:
        total = 0
    else:
        total = session.exec(listing.count, params=params).one()
    width = listing.width
    items = list(found) if rows else [row[0] if width == 1 else tuple(row[:width]) for row in found]
    return Page(items=items, page=page, pages=max(1, ceil(total / per_page)), total=total)


@dataclass(frozen=True)
class PageQuery:
    """`?page=&per_page=` of a list route, read once for every list (a dependency)."""

    page: int
    per_page: int


async def page_query(page: int = Query(1, ge=1, le=MAX_PAGE), per_page: int = Query(50, ge=1, le=MAX_PER_PAGE)) -> PageQuery:
    return PageQuery(page, per_page)


Paging = Annotated[PageQuery, Depends(page_query)]


class PageOut(BaseModel, Generic[T]):
    """Every paginated answer (API.md): a named subclass per list keeps its schema's name
    (`class BattlePage(PageOut[BattleOut])`) and may add figures of its own."""

    items: list[T]
    page: int
    pages: int
    total: int

    @classmethod
    def of(cls, found: Page, convert: Callable[[Any], Any] = lambda item: item, **extra: Any):
        return cls(items=[convert(item) for item in found.items], page=found.page, pages=found.pages, total=found.total, **extra)

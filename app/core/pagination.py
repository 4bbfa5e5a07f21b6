"""One way to cut a list into pages (API.md: `?page=&per_page=` answering items, page, pages,
total): the slice and the count of the whole list in one statement, whatever the list's size."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import ceil
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends, Query
from pydantic import BaseModel
from sqlalchemy import func, literal_column
from sqlmodel import Session, select

MAX_PER_PAGE = 200
MAX_PAGE = 100_000
T = TypeVar("T")


@dataclass
class Page:
    items: list
    page: int
    pages: int
    total: int


def paginate(session: Session, query: Any, *, page: int = 1, per_page: int = 50) -> Page:
    """`query` is a select() already filtered and ordered (of one entity or column: the items are
    those; of several: tuples of them). Each row of the slice carries the count of the whole
    selection, so the page and the total are one statement, not two (issue
    37: the chronicle, the letters and the ledger, on every visit). A page past the end has no
    row to carry it: it is counted alone."""
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    page = max(1, page)
    # The count as an uncorrelated subquery, worked out once: a window count (`count() over ()`)
    # would hold every row of the list to count them before the slice is taken.
    # It selects nothing but a constant: SQLite would read every column of the list for it.
    listed = query.order_by(None).with_only_columns(literal_column("1"), maintain_column_froms=True)
    count = select(func.count()).select_from(listed.subquery())
    # session.execute, not exec: exec would answer a one-entity select's first column only.
    rows = session.execute(
        query.add_columns(count.scalar_subquery().label("page_total")).offset((page - 1) * per_page).limit(per_page)
    ).all()
    if rows:
        total = rows[0][-1]
    elif page == 1:
        total = 0
    else:
        total = session.exec(count).one()
    width = len(query.column_descriptions)  # entities and columns asked for, not table columns
    items = [row[0] if width == 1 else tuple(row[:width]) for row in rows]
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

"""One way to cut a list into pages (API.md: `?page=&per_page=` answering items, page, pages,
total): the count and the slice are two statements, whatever the list's size."""
from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

MAX_PER_PAGE = 200


@dataclass
class Page:
    items: list
    page: int
    pages: int
    total: int


def paginate(session: Session, query: Any, *, page: int = 1, per_page: int = 50) -> Page:
    """`query` is a select() already filtered and ordered; it is counted, then sliced."""
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    page = max(1, page)
    total = session.exec(select(func.count()).select_from(query.order_by(None).subquery())).one()
    items = list(session.exec(query.offset((page - 1) * per_page).limit(per_page)).all())
    return Page(items=items, page=page, pages=max(1, ceil(total / per_page)), total=total)

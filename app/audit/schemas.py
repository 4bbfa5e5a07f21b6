"""The audit trail's API shapes (R12.9)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from app.core.pagination import PageOut


class AuditEntryOut(BaseModel):
    id: int
    at: datetime
    actor_nickname: str
    action: str
    target: str
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    undone: bool
    undoable: bool
    why_not: str | None = None  # where it cannot be undone, why (in the reader's language)


class AuditPage(PageOut[AuditEntryOut]):
    pass

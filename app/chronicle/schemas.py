"""API input and output shapes."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from app.core.pagination import PageOut


class ChronicleOut(BaseModel):
    id: int
    round: int
    phase: str | None
    kind: str
    text: str
    created_at: datetime


class ChroniclePage(PageOut[ChronicleOut]):
    pass

"""API input and output shapes."""
from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel


class ChronicleOut(BaseModel):
    id: int
    round: int
    phase: str | None
    kind: str
    text: str
    created_at: datetime


class ChroniclePage(BaseModel):
    items: list[ChronicleOut]
    page: int
    pages: int
    total: int

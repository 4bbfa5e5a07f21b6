"""API input and output shapes."""

from __future__ import annotations

from pydantic import BaseModel

from app.catalog.catalog import ProfileData


class FactionOut(BaseModel):
    key: str
    name: str
    alignment: str


class FactionDetail(FactionOut):
    profiles: list[ProfileData]

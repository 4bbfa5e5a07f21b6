from __future__ import annotations

from pydantic import BaseModel


class StandingOut(BaseModel):
    player_id: int
    nickname: str
    places: int
    hideouts: int
    battles_fought: int
    battles_won: int
    xp: int | None  # the company's: for its owner and the GM only (R11.2), else null
    gold_spent: int | None


class StandingsOut(BaseModel):
    items: list[StandingOut]


class ScreenLinkOut(BaseModel):
    id: int
    url: str


class CalendarLinkOut(BaseModel):
    url: str

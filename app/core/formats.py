"""Dates, times and numbers as the reader says them (SPEC R11.3, issue 34): Babel's formats in
the reader's language, moments in the reader's time zone (the account's, else UTC).

Templates use one filter per kind (core/templating.py): `moment|datetime`, `moment|date`,
`n|number`; Python code (the digest mail, the deadline) calls these functions."""

from __future__ import annotations

from datetime import UTC, date, datetime, tzinfo
from functools import lru_cache
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from babel.dates import format_date, format_time, get_datetime_format
from babel.numbers import format_decimal

from app.core.db import aware

Width = Literal["full", "long", "medium", "short"]  # Babel's names of a format's length

DEFAULT_ZONE = "UTC"
ZONE_NAME_MAX = 64


def valid_time_zone(name: str) -> bool:
    """An IANA time zone name zoneinfo knows ("Europe/Warsaw"); nothing read from a path."""
    if not name or len(name) > ZONE_NAME_MAX or name.startswith(("/", ".")) or ".." in name:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


@lru_cache(maxsize=512)
def zone(name: str | None) -> tzinfo:
    """The reader's time zone, UTC when none (or an unknown one) is set."""
    return ZoneInfo(name) if name and valid_time_zone(name) else UTC


def time_zone_names() -> list[str]:
    """Every IANA zone name, for the account page's suggestions."""
    return sorted(available_timezones())


# A page says the same moments again on every drawing (a chronicle's twenty entries, a battle's
# times): Babel's formatting of one cost about 20 µs, a tenth of drawing the chronicle (issue
# 37). The strings depend on nothing but the arguments; a few thousand of them are kept.
FORMATTED_KEPT = 4096


def when(moment: datetime | None, locale: str, time_zone: str | None = None, width: Width = "medium") -> str:
    """A moment, date and time, in the reader's language and time zone: "2 gru 2026, 14:05"."""
    return "" if moment is None else _when(moment, locale, time_zone, width)


@lru_cache(maxsize=FORMATTED_KEPT)
def _when(moment: datetime, locale: str, time_zone: str | None, width: Width) -> str:
    local = aware(moment).astimezone(zone(time_zone))
    # The locale's own way of joining a day and a time ("{1}, {0}", "{1} в {0}"), to the minute.
    joined = str(get_datetime_format(width, locale=locale)).replace("'", "")
    return joined.replace("{0}", format_time(local, "short", locale=locale)).replace(
        "{1}", format_date(local, width, locale=locale)
    )


def day(moment: datetime | date | None, locale: str, time_zone: str | None = None, width: Width = "medium") -> str:
    """A day in the reader's language, a moment's day in the reader's time zone: "2 дек. 2026 г."."""
    return "" if moment is None else _day(moment, locale, time_zone, width)


@lru_cache(maxsize=FORMATTED_KEPT)
def _day(moment: datetime | date, locale: str, time_zone: str | None, width: Width) -> str:
    if isinstance(moment, datetime):
        moment = aware(moment).astimezone(zone(time_zone)).date()
    return format_date(moment, width, locale=locale)


def number(value: float | int | None, locale: str) -> str:
    """A number with the reader's separators: 12 500 in Polish, 12,500 in English."""
    return "" if value is None else _number(value, locale)


@lru_cache(maxsize=FORMATTED_KEPT, typed=True)  # 2 and 2.0 are one key otherwise
def _number(value: float | int, locale: str) -> str:
    return format_decimal(value, locale=locale)


def zone_label(time_zone: str | None) -> str:
    """The zone's name as a page says it after a time ("UTC", "Europe/Warsaw")."""
    return time_zone if time_zone and valid_time_zone(time_zone) else DEFAULT_ZONE

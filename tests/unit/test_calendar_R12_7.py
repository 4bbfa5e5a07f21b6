"""R12.7, the calendar feed's text (app/archive/calendar.py, RFC 5545): lines folded at 75
octets without splitting a character, text values escaped, one VEVENT per event with its URL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import icalendar

from app.archive import calendar


def test_r12_7_long_lines_fold_at_75_octets_and_keep_every_character():
    line = "SUMMARY:" + "Żółć, gęś; " * 20
    folded = calendar._fold(line)
    assert all(len(part.encode()) <= 75 for part in folded.split("\r\n"))
    assert folded.replace("\r\n ", "") == line


def test_r12_7_text_is_escaped_and_the_feed_parses():
    campaign = SimpleNamespace(id=7, name="Winter; of, the\nCrown\\")
    start = datetime(2026, 12, 1, 18, tzinfo=UTC)
    events = [calendar.CalendarEvent("phase-1", start, start + timedelta(hours=2), "Round 1: Orders, at last; go")]
    text = calendar.ics(campaign, events, "https://club.example/campaigns/7", "club.example", start)
    cal = icalendar.Calendar.from_ical(text)
    [event] = cal.walk("VEVENT")
    assert str(event["SUMMARY"]) == "Round 1: Orders, at last; go"
    assert str(event["DESCRIPTION"]) == "Winter; of, the\nCrown\\"
    assert str(event["URL"]) == "https://club.example/campaigns/7" and str(event["UID"]) == "phase-1-c7@club.example"
    assert event.decoded("DTSTART") == start and text.endswith("END:VCALENDAR\r\n")

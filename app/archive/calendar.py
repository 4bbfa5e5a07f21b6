"""R12.7: a member's calendar feed — the campaign's phases and deadlines as iCalendar events
(RFC 5545, written here by hand: no library at run time), each linking back to the campaign.
Everything in it comes from the public chronicle: when each phase began (the campaign's start,
each phase change, each round's end) and each deadline set and not lifted."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlmodel import Session, select

from app.campaigns.models import Campaign
from app.campaigns.rules import PHASE_NAMES
from app.chronicle.models import ChronicleEntry

STARTS = ("campaign_started", "phase_changed", "round_ended")
DEADLINES = ("deadline_set", "deadline_cleared")
OPEN_PHASE = timedelta(days=1)  # how long the phase still under way is drawn, without a deadline
DEADLINE_LENGTH = timedelta(minutes=15)


@dataclass
class CalendarEvent:
    uid: str
    start: datetime
    end: datetime
    summary: str


def _utc(at: datetime) -> datetime:
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def _phase_start(entry: ChronicleEntry) -> tuple[int, str] | None:
    params = entry.params if isinstance(entry.params, dict) else {}
    if entry.kind == "campaign_started":
        return 1, "preparation"
    if entry.kind == "phase_changed" and isinstance(params.get("round"), int) and params.get("to_phase") in PHASE_NAMES:
        return params["round"], params["to_phase"]
    if entry.kind == "round_ended" and isinstance(params.get("next"), int):
        return params["next"], "preparation"
    return None


def events(session: Session, campaign: Campaign, gettext) -> list[CalendarEvent]:
    """The phases (each until the next began) and the deadlines, oldest first."""
    rows = session.exec(
        select(ChronicleEntry)
        .where(ChronicleEntry.campaign_id == campaign.id, ChronicleEntry.kind.in_((*STARTS, *DEADLINES, "campaign_finished")))
        .order_by(ChronicleEntry.id)
    ).all()
    phases: list[tuple[ChronicleEntry, int, str]] = []
    deadlines: dict[tuple[int, str], tuple[ChronicleEntry, datetime] | None] = {}
    finished_at = None
    for entry in rows:
        started = _phase_start(entry)
        if started:
            phases.append((entry, *started))
        elif entry.kind == "campaign_finished":
            finished_at = _utc(entry.created_at)
        elif entry.kind in DEADLINES:
            params = entry.params if isinstance(entry.params, dict) else {}
            key = (entry.round, str(params.get("deadline_phase") or entry.phase))
            deadlines[key] = (entry, _deadline_at(params)) if entry.kind == "deadline_set" else None
    found = []
    for i, (entry, round_, phase) in enumerate(phases):
        start = _utc(entry.created_at)
        if i + 1 < len(phases):
            end = _utc(phases[i + 1][0].created_at)
        else:
            kept = deadlines.get((round_, phase))
            end = finished_at or (kept[1] if kept and kept[1] else None) or start + OPEN_PHASE
        name = gettext("Round %(n)s: %(phase)s") % {"n": round_, "phase": gettext(PHASE_NAMES[phase])}
        found.append(CalendarEvent(f"phase-{entry.id}", start, max(end, start + timedelta(minutes=1)), name))
    for (round_, phase), kept in deadlines.items():
        if kept is None or kept[1] is None or phase not in PHASE_NAMES:
            continue
        entry, at = kept
        name = gettext("Deadline: %(phase)s of round %(n)s ends") % {"n": round_, "phase": gettext(PHASE_NAMES[phase])}
        found.append(CalendarEvent(f"deadline-{entry.id}", at, at + DEADLINE_LENGTH, name))
    return sorted(found, key=lambda e: (e.start, e.uid))


def _deadline_at(params: dict) -> datetime | None:
    try:
        return _utc(datetime.fromisoformat(str(params.get("ends_at"))))
    except ValueError:
        return None


def _text(value: str) -> str:
    return value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\r", "").replace("\n", "\\n")


def _fold(line: str) -> str:
    """RFC 5545 3.1: lines of at most 75 octets, continued with a space."""
    out, chunk = [], ""
    for ch in line:
        if len((chunk + ch).encode()) > (75 if not out else 74):
            out.append(chunk)
            chunk = ""
        chunk += ch
    out.append(chunk)
    return "\r\n ".join(out)


def _stamp(at: datetime) -> str:
    return _utc(at).strftime("%Y%m%dT%H%M%SZ")


def ics(campaign: Campaign, found: list[CalendarEvent], url: str, host: str, now: datetime) -> str:
    """The feed as text/calendar: one VEVENT per phase and deadline, each with the campaign's URL."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Hideout//Campaign calendar//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{_text(campaign.name)}",
    ]
    for e in found:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{e.uid}-c{campaign.id}@{host}",
            f"DTSTAMP:{_stamp(now)}",
            f"DTSTART:{_stamp(e.start)}",
            f"DTEND:{_stamp(e.end)}",
            f"SUMMARY:{_text(e.summary)}",
            f"DESCRIPTION:{_text(campaign.name)}",
            f"URL:{url}",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "".join(_fold(line) + "\r\n" for line in lines)

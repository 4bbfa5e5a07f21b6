"""The chronicle: a public, paginated log (R11.1). Only public facts are written here."""
from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from sqlalchemy import func
from sqlmodel import Session, select

from app.campaigns.models import Campaign
from app.chronicle.models import ChronicleEntry
from app.core.errors import N_

TEXTS = {
    "campaign_created": N_("%(gm)s created the campaign."),
    "player_joined": N_("%(nickname)s joined the campaign."),
    "hideouts_opened": N_("The roster is closed; hideout selection begins."),
    "hideout_claimed": N_("%(nickname)s set up a hideout at %(place)s."),
    "campaign_started": N_("The campaign begins: round 1, Preparation."),
    "phase_changed": N_("Round %(round)s: %(from_phase)s → %(to_phase)s."),
    "round_ended": N_("Round %(round)s ended; round %(next)s begins with Preparation."),
    "campaign_finished": N_("The campaign is finished."),
    "event_added": N_("A new event at %(place)s: %(title)s."),
    "event_ended": N_("The event %(title)s has ended."),
    "battle_announced": N_("Battle at %(place)s: %(warbands)s."),
    "battle_announced_event": N_("Battle at %(place)s (%(title)s): %(warbands)s."),
    "battle_won": N_("At %(place)s: victory for %(winners)s."),
    "battle_drawn": N_("At %(place)s: a draw."),
}
PHASE_PARAMS = ("from_phase", "to_phase")


def record(session: Session, campaign: Campaign, kind: str, **params) -> ChronicleEntry:
    entry = ChronicleEntry(
        campaign_id=campaign.id, round=campaign.round, phase=campaign.phase, kind=kind, params=params
    )
    session.add(entry)
    return entry


def entry_text(entry: ChronicleEntry, gettext) -> str:
    from app.campaigns.rules import PHASE_NAMES

    params = dict(entry.params)
    for key in PHASE_PARAMS:
        if key in params and params[key] in PHASE_NAMES:
            params[key] = gettext(PHASE_NAMES[params[key]])
    template = gettext(TEXTS.get(entry.kind, entry.kind))
    try:
        text = template % params
    except (KeyError, TypeError, ValueError):
        text = template
    if isinstance(params.get("rosters"), list):
        text = " ".join([text, *(_roster_text(r, gettext) for r in params["rosters"] if isinstance(r, dict))])
    return text


def _roster_text(roster: dict, gettext) -> str:
    """R6.5, R11.1: an announced battle's public rosters, mercenaries included."""
    models = []
    for m in roster.get("models", []):
        label = gettext("mercenary, %(points)s pts") if m.get("mercenary") else gettext("%(points)s pts")
        models.append(f"{m.get('name', '')} ({label % {'points': m.get('points', 0)}})")
    head = gettext("%(name)s, %(points)s pts") % {"name": roster.get("name", ""), "points": roster.get("points", 0)}
    return f"{head}: {', '.join(models)}."


@dataclass
class Page:
    items: list
    page: int
    pages: int
    total: int


def list_entries(session: Session, *, campaign_id: int, page: int = 1, per_page: int = 50) -> Page:
    per_page = max(1, min(per_page, 200))
    total = session.exec(
        select(func.count()).select_from(ChronicleEntry).where(ChronicleEntry.campaign_id == campaign_id)
    ).one()
    pages = max(1, ceil(total / per_page))
    page = max(1, page)
    items = session.exec(
        select(ChronicleEntry)
        .where(ChronicleEntry.campaign_id == campaign_id)
        .order_by(ChronicleEntry.id.desc())
        .offset((page - 1) * per_page)
        .limit(per_page)
    ).all()
    return Page(items=list(items), page=page, pages=pages, total=total)

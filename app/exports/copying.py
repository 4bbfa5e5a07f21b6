"""A campaign copied into a new draft (R12.13): its map and images, places, nested maps, paths,
settings, modules, guild settings, cover and events, and nothing of its play — no players,
invitations, gold, orders, battles or chronicle.

The copy is the export's document of those parts, read back as an import reads one (the same
checks, new image files stored under new names), without the import's seats and invitations
and without its hourly limit: the GM copies their own campaign, as from a file of it."""

from __future__ import annotations

from pathlib import Path as FsPath

from sqlmodel import Session

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.chronicle import service as chronicle
from app.core.errors import N_
from app.exports import document, reading
from app.visibility import require_gm, viewer_for

COPIED = ("places", "paths", "events")
NAME_MAX = 120
DEFAULT_NAME = N_("%(name)s (copy)")
# Where a copied event stands: added for round 1 (as an event made in a draft is) and ended
# before it began, so it is in no round's play (events.rules.is_active) until the GM reuses it.
LIBRARY_ROUND_ADDED, LIBRARY_ENDED_ROUND = 1, 0
# What a new draft starts with, whatever the copied campaign had reached.
DRAFT = {"status": "setup", "round": 0, "phase": None, "started_at": None, "finished_at": None}


def copy_name(source: str, pattern: str) -> str:
    """`pattern` ("%(name)s (copy)", in the GM's words) filled with the source's name, which
    is shortened so that the whole fits a campaign name."""
    spare = NAME_MAX - len(pattern % {"name": ""})
    return pattern % {"name": source[: max(spare, 1)].rstrip()}


def copy_campaign(
    session: Session, *, actor: User, campaign_id: int, media_dir: FsPath, name: str | None, pattern: str = DEFAULT_NAME
) -> Campaign:
    """The new draft, `actor` its GM (any campaign they run, finished ones too). Nothing is
    created unless all of it is, and the image files already stored are removed then."""
    viewer = viewer_for(session, actor, campaign_id)
    require_gm(viewer)
    source = viewer.campaign
    doc = document.partial(session, source, COPIED, media_dir=media_dir)
    doc["campaign"].update(DRAFT, name=name.strip() if name else copy_name(source.name, pattern))
    doc["campaign"].pop("created_at", None)
    for event in doc["events"]:
        event.update(round_added=LIBRARY_ROUND_ADDED, ended_round=LIBRARY_ENDED_ROUND)
        event.pop("created_at", None)
    parts = reading.check(doc)
    stored: list[FsPath] = []
    try:
        with session.begin_nested():
            campaign = reading.create(
                session, actor=actor, flat=parts, doc=doc, media_dir=media_dir, stored=stored, holders=_no_seats
            )
    except BaseException:
        for path in stored:
            path.unlink(missing_ok=True)
        raise
    chronicle.record(session, campaign, "campaign_created", gm=actor.nickname)
    return campaign


def _no_seats(nicknames: list[str]) -> list[User]:
    """A copy has no players, so it never asks for a seat's account."""
    assert not nicknames, "a campaign's copy has no players"
    return []

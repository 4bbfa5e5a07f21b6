"""R12.5 and R12.4's season book: what the club screen and the book show, read through
visibility.py — the screen as an outsider (visibility.outsider_viewer), the book as the member
who reads it, and both show only what is public: the map with its owners and hideouts, the
round's battles and results from its Battles on, the chronicle and the deadline. Never an
order, an alliance before Battles, gold, a transfer, a letter, a settlement or a ransom."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sqlalchemy import bindparam
from sqlmodel import Session, select

from app.archive import history
from app.battles import service as battles
from app.campaigns import service as campaigns
from app.campaigns.rules import PUBLIC_ORDER_PHASES, orders_public
from app.chronicle.models import ChronicleEntry
from app.maps import service as maps
from app.maps.reading import MapView, map_view
from app.season import service as season
from app.season.models import PhaseDeadline
from app.visibility import Viewer, outsider_viewer

LATEST = 8  # chronicle entries on the screen


@dataclass
class BattleLine:
    place: str
    sides: list[list[str]]  # "warband (player)" per side
    status: str
    winners: list[str]


@dataclass
class Screen:
    viewer: Viewer
    view: MapView
    battles: list[BattleLine]
    chronicle: list[ChronicleEntry]
    deadline: PhaseDeadline | None


@dataclass
class BookRound:
    round: int
    view: MapView | None
    battles: list[BattleLine] = field(default_factory=list)
    chronicle: list[ChronicleEntry] = field(default_factory=list)


def battle_lines(
    session: Session, viewer: Viewer, round_: int, names: dict[int, str], labels: Mapping[int, str]
) -> list[BattleLine]:
    """A round's battles once its Battles began (R6: public from then on), none before."""
    if not orders_public(viewer.campaign, round_):
        return []
    lines = []
    for v in battles.battles_of(session, viewer.campaign, round_, rosters=False):
        sides = [[f"{w.name} ({names.get(w.player_id, '?')})" for w in side] for side in v.sides()]
        decided = v.battle.status in battles.DECIDED_RESULTS
        winners = [names.get(p, "?") for p in v.battle.winners] if decided else []
        lines.append(BattleLine(labels.get(v.battle.place_id, "?"), sides, v.battle.status, winners))
    return lines


def screen(session: Session, campaign) -> Screen:
    viewer = outsider_viewer(campaign)
    view = map_view(session, viewer, None)
    names, labels = campaigns.nicknames(session, campaign.id), maps.labels(session, campaign.id)
    current = campaign.round if campaign.phase in PUBLIC_ORDER_PHASES else -1
    entries = session.exec(
        select(ChronicleEntry).where(ChronicleEntry.campaign_id == campaign.id).order_by(ChronicleEntry.id.desc()).limit(LATEST)
    ).all()
    return Screen(
        viewer, view, battle_lines(session, viewer, current, names, labels), list(entries), season.deadline_of(session, campaign)
    )


# Built once (issue 37: the season book built it on each visit).
_ALL_ENTRIES = select(ChronicleEntry).where(ChronicleEntry.campaign_id == bindparam("campaign_id")).order_by(ChronicleEntry.id)


def book(session: Session, viewer: Viewer) -> list[BookRound]:
    """The season round by round: each round's map as it was played (R12.6; the current
    round's as it is), its battles and results, and its chronicle (captures among it)."""
    campaign = viewer.campaign
    names, labels = campaigns.nicknames(session, campaign.id), maps.labels(session, campaign.id)
    entries = session.exec(_ALL_ENTRIES, params={"campaign_id": campaign.id}).all()
    by_round: dict[int, list[ChronicleEntry]] = {}
    for e in entries:
        by_round.setdefault(e.round, []).append(e)
    kept = set(history.kept(session, campaign.id))
    rounds = []
    for r in sorted(set(by_round) | set(range(1, campaign.round + 1))):
        view = None
        if r >= 1 and (r in kept or r == campaign.round):
            view = history.as_of(session, map_view(session, viewer, None), r)
        rounds.append(BookRound(r, view, battle_lines(session, viewer, r, names, labels), by_round.get(r, [])))
    return rounds

"""The battles' use cases by name, as callers and the wiring know them: the battle plan when
Battles begins (announce.py, R6.1-R6.7, R5.2, V9, V10), reading the battles (reading.py,
R6.5), their results (results.py, R6.8); and what a place's battles forbid."""

from __future__ import annotations

from sqlmodel import Session, select

from app.battles.announce import GroupsOf, announce
from app.battles.models import Arrival, Battle
from app.battles.reading import (
    DECIDED_RESULTS,
    BattleView,
    arrivals_of,
    battle,
    battle_page,
    battles_of,
    listed,
    listed_arrivals,
    waiting_for,
    warband_names,
)
from app.battles.results import confirm, dispute, report, resolve
from app.campaigns.models import Campaign
from app.core.errors import DomainError

__all__ = [
    "DECIDED_RESULTS",
    "BattleView",
    "GroupsOf",
    "announce",
    "arrivals_of",
    "battle",
    "battle_page",
    "battles_of",
    "beacon_hint",
    "confirm",
    "dispute",
    "guard_place_delete",
    "listed",
    "listed_arrivals",
    "report",
    "resolve",
    "waiting_for",
    "warband_names",
]

BEACON = "light-the-beacon"


def beacon_hint(battle: Battle) -> bool:
    """R5.3: in Light the Beacon the defender may add free Grunt and Warrior models."""
    return bool(battle.roles and battle.scenario and battle.scenario.endswith(BEACON))


def guard_place_delete(session: Session, campaign: Campaign, places: dict) -> None:
    """Battles fought there belong to the campaign's history."""
    fought = session.exec(
        select(Battle.place_id).where(Battle.campaign_id == campaign.id, Battle.place_id.in_(list(places)))
    ).first()
    if fought is None:
        fought = session.exec(
            select(Arrival.place_id).where(Arrival.campaign_id == campaign.id, Arrival.place_id.in_(list(places)))
        ).first()
    if fought is not None:
        raise DomainError("place_has_battles", place=places[fought].name)

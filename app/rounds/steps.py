"""What each step of the round does beyond its own domain, and in which order (R2.1-R2.3, R6,
R7, R8, R9): the one place that says it. rounds/service.py calls these inside the step's
transaction; each domain it drives is named here, none hooks itself in."""

from __future__ import annotations

from sqlmodel import Session

from app.alliances import service as alliances
from app.archive import history
from app.battles.service import GroupsOf
from app.campaigns.models import Campaign
from app.guilds import service as guilds
from app.movement import service as movement
from app.season import service as season


def battle_groups(session: Session, campaign: Campaign) -> GroupsOf:
    """Who stands together (R6.2): guild members wherever they meet (R8.1), then mission allies
    at their event (R8.8). The battle plan and Twilight read the same answer."""
    sources = (guilds.group_source(session, campaign), alliances.group_source(session, campaign))
    return lambda player_id, event_id: [group for of in sources for group in of(player_id, event_id)]


def before_battles(session: Session, campaign: Campaign) -> None:
    """When Battles begins, before the battles are announced."""
    guilds.keep_round_members(session, campaign)  # who stood with whom this round (R6.2, R7.3)


def phase_moved(session: Session, campaign: Campaign, previous: str | None) -> None:
    """After every phase change, the GM's and a deadline's alike."""
    alliances.reveal(session, campaign, previous)  # at Battles the round's alliances are told (R8.8)
    season.drop_deadline(session, campaign)  # a deadline belongs to the phase it ends


def end_round_begins(session: Session, campaign: Campaign) -> None:
    """When End round begins, before its captures (rounds/service.py: end_round)."""
    history.keep_round(session, campaign)  # each place's owner and hideout as the round was played (R12.6)


def end_round(session: Session, campaign: Campaign) -> None:
    """During End round, after captures and place income, before expired events, lapsed
    ransoms, rest and the next round (rounds/service.py: end_round)."""
    movement.end_round(session, campaign)  # warbands move on after captures, to a held hideout (R9.8)
    guilds.pay_income(session, campaign)  # N × level, shared by the members (R8.5)
    alliances.lapse(session, campaign)  # mission alliances last one round (R8.8)
    season.drop_deadline(session, campaign)  # the next round starts without one

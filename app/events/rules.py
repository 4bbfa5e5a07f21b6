"""Pure event rules (R5.1, R5.4, R5.5)."""
from __future__ import annotations

from app.core.errors import DomainError


def last_round(round_added: int, duration: int) -> int:
    """R5.1: active in rounds added … added + duration − 1."""
    return round_added + duration - 1


def is_active(round_added: int, duration: int, ended_round: int | None, current_round: int) -> bool:
    if ended_round is not None:
        return False
    return round_added <= current_round <= last_round(round_added, duration)


def expired(round_added: int, duration: int, ended_round: int | None, next_round: int) -> bool:
    """True for an event whose last round is over once `next_round` begins."""
    return ended_round is None and last_round(round_added, duration) < next_round


def check_scenario(scenario: str | None, other_mission: str | None, known: set[str]) -> None:
    """R5.2: a catalog scenario, or Other mission with its text, or neither."""
    if scenario is not None and other_mission is not None:
        raise DomainError("event_scenario_or_mission")
    if scenario is not None and scenario not in known:
        raise DomainError("scenario_unknown", scenario=scenario)
    if other_mission is not None and not other_mission.strip():
        raise DomainError("other_mission_text")

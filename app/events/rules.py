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


# Orders stand, and can be undone, until Battles are announced (R4.6).
UNDO_PHASES = ("preparation", "orders")


def refusal_of(*, blockade: bool, points_limit: int | None, order_points: int) -> str | None:
    """R5.5: why the event, as it now is, refuses an order that stands ("blockade", "limit"),
    or None. The same checks as sending to it (R4.3, R5.4)."""
    if blockade:
        return "blockade"
    if points_limit is not None and order_points > points_limit:
        return "limit"
    return None


def check_undo_phase(phase: str | None, orders: int) -> None:
    """R5.5: after Battles are announced an edit that would refuse standing orders is refused."""
    if orders and phase not in UNDO_PHASES:
        raise DomainError("event_edit_after_battles", count=orders)

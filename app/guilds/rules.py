"""Guild arithmetic (R8.4, R8.5): pure functions of the campaign's guild settings."""

from __future__ import annotations


def upgrade_cost(level: int, level_cost: int) -> int:
    """R8.4: level N costs N × the level cost (founding is level 1)."""
    return level * level_cost


def allies_allowed(level: int) -> int:
    """R8.4 ("pozwala mieć N sojuszników"): level N allows N allies besides the founder."""
    return level


def has_room(level: int, members: int) -> bool:
    """Members counted with the founder: a level-N guild holds N + 1 players."""
    return members < allies_allowed(level) + 1


def income(level: int, level_income: int) -> int:
    """R8.5: a guild yields N × the level income each round."""
    return level * level_income


def income_share(level: int, level_income: int, members: int) -> int:
    """R8.5: the income is shared equally by all members, each share rounded up."""
    if members <= 0:
        return 0
    return -(-income(level, level_income) // members)

"""Guild arithmetic (R8.4, R8.5) as pure rules: level costs, room, income and each member's
share, rounded up."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.guilds import rules

# members × level × level income → each member's share (R8.5: N × the level income shared
# equally by all members, each share rounded up).
SHARES = [
    # members, level, income, share
    (1, 1, 10, 10),
    (2, 1, 10, 5),
    (3, 1, 10, 4),  # 10 / 3 = 3.33 → 4
    (2, 2, 10, 10),
    (3, 2, 10, 7),  # 20 / 3 = 6.67 → 7
    (4, 3, 10, 8),  # 30 / 4 = 7.5 → 8
    (4, 3, 7, 6),  # 21 / 4 = 5.25 → 6
    (3, 3, 10, 10),
    (5, 4, 3, 3),  # 12 / 5 = 2.4 → 3
    (7, 1, 1, 1),  # 1 / 7 → 1: nobody gets nothing
    (2, 5, 0, 0),  # no level income, no share
    (6, 5, 25, 21),  # 125 / 6 = 20.83 → 21
]


@pytest.mark.parametrize(("members", "level", "income", "share"), SHARES)
def test_r8_5_each_members_share_is_the_guild_income_shared_equally_rounded_up(members, level, income, share):
    assert rules.income(level, income) == level * income
    assert rules.income_share(level, income, members) == share


def test_r8_5_a_guild_without_members_shares_nothing():
    assert rules.income_share(2, 10, 0) == 0


@given(st.integers(1, 40), st.integers(1, 20), st.integers(0, 1000))
def test_r8_5_shares_rounded_up_cover_the_income_and_overpay_by_less_than_one_per_member(members, level, income):
    share = rules.income_share(level, income, members)
    total = rules.income(level, income)
    assert share == math.ceil(total / members)
    assert total <= share * members < total + members


@pytest.mark.parametrize(("level", "cost", "expected"), [(1, 50, 50), (2, 50, 100), (3, 50, 150), (4, 40, 160), (2, 0, 0)])
def test_r8_4_level_n_costs_n_times_the_level_cost(level, cost, expected):
    assert rules.upgrade_cost(level, cost) == expected


@pytest.mark.parametrize(
    ("level", "members", "room"),
    [
        (1, 1, True),
        (1, 2, False),  # level 1: the founder and one ally
        (2, 2, True),
        (2, 3, False),
        (3, 3, True),
        (3, 4, False),
        (5, 5, True),
        (5, 6, False),
    ],
)
def test_r8_4_a_level_n_guild_allows_n_allies_besides_its_founder(level, members, room):
    assert rules.allies_allowed(level) == level
    assert rules.has_room(level, members) is room

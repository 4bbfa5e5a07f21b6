"""The battle plan (R6.1-R6.7, R5.2, V9, V10): sides, split, scenario, roles, underdog."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.battles import rules
from app.battles.rules import Arrival


def arrivals_for(side_sizes: list[int]) -> tuple[list[Arrival], dict[int, int]]:
    """Warbands per side; players of one side are allied with each other."""
    arrivals, side_of, wid = [], {}, 0
    for side, size in enumerate(side_sizes):
        for _ in range(size):
            wid += 1
            side_of[wid] = side
            arrivals.append(Arrival(wid, wid, 50 + wid))
    return arrivals, side_of


def allied_by(side_of):
    return lambda a, b: side_of[a] == side_of[b]


def brute_force_min_left_out(side_sizes: list[int], cap: int | None) -> int:
    """Every way to put each warband in one of n battles or leave it out."""
    labels = [s for s, size in enumerate(side_sizes) for _ in range(size)]
    n = len(labels)
    best = n
    for assignment in itertools.product(range(n + 1), repeat=n):  # 0 = left out, k = battle k
        battles: dict[int, list[int]] = {}
        for label, slot in zip(labels, assignment):
            if slot:
                battles.setdefault(slot, []).append(label)
        if all(len(set(b)) >= 2 and (cap is None or len(b) <= cap) for b in battles.values()):
            best = min(best, assignment.count(0))
    return best


def check_plan(plan: rules.Split, arrivals: list[Arrival], side_of: dict[int, int], cap: int | None) -> None:
    """Every warband is in exactly one place of the plan: a battle, left out, or unopposed —
    and unopposed only when everyone at the destination stands on one side (R6.2)."""
    seen = (
        [a.warband_id for battle in plan.battles for side in battle for a in side]
        + [a.warband_id for a in plan.left_out]
        + [a.warband_id for a in plan.unopposed]
    )
    assert sorted(seen) == sorted(a.warband_id for a in arrivals)  # no warband lost
    assert len(seen) == len(set(seen))  # no warband twice
    if len({side_of[a.player_id] for a in arrivals}) >= 2:
        assert plan.unopposed == []
    else:
        assert plan.battles == [] and plan.left_out == []
    for battle in plan.battles:
        assert len(battle) >= 2
        size = sum(len(side) for side in battle)
        assert cap is None or size <= cap
        for side in battle:
            assert len({side_of[a.player_id] for a in side}) == 1  # a side is allies only
        assert len({side_of[side[0].player_id] for side in battle}) == len(battle)  # sides differ


@pytest.mark.load
@given(st.lists(st.integers(1, 4), min_size=2, max_size=4).filter(lambda s: sum(s) <= 6), st.sampled_from([2, 3, 4, None]))
@settings(max_examples=40, deadline=None)
def test_r6_4_left_out_count_is_minimal_against_brute_force(side_sizes, cap):
    arrivals, side_of = arrivals_for(side_sizes)
    plan = rules.plan_destination(arrivals, allied_by(side_of), cap, seed=7)
    check_plan(plan, arrivals, side_of, cap)
    assert len(plan.left_out) == brute_force_min_left_out(side_sizes, cap)


@given(st.lists(st.integers(1, 9), min_size=1, max_size=8), st.sampled_from([2, 3, 5, None]), st.integers(0, 2**31))
@settings(max_examples=150, deadline=None)
def test_r6_3_r6_4_plan_invariants(side_sizes, cap, seed):
    arrivals, side_of = arrivals_for(side_sizes)
    plan = rules.plan_destination(arrivals, allied_by(side_of), cap, seed)
    if len(side_sizes) == 1:
        assert plan.battles == [] and len(plan.unopposed) == side_sizes[0]  # R6.2: allies alone
        return
    check_plan(plan, arrivals, side_of, cap)
    kept = len(arrivals) - len(plan.left_out)
    fewest = 1 if cap is None else -(-kept // cap)  # the fewest battles that hold everyone kept
    assert len(plan.battles) == fewest
    sizes = [sum(len(s) for s in b) for b in plan.battles]
    assert max(sizes) - min(sizes) <= 1  # as even as possible
    assert plan == rules.plan_destination(arrivals, allied_by(side_of), cap, seed)  # same seed, same plan


# (warbands per side, battle size limit) -> (battle sizes, largest first; warbands left out),
# worked out by hand from R6.3/R6.4: the fewest battles that let every warband fight, sizes as
# even as possible, two sides or more in each, as few left out as the sides allow.
SPLITS = [
    ([1, 1], 2, [2], 0),
    ([1] * 5, 2, [2, 2], 1),
    ([1] * 6, 3, [3, 3], 0),
    ([1] * 7, 3, [3, 2, 2], 0),
    ([1] * 8, 3, [3, 3, 2], 0),
    ([2, 1], 2, [2], 1),
    ([3, 1], 2, [2], 2),
    ([3, 1], 3, [3], 1),
    ([3, 3], 2, [2, 2, 2], 0),
    ([4, 1, 1], 3, [3, 3], 0),
    ([5, 1], None, [6], 0),
    ([2, 2, 2], None, [6], 0),
    ([2, 2, 2], 4, [3, 3], 0),
    ([6, 2], 3, [3, 3], 2),
]


def test_r6_3_r6_4_battle_sizes_from_a_table_worked_out_by_hand():
    for side_sizes, cap, sizes, left_out in SPLITS:
        arrivals, side_of = arrivals_for(side_sizes)
        for seed in (0, 1, 2):
            plan = rules.plan_destination(arrivals, allied_by(side_of), cap, seed)
            check_plan(plan, arrivals, side_of, cap)
            got = sorted((sum(len(s) for s in b) for b in plan.battles), reverse=True)
            assert (got, len(plan.left_out)) == (sizes, left_out), (side_sizes, cap, seed)


def test_r6_3_one_against_one_without_the_multi_band_module():
    assert rules.capacity(False, 6) == 2
    assert rules.capacity(True, None) is None and rules.capacity(True, 4) == 4
    arrivals, side_of = arrivals_for([1, 1, 1, 1, 1])
    plan = rules.plan_destination(arrivals, allied_by(side_of), 2, seed=1)
    assert [sum(len(s) for s in b) for b in plan.battles] == [2, 2] and len(plan.left_out) == 1


def test_r6_3_unlimited_puts_everyone_in_one_battle():
    arrivals, side_of = arrivals_for([2, 1, 3])
    plan = rules.plan_destination(arrivals, allied_by(side_of), None, seed=3)
    assert len(plan.battles) == 1 and len(plan.battles[0]) == 3 and plan.left_out == []


def test_r6_2_allies_stand_together_and_alone_they_are_unopposed():
    arrivals = [Arrival(1, 10, 100), Arrival(2, 11, 90), Arrival(3, 12, 80)]
    allied = lambda a, b: {a, b} == {10, 11}  # noqa: E731
    assert [[a.warband_id for a in s] for s in rules.sides(arrivals, allied)] == [[1, 2], [3]]
    plan = rules.plan_destination(arrivals[:2], allied, 2, seed=5)
    assert plan.battles == [] and [a.warband_id for a in plan.unopposed] == [1, 2]
    lone = rules.plan_destination([Arrival(9, 1, 50)], lambda a, b: False, 2, seed=5)
    assert lone.battles == [] and [a.warband_id for a in lone.unopposed] == [9]


def test_r6_4_two_allies_against_one_in_one_on_one_battles_leave_out_an_ally():
    arrivals = [Arrival(1, 10, 100), Arrival(2, 11, 90), Arrival(3, 12, 80)]
    plan = rules.plan_destination(arrivals, lambda a, b: {a, b} == {10, 11}, 2, seed=2)
    assert len(plan.battles) == 1 and len(plan.left_out) == 1 and plan.left_out[0].player_id in (10, 11)


def test_r6_4_different_seeds_draw_different_splits():
    arrivals, side_of = arrivals_for([1] * 8)
    plans = {
        str([[a.warband_id for s in b for a in s] for b in rules.plan_destination(arrivals, allied_by(side_of), 2, seed).battles])
        for seed in range(20)
    }
    assert len(plans) > 1


SCENARIOS = {
    "scenario.supply-grab": (2, 2, False),
    "scenario.light-the-beacon": (2, 2, True),
    "scenario.king-of-the-hill": (3, None, False),
}


def test_r5_2_v9_scenario_choice():
    rng = random.Random(1)
    assert rules.choose_scenario("scenario.light-the-beacon", False, 3, SCENARIOS, rng) == rules.ScenarioChoice(
        "scenario.light-the-beacon", True
    )
    assert rules.choose_scenario(None, True, 2, SCENARIOS, rng) == rules.ScenarioChoice(None, False)
    for _ in range(20):
        assert rules.choose_scenario(None, False, 2, SCENARIOS, rng).key in ("scenario.supply-grab", "scenario.light-the-beacon")
    assert rules.choose_scenario(None, False, 3, SCENARIOS, rng).key == "scenario.king-of-the-hill"
    assert rules.choose_scenario(None, False, 5, SCENARIOS, rng).key == "scenario.king-of-the-hill"


def test_v9_gm_can_set_roles_on_any_event():
    rng = random.Random(1)
    assert rules.choose_scenario("scenario.supply-grab", False, 2, SCENARIOS, rng, roles_override="attacker_defender").roles
    assert not rules.choose_scenario("scenario.light-the-beacon", False, 2, SCENARIOS, rng, roles_override="none").roles
    assert rules.choose_scenario(None, True, 2, SCENARIOS, rng, roles_override="attacker_defender").roles


def test_r6_6_owner_defends_if_fighting_otherwise_a_roll():
    assert rules.defender_side([{1}, {2}], 2, random.Random(0)) == 1
    rolls = {rules.defender_side([{1}, {2}], 99, random.Random(seed)) for seed in range(30)}
    assert rolls == {0, 1}
    assert rules.defender_side([{1}, {2}], None, random.Random(4)) == rules.defender_side([{1}, {2}], None, random.Random(4))


def test_v10_underdog_bonus_points_and_dice():
    result = rules.underdog([200, 150, 124, 200], 25)
    assert [(u.bonus_points, u.dice) for u in result] == [(0, 0), (50, 2), (76, 3), (0, 0)]
    assert [(u.bonus_points, u.dice) for u in rules.underdog([100, 99], 25)] == [(0, 0), (1, 0)]

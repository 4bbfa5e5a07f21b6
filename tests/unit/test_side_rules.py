"""Sides in a battle's result and Underdog (issue 27): R6.8, one confirmation from each side
but the reporter's; V10, Underdog by each side's total points."""

from hypothesis import given
from hypothesis import strategies as st

from app.battles import rules

# Players 1 and 3 stand together on side 0 (a guild, a mission alliance); 2 and 4 alone.
SIDES = {1: 0, 3: 0, 2: 1, 4: 2}


def test_V10_a_lone_warband_against_two_allies_gets_the_difference_of_the_totals():
    """V10: 179 against allies of 130 + 143 = 273 gets 94 bonus points and 94 // 25 = 3 dice;
    the allies, each weaker than 179, get nothing."""
    lone, allies = rules.side_underdog([[179], [130, 143]], 25)
    assert (lone.bonus_points, lone.dice) == (94, 3)
    assert (allies.bonus_points, allies.dice) == (0, 0)
    # Per warband (the old reading) the allies would have had 49 and 36 points.
    assert [(u.bonus_points, u.dice) for u in rules.underdog([179, 130, 143], 25)] == [(0, 0), (49, 1), (36, 1)]


def test_V10_every_side_weaker_than_the_strongest_gets_its_difference():
    result = rules.side_underdog([[100, 100], [150], [120, 10], [200]], 25)
    assert [(u.bonus_points, u.dice) for u in result] == [(0, 0), (50, 2), (70, 2), (0, 0)]
    assert [(u.bonus_points, u.dice) for u in rules.side_underdog([[200], [150]], 10)] == [(0, 0), (50, 5)]


@given(st.lists(st.lists(st.integers(0, 400), min_size=1, max_size=4), min_size=2, max_size=5), st.integers(1, 100))
def test_V10_property_sides_of_one_warband_behave_per_warband_and_totals_decide(sides, per_die):
    """V10: each side's bonus is the strongest total minus its own, its dice the full
    `per_die` in it; the strongest side gets none; sides of one warband each are exactly the
    per-warband rule."""
    result = rules.side_underdog(sides, per_die)
    strongest = max(sum(s) for s in sides)
    assert [(u.bonus_points, u.dice) for u in result] == [(strongest - sum(s), (strongest - sum(s)) // per_die) for s in sides]
    assert min(u.bonus_points for u in result) == 0
    singles = [[s[0]] for s in sides]
    assert rules.side_underdog(singles, per_die) == rules.underdog([s[0] for s in singles], per_die)


def test_R6_8_the_reporters_side_is_not_asked_and_each_other_side_once():
    assert rules.sides_to_confirm(SIDES, 1, set()) == {1, 2}
    assert rules.asked_to_confirm(SIDES, 1, set()) == {2, 4}
    assert rules.sides_to_confirm(SIDES, 2, set()) == {0, 2}
    assert rules.asked_to_confirm(SIDES, 2, {3}) == {4}  # player 3 confirmed for side 0
    assert rules.sides_to_confirm(SIDES, 2, {3, 4}) == set()


def test_R6_8_refusals_the_reporter_its_allies_and_a_side_that_confirmed():
    assert rules.confirm_refusal(1, SIDES, 1, set()) == "battle_confirmed_already"
    assert rules.confirm_refusal(3, SIDES, 1, set()) == "battle_own_side"
    assert rules.confirm_refusal(2, SIDES, 1, set()) is None
    assert rules.confirm_refusal(1, SIDES, 2, {3}) == "battle_confirmed_already"
    assert rules.confirm_refusal(3, SIDES, 2, {3}) == "battle_confirmed_already"
    assert rules.confirm_refusal(4, SIDES, 2, {3}) is None


@given(st.lists(st.integers(0, 3), min_size=2, max_size=8).filter(lambda s: len(set(s)) > 1), st.data())
def test_R6_8_property_a_result_is_decided_by_one_player_of_each_other_side(side_list, data):
    """R6.8: confirming in any order, each accepted confirmation takes one side off the list,
    nobody of the reporter's side is ever accepted, and the result is decided exactly when
    every other side has confirmed once."""
    side_of = {player: side for player, side in enumerate(side_list, start=1)}
    reporter = data.draw(st.sampled_from(sorted(side_of)))
    confirmed: set[int] = set()
    for player in data.draw(st.permutations(sorted(side_of))):
        waiting = rules.sides_to_confirm(side_of, reporter, confirmed)
        refused = rules.confirm_refusal(player, side_of, reporter, confirmed)
        if side_of[player] == side_of[reporter]:
            assert refused is not None
        assert (refused is None) == (side_of[player] in waiting)
        if refused is None:
            confirmed.add(player)
            assert rules.sides_to_confirm(side_of, reporter, confirmed) == waiting - {side_of[player]}
    assert rules.sides_to_confirm(side_of, reporter, confirmed) == set()
    assert {side_of[p] for p in confirmed} == set(side_list) - {side_of[reporter]}
    assert len(confirmed) == len(set(side_list)) - 1

"""Nesting of maps (R1.3): three levels at most, never a cycle."""

import pytest

from app.core.errors import DomainError
from app.maps import rules


def test_r1_3_depth_counts_levels():
    parents = {1: None, 2: 1, 3: 2}
    assert [rules.depth_of(i, parents) for i in (1, 2, 3)] == [1, 2, 3]


def test_r1_3_a_fourth_level_is_refused():
    parents = {1: None, 2: 1, 3: 2}
    rules.check_parent(None, 2, parents)  # new place at level 3
    with pytest.raises(DomainError) as info:
        rules.check_parent(None, 3, parents)
    assert info.value.code == "map_too_deep"


def test_r1_3_moving_a_place_with_children_counts_their_depth():
    parents = {1: None, 2: 1, 10: None, 11: 10}
    with pytest.raises(DomainError) as info:
        rules.check_parent(10, 2, parents)  # 10 would be level 3, its child level 4
    assert info.value.code == "map_too_deep"
    rules.check_parent(10, 1, parents)  # 10 at level 2, child at 3


def test_r1_3_a_place_cannot_lie_inside_itself():
    parents = {1: None, 2: 1}
    for place, parent in ((1, 1), (1, 2)):
        with pytest.raises(DomainError) as info:
            rules.check_parent(place, parent, parents)
        assert info.value.code == "place_cycle"


def test_r1_3_tree_order_lists_inner_places_after_their_parent():
    parents = {1: None, 2: 1, 3: None, 4: 2, 5: 1}
    assert rules.tree_order(parents) == [(1, 0), (2, 1), (4, 2), (5, 1), (3, 0)]


def test_r1_3_parent_candidates_respect_depth_and_cycles():
    parents = {1: None, 2: 1, 3: 2, 4: None}
    assert rules.parent_candidates(None, parents) == [1, 2, 4]  # 3 is a district already
    assert rules.parent_candidates(2, parents) == [1, 4]  # 2 has a child: only top places fit
    assert rules.parent_candidates(1, parents) == []  # 1 holds two levels below it

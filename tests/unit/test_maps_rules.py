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


def test_issue37_place_labels_are_worked_out_as_asked_and_say_the_whole_chain():
    """R1.3's nested maps: 'Land › City › Docks'; each label joined when a page asks for it,
    the same for every place as joining them all, a broken chain (a cycle, a missing parent)
    ending where ancestors ends, and a place not there a KeyError as in a dict."""
    from types import SimpleNamespace as Row

    from app.maps.rules import PlaceLabels, ancestors

    rows = [
        Row(id=1, name="Land", parent_id=None),
        Row(id=2, name="City", parent_id=1),
        Row(id=3, name="Docks", parent_id=2),
        Row(id=4, name="Loop A", parent_id=5),
        Row(id=5, name="Loop B", parent_id=4),
        Row(id=6, name="Orphan", parent_id=99),
    ]
    labels = PlaceLabels(rows)
    assert labels[3] == "Land › City › Docks" and labels.get(2) == "Land › City"
    assert labels[6] == "Orphan" and labels.get(7, "?") == "?" and 7 not in labels
    by_id, parents = {r.id: r for r in rows}, {r.id: r.parent_id for r in rows}
    joined = {r.id: " › ".join(by_id[i].name for i in reversed(ancestors(r.id, parents)) if i in by_id) for r in rows}
    assert dict(labels) == joined and len(labels) == 6
    with pytest.raises(KeyError):
        labels[7]

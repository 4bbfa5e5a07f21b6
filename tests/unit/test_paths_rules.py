"""Paths and reachability (R9.7): one path step from a player's places, in the path's
direction; an entry point joins a place-map to its parent both ways."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.errors import DomainError
from app.maps import rules

ids = st.integers(min_value=1, max_value=12)
edges = st.lists(st.tuples(ids, ids, st.booleans()).filter(lambda e: e[0] != e[1]), max_size=30)
entries = st.lists(st.tuples(ids, ids).filter(lambda e: e[0] != e[1]), max_size=5)
owns = st.sets(ids, max_size=5)


def test_r9_7_one_step_along_paths_in_their_direction():
    graph = rules.path_graph([(1, 2, False), (2, 3, False), (4, 1, True), (1, 5, True)], [])
    assert rules.reachable({1}, graph) == {1, 2, 5}  # 3 is two steps away; 4 leads to 1, not back
    assert rules.reachable({4}, graph) == {4, 1}
    assert rules.reachable(set(), graph) == set()


def test_r9_7_entry_point_joins_the_parent_both_ways():
    graph = rules.path_graph([], [(20, 2)])  # 20 lies on place 2's map
    assert rules.reachable({2}, graph) == {2, 20}
    assert rules.reachable({20}, graph) == {20, 2}


@given(owns, edges, entries)
def test_r9_7_own_places_are_always_reachable_and_nothing_else_beyond_one_step(own, paths, ent):
    graph = rules.path_graph(paths, ent)
    result = rules.reachable(own, graph)
    assert own <= result
    for place in result - own:
        assert any((a in own and b == place) or (not one_way and b in own and a == place) for a, b, one_way in paths) or any(
            (p in own and q == place) or (q in own and p == place) for p, q in ent
        )


@given(owns, owns, edges, entries)
def test_r9_7_reachability_is_a_union_over_places(a, b, paths, ent):
    graph = rules.path_graph(paths, ent)
    assert rules.reachable(a | b, graph) == rules.reachable(a, graph) | rules.reachable(b, graph)


@given(owns, edges, st.tuples(ids, ids, st.booleans()))
def test_r9_7_a_new_path_never_closes_a_way(own, paths, extra):
    before = rules.reachable(own, rules.path_graph(paths, []))
    after = rules.reachable(own, rules.path_graph([*paths, extra], []))
    assert before <= after


@given(ids, ids)
def test_r9_7_two_way_paths_are_symmetric_and_one_way_paths_are_not(a, b):
    if a == b:
        return
    two = rules.path_graph([(a, b, False)], [])
    assert b in rules.reachable({a}, two) and a in rules.reachable({b}, two)
    one = rules.path_graph([(a, b, True)], [])
    assert b in rules.reachable({a}, one) and a not in rules.reachable({b}, one)


def test_r9_7_paths_join_two_places_of_one_map_once():
    rules.check_path(None, None, 1, 2, set())
    for args, code in (
        ((None, None, 1, 1, set()), "path_same_place"),
        ((None, 5, 1, 2, set()), "path_cross_map"),
        ((None, None, 1, 2, {frozenset((2, 1))}), "path_exists"),
    ):
        with pytest.raises(DomainError) as info:
            rules.check_path(*args)
        assert info.value.code == code

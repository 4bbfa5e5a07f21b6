"""R9.8 (with R9.7): where a warband may go and where it stands after the round — pure rules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.maps.rules import path_graph
from app.movement import rules
from app.movement.rules import DRAWN, LEFT_OUT, LOST, STAYED, WON, Outcome

# A line A(1) - B(2) - C(3), a one-way C(3) -> D(4), and E(5) alone.
GRAPH = path_graph([(1, 2, False), (2, 3, False), (3, 4, True)], [])
EVERY = {1, 2, 3, 4, 5}
POINTS = {1: (0.0, 0.0), 2: (10.0, 0.0), 3: (20.0, 0.0), 4: (30.0, 0.0), 5: (5.0, 0.0), 6: (0.0, 0.0)}
PARENTS = {1: None, 2: None, 3: None, 4: None, 5: None, 6: 4}  # 6 lies inside place 4's map


@pytest.mark.parametrize(
    "position, paths_on, expected",
    [
        (2, True, {1, 2, 3}),  # it may stay (an event where it stands) or go one step
        (3, True, {2, 3, 4}),  # one way: C leads to D ...
        (4, True, {4}),  # ... but D leads nowhere
        (5, True, {5}),
        (2, False, {1, 2, 3, 4, 5}),
        (None, True, set()),  # scattered: the GM places it first
        (None, False, set()),
    ],
)
def test_r9_8_r9_7_moves_stay_or_one_path_step_in_its_direction_or_anywhere_without_paths(position, paths_on, expected):
    assert rules.moves(position, paths_on, GRAPH, EVERY) == expected


@pytest.mark.parametrize(
    "outcome, expected",
    [
        (Outcome(1, None, STAYED), ("stay", 1)),  # no order, nobody came
        (Outcome(1, 2, WON), ("arrive", 2)),  # a won attack stays where it got to
        (Outcome(1, 2, LEFT_OUT), ("arrive", 2)),  # left without an opponent: it got there
        (Outcome(1, 2, LOST), ("return", 1)),  # a lost attack goes back
        (Outcome(1, 2, DRAWN), ("return", 1)),  # so does a drawn one
        (Outcome(1, 1, WON), ("arrive", 1)),
        (Outcome(2, None, WON), ("stay", 2)),  # a defender that held
        (Outcome(2, None, DRAWN), ("stay", 2)),  # ... or drew
        (Outcome(2, None, LOST), ("fall_back", None)),  # a beaten defender falls back
        (Outcome(1, 1, LOST), ("fall_back", None)),  # beaten while staying for an event at home: a defender
        (Outcome(1, 1, DRAWN), ("return", 1)),  # a draw there: it stays
    ],
)
def test_r9_8_every_movement_outcome(outcome, expected):
    assert rules.after_round(outcome) == expected


@pytest.mark.parametrize(
    "start, hideouts, paths_on, expected",
    [
        (2, {1, 3}, True, 1),  # one step each way: the tie goes to the lowest id
        (2, {4, 1}, True, 1),  # 1 step beats 2 steps
        (3, {4, 1}, True, 4),  # 1 step (one way) beats 2 steps
        (4, {1, 3}, True, 3),  # no path leads out of D: the straight line decides (3 at 10, 1 at 30)
        (2, {5, 3}, False, 5),  # 5 away beats 10 away
        (2, {1, 3}, False, 1),  # equally far: lowest id
        (6, {5, 3}, False, 3),  # inside D's map: measured from D on the top-level map (10 vs 25)
        (2, set(), True, None),  # no hideout left: scattered
        (2, set(), False, None),
    ],
)
def test_r9_8_nearest_hideout_with_and_without_paths_and_ties(start, hideouts, paths_on, expected):
    assert rules.nearest_hideout(start, hideouts, paths_on=paths_on, graph=GRAPH, parents=PARENTS, points=POINTS) == expected


places = st.integers(min_value=1, max_value=8)


@settings(max_examples=200, deadline=None)
@given(
    paths=st.lists(st.tuples(places, places, st.booleans()), max_size=14),
    origin=places,
    target_pick=st.integers(min_value=0, max_value=10),
    result=st.sampled_from([WON, LOST, DRAWN, LEFT_OUT, STAYED]),
    send=st.booleans(),
    hideouts=st.sets(places, max_size=3),
)
def test_r9_8_r9_7_with_paths_no_warband_ends_where_its_path_does_not_lead(paths, origin, target_pick, result, send, hideouts):
    """Property: with paths on, a warband ends where it stood, one path step on (a move the
    order rules allowed), or — beaten at its own place — in a hideout of its player."""
    graph = path_graph([(a, b, w) for a, b, w in paths if a != b], [])
    allowed = sorted(rules.moves(origin, True, graph, set(range(1, 9))))
    target = allowed[target_pick % len(allowed)] if (send and allowed) else None
    how, where = rules.after_round(Outcome(origin, target, result if target is not None or result != LEFT_OUT else STAYED))
    if how == "fall_back":
        points = {p: (float(p), 0.0) for p in range(1, 9)}
        where = rules.nearest_hideout(origin, hideouts, paths_on=True, graph=graph, parents=dict.fromkeys(points), points=points)
        assert where is None or where in hideouts
    else:
        assert where == origin or where in graph.get(origin, set())

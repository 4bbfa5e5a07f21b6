"""Issue 29 item 7, R12.14: map labels never overlap each other nor run off the map's edge
(maps.rules.label_layout, a pure layout), and a new place without coordinates never lands on
another (free_spot keeps markers at least 8 % of the map apart)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from app.maps.rules import LABEL_CHAR, SPOT_GAP, _overlap, free_spot, label_box, label_layout

W, H = 1000.0, 700.0


def _boxes(points, layout):
    return [label_box(layout[i], x, y, len(t) * LABEL_CHAR + 4) for i, x, y, t in points if layout[i]]


def test_R12_14_a_crowded_label_moves_aside_instead_of_covering_its_neighbour():
    points = [(1, 500.0, 300.0, "Mill · 2"), (2, 500.0, 330.0, "Ford · 1")]
    layout = label_layout(points, W, H)
    assert layout[1] != "below" or layout[2] is None or layout[2] != "below"
    a, b = _boxes(points, layout)
    assert not _overlap(a, b)


def test_R12_14_a_label_at_the_edge_is_turned_inwards():
    layout = label_layout([(1, 5.0, 690.0, "Watchtower of the West · 3"), (2, 995.0, 350.0, "Harbour · 1")], W, H)
    assert layout[1] in ("above", "right") and layout[2] == "left"


def test_R12_14_a_label_that_fits_nowhere_is_left_out_rather_than_overlapping():
    points = [(1, 500.0, 350.0, "x" * 200)]
    assert label_layout(points, W, H) == {1: None}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(0, W), st.floats(0, H), st.text(min_size=1, max_size=30)), max_size=40))
def test_R12_14_no_two_labels_overlap_and_none_runs_off_the_map(rows):
    points = [(i, x, y, t) for i, (x, y, t) in enumerate(rows)]
    layout = label_layout(points, W, H)
    assert set(layout) == {p[0] for p in points}
    boxes = _boxes(points, layout)
    for i, a in enumerate(boxes):
        assert a[0] >= 0 and a[1] >= 0 and a[2] <= W and a[3] <= H
        assert not any(_overlap(a, b) for b in boxes[i + 1 :])


@given(st.lists(st.tuples(st.floats(0, 100), st.floats(0, 100)), max_size=12))
def test_R12_14_a_new_place_keeps_8_percent_from_every_other_while_there_is_room(taken):
    x, y = free_spot(taken)
    assert 0 <= x <= 100 and 0 <= y <= 100
    # a dozen places block at most 60 of the 121 grid points: there is always room
    assert all(((x - a) ** 2 + (y - b) ** 2) ** 0.5 >= SPOT_GAP for a, b in taken)

"""R12.14: places added in bulk are laid out apart (maps.layout.spread, pure): no two markers
within 8 % of the map, every new name drawn below its marker without covering a name or a
marker, the names already on the map left where they were, and the same input gives the same
spots."""

import math
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from app.maps.layout import PHONE_SCALE, Spot, footprint, label_width, marker_box, spread, to_svg
from app.maps.rules import SPOT_GAP, _overlap, label_box, label_layout

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=20).map(lambda s: f"{s} · 3")
short_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=12).map(lambda s: f"{s} · 3")
scales = st.sampled_from([1.0, 2.0, PHONE_SCALE])
existing = st.lists(st.tuples(st.floats(0, 100, allow_nan=False), st.floats(0, 100, allow_nan=False), names), max_size=6)
heights = st.sampled_from([700.0, 1000.0, 500.0, 1400.0])


def _drawn(taken, labels, spots, height):
    """Where the drawn map puts every label, for the places already there and the new ones."""
    points = [(i, *to_svg(x, y, height), t) for i, (x, y, t) in enumerate(taken)]
    points += [(len(taken) + i, *to_svg(s.x, s.y, height), t) for i, (s, t) in enumerate(zip(spots, labels))]
    return points, label_layout(points, 1000, height)


@settings(max_examples=60, deadline=None)
@given(existing, st.lists(names, min_size=1, max_size=12), heights, scales)
def test_r12_14_new_places_keep_8_percent_from_every_marker_and_their_names_clear(taken, labels, height, scale):
    spots = spread(labels, taken, height, scale)
    assert len(spots) == len(labels)
    for n, spot in enumerate(spots):
        assert 0 <= spot.x <= 100 and 0 <= spot.y <= 100
        if not spot.apart:
            continue
        others = [(x, y) for x, y, _t in taken] + [(s.x, s.y) for s in spots[:n]]
        assert all(math.dist((spot.x, spot.y), o) >= SPOT_GAP for o in others), (spot, others)
    if all(s.apart for s in spots):
        before = label_layout([(i, *to_svg(x, y, height), t) for i, (x, y, t) in enumerate(taken)], 1000, height)
        points, after = _drawn(taken, labels, spots, height)
        # Every new name goes below its marker, and the names already there stay put.
        assert all(after[len(taken) + i] == "below" for i in range(len(labels))), after
        assert all(after[i] == before[i] for i in range(len(taken))), (before, after)
        boxes = [label_box(after[i], x, y, label_width(t)) for i, x, y, t in points if after[i]]
        assert not any(_overlap(a, b) for n, a in enumerate(boxes) for b in boxes[n + 1 :])
        news = points[len(taken) :]
        for i, x, y, t in news:
            name = label_box("below", x, y, label_width(t))
            assert not any(_overlap(name, marker_box(ox, oy)) for j, ox, oy, _t in points if j != i)
        # As a phone draws them (`scale` times larger), the new places' names stay clear too.
        areas = [footprint(x, y, label_width(t), scale) for _i, x, y, t in news]
        assert not any(_overlap(a, b) for n, a in enumerate(areas) for b in areas[n + 1 :])
        assert all(a[0] >= 0 and a[1] >= 0 and a[2] <= 1000 and a[3] <= height for a in areas)


@settings(max_examples=30, deadline=None)
@given(existing, st.lists(names, min_size=1, max_size=12), heights)
def test_r12_14_the_layout_is_deterministic(taken, labels, height):
    assert spread(labels, taken, height) == spread(list(labels), list(taken), height)


@settings(max_examples=30, deadline=None)
@given(st.lists(short_names, min_size=1, max_size=10))
def test_r12_14_ten_places_fit_an_empty_map_apart_as_a_phone_draws_them(labels):
    assert all(s.apart for s in spread(labels, []))


def test_r12_14_the_first_place_goes_to_the_middle_and_the_next_far_from_it():
    first, second = spread(["Ravenhold · 3", "Ember Docks · 2"], [])
    assert (first.x, first.y) == (50.0, 50.0)
    assert math.dist((first.x, first.y), (second.x, second.y)) > 50


def test_r12_14_a_place_already_there_keeps_its_room():
    (spot,) = spread(["Mill · 1"], [(50.0, 50.0, "Keep · 3")])
    assert math.dist((spot.x, spot.y), (50.0, 50.0)) >= SPOT_GAP


def test_r12_14_two_hundred_places_on_a_full_map_still_get_spots_quickly():
    started = time.monotonic()
    spots = spread([f"Village {n} · 5" for n in range(200)], [(50.0, 50.0, "Keep · 3")], scale=1.0)
    assert time.monotonic() - started < 10
    assert len(spots) == 200 and all(isinstance(s, Spot) and 0 <= s.x <= 100 and 0 <= s.y <= 100 for s in spots)
    apart = [s for s in spots if s.apart]
    assert len(apart) > 30 and spots[: len(apart)] == apart  # the map fills up, then the rest wait to be moved

"""R12.14: where places added in bulk go on their map — apart from every other marker and with
their names readable. Pure and deterministic: the same map and list give the same spots.

Positions are percent of the map (the places' x and y); labels are estimated in the SVG units
the map is drawn in (1000 wide, `height` high) with the sizes of rules.label_layout, so the
drawn map puts every new name below its marker and leaves the names already there where they
were."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.maps.rules import LABEL_CHAR, LABEL_MARKER, SPOT_GAP, label_box, label_layout

WIDTH = 1000.0
# Candidate spots, in percent: a grid kept off the very edge of the map.
GRID = tuple(range(5, 96, 3))
CELL = 120.0  # the spatial hash's cell, in SVG units
# Markers and names keep one size on screen: the whole map on a phone (about 350 px for the
# map's 1000 units) draws them this many times their size at 1000 px.
PHONE_SCALE = 2.9

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Spot:
    """A new place's position in percent; `apart` is False when the map had no room left that
    keeps SPOT_GAP from every marker and its name clear (then it goes where it is farthest from
    the others, and the GM moves it)."""

    x: float
    y: float
    apart: bool


def label_width(text: str) -> float:
    """The width rules.label_layout reckons a label of `text` takes."""
    return len(text) * LABEL_CHAR + 4


def to_svg(x: float, y: float, height: float) -> tuple[float, float]:
    """A place's percent position in SVG units, rounded as the drawn map rounds it."""
    return round(x * WIDTH / 100, 1), round(y * height / 100, 1)


def marker_box(x: float, y: float) -> Box:
    return x - LABEL_MARKER, y - LABEL_MARKER, x + LABEL_MARKER, y + LABEL_MARKER


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class _Boxes:
    """Boxes already on the map, found by the cells they touch."""

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[Box]] = {}

    @staticmethod
    def _cells_of(box: Box):
        for cx in range(math.floor(box[0] / CELL), math.floor(box[2] / CELL) + 1):
            for cy in range(math.floor(box[1] / CELL), math.floor(box[3] / CELL) + 1):
                yield cx, cy

    def add(self, box: Box) -> None:
        for cell in self._cells_of(box):
            self._cells.setdefault(cell, []).append(box)

    def hit(self, box: Box) -> bool:
        return any(_overlaps(box, other) for cell in self._cells_of(box) for other in self._cells.get(cell, ()))


def _inside(box: Box, height: float) -> bool:
    return box[0] >= 0 and box[1] >= 0 and box[2] <= WIDTH and box[3] <= height


def footprint(x: float, y: float, width: float, scale: float) -> Box:
    """A marker with its name below it as drawn `scale` times its size (the map keeps markers
    and names one size on screen, so a phone's narrow map draws them larger against it). It
    holds the same marker and name at size 1, which rules.label_layout reckons with."""
    half = max(width * scale / 2, LABEL_MARKER * scale)
    bottom = label_box("below", x, y, width)[3]
    return x - half, y - LABEL_MARKER * scale, x + half, y + (bottom - y) * scale


def spread(
    labels: Sequence[str], taken: Sequence[tuple[float, float, str]], height: float = 700.0, scale: float = PHONE_SCALE
) -> list[Spot]:
    """Spots for new places whose labels read `labels` (in order), on a map `height` SVG units
    high where `taken` places stand (x, y in percent, their label). Each goes to the grid
    point farthest from every marker (the middle first on an empty map) whose marker and name
    below it overlap no marker and no name already there, at least SPOT_GAP from every marker."""
    markers = _Boxes()
    names = _Boxes()
    points = [to_svg(x, y, height) for x, y, _text in taken]
    spots = label_layout([(i, px, py, text) for i, ((px, py), (_x, _y, text)) in enumerate(zip(points, taken))], WIDTH, height)
    drawn = _Boxes()  # as a phone draws them: the places already there with their names below
    for i, (px, py) in enumerate(points):
        markers.add(marker_box(px, py))
        spot = spots[i]
        if spot is not None:
            names.add(label_box(spot, px, py, label_width(taken[i][2])))
        drawn.add(footprint(px, py, label_width(taken[i][2]), scale))
    candidates = [(float(x), float(y)) for x in GRID for y in GRID]
    nearest = [min((math.dist(c, (x, y)) for x, y, _t in taken), default=math.inf) for c in candidates]
    # Ties (an empty map) go to the middle, then to the top left: a fixed order.
    centre = [(math.dist(c, (50.0, 50.0)), c[1], c[0]) for c in candidates]
    result: list[Spot] = []
    for text in labels:
        width = label_width(text)
        order = sorted(range(len(candidates)), key=lambda i: (-nearest[i], centre[i]))
        chosen, apart = order[0], False
        for i in order:
            if nearest[i] < SPOT_GAP:
                break
            px, py = to_svg(*candidates[i], height)
            area = footprint(px, py, width, scale)
            if _inside(area, height) and not (names.hit(area) or markers.hit(area) or drawn.hit(area)):
                chosen, apart = i, True
                break
        x, y = candidates[chosen]
        px, py = to_svg(x, y, height)
        markers.add(marker_box(px, py))
        names.add(label_box("below", px, py, width))
        drawn.add(footprint(px, py, width, scale))
        nearest = [min(n, math.dist(c, (x, y))) for n, c in zip(nearest, candidates)]
        result.append(Spot(x, y, apart))
    return result

"""Pure rules of places and nested maps (R1.2, R1.3)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from app.core.errors import DomainError

MAX_DEPTH = 3  # land, city, district


def ancestors(place_id: int | None, parents: dict[int, int | None]) -> list[int]:
    """The place and the places it lies inside, up to the top map: at most MAX_DEPTH + 1 of
    them and each once, whatever the rows say (an imported cycle or chain ends here, issue 28)."""
    chain: list[int] = []
    while place_id is not None and place_id not in chain and len(chain) <= MAX_DEPTH:
        chain.append(place_id)
        place_id = parents.get(place_id)
    return chain


class PlaceLabels(Mapping[int, str]):
    """'City › Docks' for each place (so places on different maps can be told apart), worked
    out when a page asks for it: a page labels the few places it lists, and joining every
    place's chain of names was a twentieth of the battles page (issue 37). `places`: rows with
    an id, a name and a parent_id."""

    def __init__(self, places: list[Any]):
        self._rows = {p.id: p for p in places}
        self._parents = {p.id: p.parent_id for p in places}
        self._said: dict[int, str] = {}

    def __getitem__(self, place_id: int) -> str:
        label = self._said.get(place_id)
        if label is None:
            if place_id not in self._rows:
                raise KeyError(place_id)
            chain = reversed(ancestors(place_id, self._parents))
            label = self._said[place_id] = " › ".join(self._rows[i].name for i in chain if i in self._rows)
        return label

    def __iter__(self) -> Iterator[int]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def depth_of(place_id: int | None, parents: dict[int, int | None]) -> int:
    """1 for a place on the top map, 2 inside a place, 3 inside a place inside a place."""
    chain = ancestors(place_id, parents)
    if chain and parents.get(chain[-1]) in chain:
        raise DomainError("place_cycle")
    return len(chain)


def check_parent(place_id: int | None, parent_id: int | None, parents: dict[int, int | None]) -> None:
    """A place may lie inside a place whose own depth is below the limit, never inside itself."""
    if parent_id is None:
        return
    if place_id is not None and place_id in ancestors(parent_id, parents):
        raise DomainError("place_cycle")
    if depth_of(parent_id, parents) + 1 + _subtree_height(place_id, parents) > MAX_DEPTH:
        raise DomainError("map_too_deep")


def check_tree(parents: dict[int, int | None], has_map: dict[int, bool]) -> None:
    """The rules a whole place tree keeps (an import, issue 28): no place inside itself, three
    levels at most, no map of its own on the third. The error names the place (`place_id`)."""
    for place_id in sorted(parents):
        chain = ancestors(place_id, parents)
        if parents.get(chain[-1]) in chain:
            raise DomainError("place_cycle", place_id=place_id)
        if len(chain) > MAX_DEPTH or (has_map.get(place_id) and len(chain) >= MAX_DEPTH):
            raise DomainError("map_too_deep", place_id=place_id)


def _children(parents: dict[int, int | None]) -> dict[int | None, list[int]]:
    children: dict[int | None, list[int]] = {}
    for place_id in sorted(parents):
        children.setdefault(parents[place_id], []).append(place_id)
    return children


def _subtree_height(place_id: int | None, parents: dict[int, int | None]) -> int:
    """How many levels lie below a place being moved (0 for a leaf or a new place); counted
    no further than MAX_DEPTH + 1, so a cycle below it cannot loop."""
    if place_id is None:
        return 0
    children = _children(parents)
    level, height, seen = [place_id], 0, {place_id}
    while height <= MAX_DEPTH:
        level = [c for node in level for c in children.get(node, []) if c not in seen]
        if not level:
            break
        seen.update(level)
        height += 1
    return height


def subtree(root: int, parents: dict[int, int | None]) -> set[int]:
    """A place and every place on its maps, down to the third level."""
    found = {root}
    changed = True
    while changed:
        more = {p for p, parent in parents.items() if parent in found} - found
        changed = bool(more)
        found |= more
    return found


def tree_order(parents: dict[int, int | None]) -> list[tuple[int, int]]:
    """Places in map order: each followed by the places inside it, with their level (0-2);
    nothing deeper than MAX_DEPTH levels is walked (issue 28)."""
    children = _children(parents)
    ordered: list[tuple[int, int]] = []

    def walk(parent: int | None, depth: int) -> None:
        if depth >= MAX_DEPTH:
            return
        for child in children.get(parent, []):
            ordered.append((child, depth))
            walk(child, depth + 1)

    walk(None, 0)
    return ordered


def parent_candidates(place_id: int | None, parents: dict[int, int | None]) -> list[int]:
    """Places that `place_id` (None for a new place) may be moved inside."""
    height = _subtree_height(place_id, parents)
    result = []
    for candidate in sorted(parents):
        chain = ancestors(candidate, parents)
        cycle = parents.get(chain[-1]) in chain
        if place_id not in chain and not cycle and len(chain) + 1 + height <= MAX_DEPTH:
            result.append(candidate)
    return result


# --- paths (R9.7) -------------------------------------------------------------------


def path_graph(paths: list[tuple[int, int, bool]], entries: list[tuple[int, int]]) -> dict[int, set[int]]:
    """Who leads where in one step. A path is (from, to, one_way); an entry is
    (place-map point, its parent place), joined both ways."""
    graph: dict[int, set[int]] = {}
    for a, b, one_way in paths:
        graph.setdefault(a, set()).add(b)
        if not one_way:
            graph.setdefault(b, set()).add(a)
    for point, parent in entries:
        graph.setdefault(point, set()).add(parent)
        graph.setdefault(parent, set()).add(point)
    return graph


def pathless(place_ids: list[int], graph: dict[int, set[int]]) -> list[int]:
    """R9.7: places from which no path leads anywhere (a warband there could go nowhere else)."""
    return [p for p in place_ids if not graph.get(p)]


def reachable(own: set[int], graph: dict[int, set[int]]) -> set[int]:
    """R9.7: a player's places and the places one path away from them, in the paths'
    directions. Each capture so opens the way one step further."""
    result = set(own)
    for place in own:
        result |= graph.get(place, set())
    return result


def check_path(from_parent: int | None, to_parent: int | None, from_id: int, to_id: int, existing: set[frozenset[int]]) -> None:
    """A path joins two different places on the same map, once."""
    if from_id == to_id:
        raise DomainError("path_same_place")
    if from_parent != to_parent:
        raise DomainError("path_cross_map")
    if frozenset((from_id, to_id)) in existing:
        raise DomainError("path_exists")


SPOT_GAP = 8.0  # percent of the map: markers closer than this overlap on a phone


def free_spot(taken: list[tuple[float, float]]) -> tuple[float, float]:
    """Where a place added without coordinates goes: the first point of a grid, from the
    middle outwards, that keeps SPOT_GAP from every other marker on its map — or, when the
    map is full, the grid point farthest from its nearest neighbour."""
    grid = [(float(x), float(y)) for x in range(10, 91, 8) for y in range(10, 91, 8)]
    grid.sort(key=lambda p: ((p[0] - 50) ** 2 + (p[1] - 50) ** 2, p))

    def room(p: tuple[float, float]) -> float:
        return min((((p[0] - x) ** 2 + (p[1] - y) ** 2) ** 0.5 for x, y in taken), default=float("inf"))

    for point in grid:
        if room(point) >= SPOT_GAP:
            return point
    return max(grid, key=room)


def holding(owner_id: int | None, hideout_id: int | None, me: int | None) -> tuple[str, str | None]:
    """R9.8 (owners and hideouts are public), issue 29: who holds a place as the send page says
    it to player `me` — ("mine" | "player" | "free", the hideout's "mine" | "player" | None)."""

    def whose(player_id: int | None) -> str | None:
        return None if player_id is None else ("mine" if player_id == me else "player")

    return whose(owner_id) or "free", whose(hideout_id)


# Issue 29: a marker's name is drawn below it, or above, right or left of it — the first of these
# that overlaps no label already placed and stays inside the map; with none, it is left out (the
# name stays the marker's title and is in the places list). Sizes are SVG units at 12 px text.
LABEL_SPOTS = ("below", "above", "right", "left")
LABEL_CHAR = 7.0
LABEL_HEIGHT = 15.0
LABEL_OFFSET = 14.0
LABEL_MARKER = 13.0  # a marker's half width: a label keeps off other markers when it can


def label_text(name: str, income: int) -> str:
    """What a marker's label reads."""
    return f"{name} · {income}"


def label_box(spot: str, x: float, y: float, width: float) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom) a label of `width` takes at `spot` of a marker at (x, y)."""
    if spot == "below":
        return x - width / 2, y + LABEL_OFFSET, x + width / 2, y + LABEL_OFFSET + LABEL_HEIGHT
    if spot == "above":
        return x - width / 2, y - LABEL_OFFSET - LABEL_HEIGHT, x + width / 2, y - LABEL_OFFSET
    if spot == "right":
        return x + LABEL_OFFSET + 2, y - LABEL_HEIGHT / 2, x + LABEL_OFFSET + 2 + width, y + LABEL_HEIGHT / 2
    return x - LABEL_OFFSET - 2 - width, y - LABEL_HEIGHT / 2, x - LABEL_OFFSET - 2, y + LABEL_HEIGHT / 2


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def label_layout(points: list[tuple[int, float, float, str]], width: float, height: float) -> dict[int, str | None]:
    """Issue 29: where each marker's label goes (a LABEL_SPOTS name, or None when it fits
    nowhere) so that no two labels overlap and none runs off the map (0..width, 0..height).
    `points` are (id, x, y, text) in SVG units; markers are placed top to bottom."""
    cell = 120.0
    grid: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
    markers = [(x - LABEL_MARKER, y - LABEL_MARKER, x + LABEL_MARKER, y + LABEL_MARKER) for _i, x, y, _t in points]
    marker_grid: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def cells(box):
        for cx in range(int(box[0] // cell), int(box[2] // cell) + 1):
            for cy in range(int(box[1] // cell), int(box[3] // cell) + 1):
                yield cx, cy

    for box in markers:
        for c in cells(box):
            marker_grid.setdefault(c, []).append(box)

    def hits(box, where) -> bool:
        return any(_overlap(box, other) for c in cells(box) for other in where.get(c, ()))

    placed: dict[int, str | None] = {}
    for marker_id, x, y, text in sorted(points, key=lambda p: (p[2], p[1], p[0])):
        own = (x - LABEL_MARKER, y - LABEL_MARKER, x + LABEL_MARKER, y + LABEL_MARKER)
        w = len(text) * LABEL_CHAR + 4
        boxes = [(spot, label_box(spot, x, y, w)) for spot in LABEL_SPOTS]
        fitting = [(s, b) for s, b in boxes if b[0] >= 0 and b[1] >= 0 and b[2] <= width and b[3] <= height and not hits(b, grid)]
        clear = [
            (s, b) for s, b in fitting if not any(_overlap(b, m) for c in cells(b) for m in marker_grid.get(c, ()) if m != own)
        ]
        nowhere: list[tuple[str | None, tuple[float, float, float, float] | None]] = [(None, None)]
        choice = (clear or fitting or nowhere)[0]
        placed[marker_id] = choice[0]
        if choice[1] is not None:
            for c in cells(choice[1]):
                grid.setdefault(c, []).append(choice[1])
    return placed

"""Pure rules of places and nested maps (R1.2, R1.3)."""
from __future__ import annotations

from app.core.errors import DomainError

MAX_DEPTH = 3  # land, city, district


def depth_of(place_id: int | None, parents: dict[int, int | None]) -> int:
    """1 for a place on the top map, 2 inside a place, 3 inside a place inside a place."""
    depth, seen = 0, set()
    while place_id is not None:
        if place_id in seen:
            raise DomainError("place_cycle")
        seen.add(place_id)
        depth += 1
        place_id = parents.get(place_id)
    return depth


def check_parent(place_id: int | None, parent_id: int | None, parents: dict[int, int | None]) -> None:
    """A place may lie inside a place whose own depth is below the limit, never inside itself."""
    if parent_id is None:
        return
    node: int | None = parent_id
    while node is not None:
        if node == place_id:
            raise DomainError("place_cycle")
        node = parents.get(node)
    if depth_of(parent_id, parents) + 1 + _subtree_height(place_id, parents) > MAX_DEPTH:
        raise DomainError("map_too_deep")


def _subtree_height(place_id: int | None, parents: dict[int, int | None]) -> int:
    """How many levels lie below a place being moved (0 for a leaf or a new place)."""
    if place_id is None:
        return 0
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        if parent is not None:
            children.setdefault(parent, []).append(child)

    def height(node: int) -> int:
        return max((1 + height(c) for c in children.get(node, [])), default=0)

    return height(place_id)


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
    """Places in map order: each followed by the places inside it, with their level (0-2)."""
    children: dict[int | None, list[int]] = {}
    for place_id in sorted(parents):
        children.setdefault(parents[place_id], []).append(place_id)
    ordered: list[tuple[int, int]] = []

    def walk(parent: int | None, depth: int) -> None:
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
        node, depth, inside_itself = candidate, 0, False
        while node is not None:
            if node == place_id:
                inside_itself = True
                break
            depth += 1
            node = parents.get(node)
        if not inside_itself and depth + 1 + height <= MAX_DEPTH:
            result.append(candidate)
    return result


# --- paths (R9.7) -------------------------------------------------------------------


def path_graph(
    paths: list[tuple[int, int, bool]], entries: list[tuple[int, int]]
) -> dict[int, set[int]]:
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


def check_path(from_parent: int | None, to_parent: int | None, from_id: int, to_id: int,
               existing: set[frozenset[int]]) -> None:
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

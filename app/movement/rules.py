"""Warband movement (R9.8 with R9.7): pure functions over places, paths and a round's outcome.
A graph is `maps.rules.path_graph`'s: place id -> places one path step away, in the paths'
directions."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from app.maps.rules import ancestors

# How a warband's round ended, for where it stands afterwards.
STAYED = "stayed"  # no order, and nobody beat it where it stands
WON = "won"  # its side won the battle (or it met nobody: unopposed)
LOST = "lost"  # its side lost
DRAWN = "drawn"  # a battle without winners
LEFT_OUT = "left_out"  # it came, but the split left it without an opponent (R6.4)


def moves(position: int | None, paths_on: bool, graph: dict[int, set[int]], everywhere: set[int]) -> set[int]:
    """R9.8: where a warband may be sent from where it stands: its own place (it stays, say for
    an event there) or, with paths, one path step on in the path's direction; without paths,
    anywhere. A warband with no position (scattered) goes nowhere until the GM places it."""
    if position is None:
        return set()
    if not paths_on:
        return set(everywhere) | {position}
    return set(graph.get(position, set())) | {position}


@dataclass(frozen=True)
class Outcome:
    """One warband's round: where it stood, where its order took it (None: no order), and how
    its battle ended (for a defender: the battle at the place where it stands)."""

    origin: int | None
    target: int | None
    result: str


def after_round(outcome: Outcome) -> tuple[str, int | None]:
    """Where a warband stands after End round, and why (R9.8):
    - a warband stays where it got to (a won or unopposed move, or one left without opponent);
    - a lost or drawn attack goes back where it came from;
    - a defender beaten at its own place falls back ("fall_back": the caller finds the nearest
      hideout); otherwise it stays. A defender is a warband without an order, or one sent to
      the place where it stands (it stayed, say for an event there): beaten there, it has no
      other place to go back to."""
    if outcome.result == LOST and outcome.target in (None, outcome.origin):
        return "fall_back", None
    if outcome.target is None:
        return "stay", outcome.origin
    if outcome.result in (WON, LEFT_OUT):
        return "arrive", outcome.target
    return "return", outcome.origin


def _steps(start: int, graph: dict[int, set[int]]) -> dict[int, int]:
    """Fewest path steps from `start` to every place it reaches (breadth first)."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in sorted(graph.get(here, ())):
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return seen


def top_level_point(place_id: int, parents: dict[int, int | None], points: dict[int, tuple[float, float]]) -> tuple[float, float]:
    """A place inside a place's map stands, on the top-level map, where its outermost place is
    (a bounded walk, whatever the rows say: issue 28)."""
    return points[ancestors(place_id, parents)[-1]]


def nearest_hideout(
    start: int,
    hideouts: set[int],
    *,
    paths_on: bool,
    graph: dict[int, set[int]],
    parents: dict[int, int | None],
    points: dict[int, tuple[float, float]],
) -> int | None:
    """R9.8 decision: the nearest hideout of the beaten defender's player — fewest path steps
    with paths on, otherwise straight-line distance on the top-level map; ties go to the lowest
    place id. With paths on and no path to any hideout, the straight line decides (a warband is
    scattered only when its player has no hideout left). None: no hideout left."""
    if not hideouts:
        return None
    if paths_on:
        steps = _steps(start, graph)
        reached = [(steps[h], h) for h in hideouts if h in steps]
        if reached:
            return min(reached)[1]
    x0, y0 = top_level_point(start, parents, points)

    def distance(h: int) -> float:
        x, y = top_level_point(h, parents, points)
        return math.hypot(x - x0, y - y0)

    return min(hideouts, key=lambda h: (distance(h), h))

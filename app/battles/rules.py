"""The battle plan (R6.1-R6.8, R5.2, R5.3, V9, V10): pure functions, every draw from a
`random.Random` seeded by the caller, so a stored seed re-derives the same plan."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

UNLIMITED = None


@dataclass(frozen=True)
class Arrival:
    """A warband that came to a destination (an event, or a place without events)."""

    warband_id: int
    player_id: int
    points: int


@dataclass(frozen=True)
class Group:
    """A player's allies at a destination: a guild (permanent, led by its founder) or a
    mission alliance for one event (led by its initiator) (R6.2, R8.1, R8.7)."""

    kind: str  # "guild" or "alliance"
    key: int
    leader: int


@dataclass
class Split:
    battles: list[list[list[Arrival]]]  # battle -> sides -> warbands
    left_out: list[Arrival] = field(default_factory=list)
    unopposed: list[Arrival] = field(default_factory=list)


# --- sides (R6.2) -------------------------------------------------------------------------


def sides(arrivals: list[Arrival], allied: Callable[[int, int], bool]) -> list[list[Arrival]]:
    """Allies stand together. Alliance is taken as connected: if A stands with B and B
    with C, all three form one side (a side is a set, so it cannot be otherwise)."""
    players = sorted({a.player_id for a in arrivals})
    parent = {p: p for p in players}

    def find(p: int) -> int:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            if allied(a, b):
                parent[find(a)] = find(b)
    groups: dict[int, list[Arrival]] = {}
    for arrival in sorted(arrivals, key=lambda a: a.warband_id):
        groups.setdefault(find(arrival.player_id), []).append(arrival)
    return sorted(groups.values(), key=lambda g: g[0].warband_id)


def capacity(multi_band: bool, limit: int | None) -> int | None:
    """R6.3: two warbands a battle without the multi-band module; with it, the limit or all."""
    if not multi_band:
        return 2
    return limit if limit else UNLIMITED


def battles_needed(n: int, cap: int | None) -> int:
    return 1 if cap is None else math.ceil(n / cap)


def feasible(sizes: list[int], cap: int | None) -> bool:
    """Can these sides all fight in the fewest battles, each with two sides or more?
    With b battles of at most `cap`, sizes as even as possible, this holds exactly when
    2b ≤ N and the largest side is at most N − b (see split for the construction)."""
    n = sum(sizes)
    if len([s for s in sizes if s]) < 2:
        return False
    b = battles_needed(n, cap)
    return 2 * b <= n and max(sizes) <= n - b


def split(side_list: list[list[Arrival]], cap: int | None, rng: random.Random) -> Split:
    """R6.4: leave out as few warbands as possible, then use the fewest battles, sizes as
    even as possible, at least two sides in each; who fights whom is drawn with `rng`."""
    pools = [list(s) for s in side_list if s]
    for pool in pools:
        rng.shuffle(pool)
    if len(pools) < 2:
        return Split(battles=[], unopposed=[a for pool in pools for a in pool])
    left_out: list[Arrival] = []
    # Leaving out warbands of the largest side lowers the largest side fastest; for a
    # given number left out that is the best possible, so the first feasible count is
    # the minimum.
    while not feasible([len(p) for p in pools], cap):
        largest = max(len(p) for p in pools)
        candidates = [p for p in pools if len(p) == largest]
        left_out.append(rng.choice(candidates).pop())
    n = sum(len(p) for p in pools)
    b = battles_needed(n, cap)
    # Deal the warbands, side after side, round-robin into b battles: no battle ends up
    # with one side only while the largest side is at most N − b.
    order = sorted((p for p in pools if p), key=lambda p: (-len(p), rng.random()))
    dealt: list[list[Arrival]] = [[] for _ in range(b)]
    for i, arrival in enumerate(a for pool in order for a in pool):
        dealt[i % b].append(arrival)
    side_of = {a.warband_id: i for i, pool in enumerate(pools) for a in pool}
    battles = []
    for group in dealt:
        by_side: dict[int, list[Arrival]] = {}
        for arrival in group:
            by_side.setdefault(side_of[arrival.warband_id], []).append(arrival)
        battles.append([sorted(ws, key=lambda a: a.warband_id) for _k, ws in sorted(by_side.items())])
    rng.shuffle(battles)
    return Split(battles=battles, left_out=sorted(left_out, key=lambda a: a.warband_id))


def plan_destination(arrivals: list[Arrival], allied: Callable[[int, int], bool], cap: int | None, seed: int) -> Split:
    """One destination's battles from its seed (stored, so the plan can be re-derived)."""
    return split(sides(arrivals, allied), cap, random.Random(seed))


# --- scenario, roles, underdog ----------------------------------------------------------------


@dataclass(frozen=True)
class ScenarioChoice:
    key: str | None  # None for the GM's Other mission
    roles: bool


def choose_scenario(
    event_scenario: str | None,
    other_mission: bool,
    warbands: int,
    scenarios: dict[str, tuple[int, int | None, bool]],
    rng: random.Random,
    roles_override: str | None = None,
) -> ScenarioChoice:
    """R5.2, V9: the event's scenario or Other mission; otherwise a random two-warband
    scenario for two warbands, King of the Hill (three or more) for more.
    `scenarios` maps key -> (min warbands, max warbands or None, has roles)."""
    if other_mission:
        key, roles = None, False
    elif event_scenario is not None:
        key, roles = event_scenario, scenarios.get(event_scenario, (2, 2, False))[2]
    else:
        fitting = sorted(
            k
            for k, (lo, hi, _r) in scenarios.items()
            if (warbands == 2 and lo <= 2 and hi == 2)
            or (warbands > 2 and lo >= 3 and lo <= warbands and (hi is None or warbands <= hi))
        )
        key = rng.choice(fitting) if fitting else None
        roles = scenarios[key][2] if key else False
    if roles_override == "attacker_defender":
        roles = True
    elif roles_override == "none":
        roles = False
    return ScenarioChoice(key, roles)


def defender_side(side_players: list[set[int]], place_owner: int | None, rng: random.Random) -> int:
    """R6.6: the place's owner defends when fighting in the battle; otherwise a roll."""
    for index, players in enumerate(side_players):
        if place_owner is not None and place_owner in players:
            return index
    return rng.randrange(len(side_players))


@dataclass(frozen=True)
class Underdog:
    bonus_points: int
    dice: int


def underdog(points: list[int], points_per_die: int) -> list[Underdog]:
    """V10: each warband weaker than the strongest gets the difference as bonus-model
    points and one Underdog die per full `points_per_die` of it."""
    strongest = max(points, default=0)
    return [Underdog(strongest - p, (strongest - p) // max(points_per_die, 1)) for p in points]


def side_underdog(side_points: list[list[int]], points_per_die: int) -> list[Underdog]:
    """V10: allies on one side are compared as one side, by their total points: every side
    weaker than the strongest side gets the difference, whatever its warbands' own points.
    A side of one warband is compared as that warband."""
    return underdog([sum(points) for points in side_points], points_per_die)


# --- confirming a result (R6.8) ------------------------------------------------------------
# `side_of` maps each player of a battle to their side: a player's warbands always stand on
# one side (allies stand together, and a player is their own ally, see `sides`).


def _side(side_of: Mapping[int, int], player: int | None) -> int | None:
    """The side `player` stands on; None for nobody (no reporter yet) or a player not in it."""
    return side_of.get(player) if player is not None else None


def sides_to_confirm(side_of: Mapping[int, int], reporter: int | None, confirmed_by: Iterable[int]) -> set[int]:
    """R6.8: the sides an entered result still waits for. The reporter's side entered it; one
    confirmation from any player of each other side counts for that side."""
    done = {side_of[p] for p in confirmed_by if p in side_of}
    return set(side_of.values()) - done - {_side(side_of, reporter)}


def asked_to_confirm(side_of: Mapping[int, int], reporter: int | None, confirmed_by: Iterable[int]) -> set[int]:
    """R6.8: the players who may confirm an entered result now: those of the sides it waits for."""
    waiting = sides_to_confirm(side_of, reporter, confirmed_by)
    return {p for p, side in side_of.items() if side in waiting}


def confirm_refusal(player: int, side_of: Mapping[int, int], reporter: int | None, confirmed_by: Iterable[int]) -> str | None:
    """Why `player` may not confirm the entered result (an error code), or None. The reporter
    and a player of a side that has confirmed have nothing left to confirm; the reporter's
    allies stand on the side that entered it, so they cannot confirm it either."""
    if player == reporter:
        return "battle_confirmed_already"
    if side_of.get(player) == _side(side_of, reporter):
        return "battle_own_side"
    if player not in asked_to_confirm(side_of, reporter, confirmed_by):
        return "battle_confirmed_already"
    return None


def link_open(status: str, round_: int, phase: str | None, made_round: int, made_phase: str) -> bool:
    """R12.2: a confirm link works while its campaign stays in the round and phase it was made in."""
    return status == "running" and round_ == made_round and phase == made_phase


def link_players(side_of: Mapping[int, int], link_side: int, asked: Iterable[int], action: str) -> list[int]:
    """R12.2, R6.8: who may act through a link made by side `link_side`: confirming, the
    players still asked to confirm; disputing, any player of another side."""
    if action == "confirm":
        return sorted(set(asked) - {p for p, s in side_of.items() if s == link_side})
    return sorted(p for p, s in side_of.items() if s != link_side)

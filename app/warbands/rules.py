"""Pure warband rules (R4.2, R4.3, V4-V8): every violated limit is reported at once, each
with its own code and the numbers it is about."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from app.companies.rules import Carried, item_problem
from app.core.errors import ERRORS, DomainError

# Manual ch. 2: warbands are put together in Preparation; unsent ones may still change in Orders.
BUILD_PHASES = ("preparation", "orders")


@dataclass(frozen=True)
class Member:
    model_id: int
    name: str
    profile_key: str
    types: tuple[str, ...]
    points: int
    unique: bool = False
    items: tuple[tuple[Carried, int], ...] = ()  # (item, its points)
    status: str = "ready"


@dataclass(frozen=True)
class Mercenary:
    key: str
    name: str
    types: tuple[str, ...]
    points: int
    alignment: str
    unique: bool = False


@dataclass(frozen=True)
class Problem:
    code: str
    params: dict = field(default_factory=dict)


def building_open(status: str, phase: str | None) -> bool:
    return status == "running" and phase in BUILD_PHASES


def check_building(status: str, phase: str | None) -> None:
    """Building, editing and disbanding happen in Preparation and Orders only."""
    if status == "finished":
        raise DomainError("campaign_read_only")
    if not building_open(status, phase):
        raise DomainError("warband_build_closed")


def effective_limit(warband_points: int, event_limit: int | None) -> int:
    """R4.3, V7: an event's lower limit is the L of every Vanguard limit, not only of the total."""
    return warband_points if event_limit is None else min(warband_points, event_limit)


def points(members: list[Member], mercenary: Mercenary | None) -> int:
    """R4.3, V8: models, the items they carry and the mercenary all count."""
    total = sum(m.points + sum(p for _item, p in m.items) for m in members)
    return total + (mercenary.points if mercenary else 0)


def problems(members: list[Member], mercenary: Mercenary | None, faction_alignment: str, limit: int) -> list[Problem]:
    everyone = [(m.name, m.profile_key, m.types, m.unique) for m in members]
    if mercenary:
        everyone.append((mercenary.name, mercenary.key, mercenary.types, mercenary.unique))
    types = Counter(t for _n, _k, ts, _u in everyone for t in set(ts))
    gw = sum(1 for _n, _k, ts, _u in everyone if {"Grunt", "Warrior"} & set(ts))
    found: list[Problem] = []
    total = points(members, mercenary)
    if total > limit:
        found.append(Problem("warband_points_over", {"points": total, "limit": limit}))
    if types["Command"] == 0:
        found.append(Problem("warband_no_command"))
    if gw == 0:
        found.append(Problem("warband_no_fighter"))
    # V6: a model with two types counts in both.
    for kind, code, allowed in (
        ("Command", "warband_command_limit", max(1, gw // 3)),
        ("Support", "warband_support_limit", gw // 3),
        ("Spellcaster", "warband_spellcaster_limit", gw // 3),
    ):
        if types[kind] > allowed:
            found.append(Problem(code, {"count": types[kind], "max": allowed, "gw": gw}))
    large_allowed = max(1, limit // 150)
    if types["Large"] > large_allowed:
        found.append(Problem("warband_large_limit", {"count": types["Large"], "max": large_allowed, "limit": limit}))
    copies_allowed = max(1, limit // 40)
    names = {k: n for n, k, _t, _u in everyone}
    for key, count in sorted(Counter(k for _n, k, _t, _u in everyone).items()):
        unique = any(u for _n, k, _t, u in everyone if k == key)
        if unique and count > 1:
            found.append(Problem("warband_unique_twice", {"name": names[key], "count": count}))
        elif count > copies_allowed:
            found.append(
                Problem("warband_copies_limit", {"name": names[key], "count": count, "max": copies_allowed, "limit": limit})
            )
    if mercenary and mercenary.alignment not in ("Neutral", faction_alignment):
        found.append(
            Problem(
                "warband_mercenary_alignment",
                {"name": mercenary.name, "alignment": mercenary.alignment, "faction": faction_alignment},
            )
        )
    for m in members:
        carried: list[Carried] = []
        for item, _p in m.items:
            problem = item_problem(list(m.types), carried, item)
            if problem:
                found.append(Problem(problem[0], {"model": m.name, **problem[1]}))
            carried.append(item)
    return found


def unavailable(members: list[Member]) -> list[Member]:
    """R4.7: dead, captured or resting models cannot go out."""
    return [m for m in members if m.status != "ready"]


def unfit_code(status: str) -> str:
    """Why a model cannot fight, as a message code: "Greatax misses the next battle"."""
    return f"model_unfit_{status}"


def _english_ngettext(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


@dataclass(frozen=True)
class Unfit:
    """The models of a warband that cannot fight, said in the reader's language at the edge
    (a message parameter, like errors.Duration): one by name and reason, several counted."""

    models: tuple[tuple[str, str], ...]  # (name, status)

    def text(self, gettext) -> str:
        if len(self.models) == 1:
            name, status = self.models[0]
            return gettext(ERRORS[unfit_code(status)][1]) % {"model": name}
        ngettext = getattr(getattr(gettext, "__self__", None), "ngettext", None) or _english_ngettext
        count = len(self.models)
        return ngettext("%(num)s model cannot fight", "%(num)s models cannot fight", count) % {"num": count}

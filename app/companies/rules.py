"""Pure company rules: shop hours, faction, confirmation, uniqueness and items (R3.1-R3.9,
V3, V7, V8)."""

from __future__ import annotations

from dataclasses import dataclass

from app.campaigns.rules import shop_open
from app.core.errors import DomainError

MAX_ITEMS = 2


def check_shop(status: str, phase: str | None) -> None:
    """R3.3: open before round 1 and in Preparation and Orders."""
    if status == "finished":
        raise DomainError("campaign_read_only")
    if not shop_open(status, phase):
        raise DomainError("shop_closed")


def check_faction_change(confirmed: bool) -> None:
    """R3.6: nobody changes the faction after confirmation."""
    if confirmed:
        raise DomainError("faction_locked")


def check_confirm(confirmed: bool, model_types: list[list[str]]) -> None:
    """R3.5: a company is confirmed once it holds a leader (a Command model)."""
    if confirmed:
        raise DomainError("company_confirmed_already")
    if not any("Command" in types for types in model_types):
        raise DomainError("company_needs_leader")


def check_buyable_item(rarity: str) -> None:
    """R3.7: Common and Rare are for sale; Unique items come only as rewards."""
    if rarity == "Unique":
        raise DomainError("item_unique_reward_only")


def check_unique_profile(unique: bool, name: str, held_profile_keys: set[str], key: str) -> None:
    """V7: a unique (named) profile at most once per company."""
    if unique and key in held_profile_keys:
        raise DomainError("unique_profile_held", name=name)


@dataclass(frozen=True)
class Carried:
    slot: str
    rarity: str


def item_problem(model_types: list[str], carried: list[Carried], new: Carried) -> tuple[str, dict] | None:
    """V8: at most two items, one per slot; a Grunt carries one, and only Common."""
    if "Grunt" in model_types:
        if new.rarity != "Common":
            return "item_grunt_common_only", {}
        if carried:
            return "item_grunt_one_only", {}
    if len(carried) >= MAX_ITEMS:
        return "item_limit", {"max": MAX_ITEMS}
    if any(c.slot == new.slot for c in carried):
        return "item_slot_taken", {"slot": new.slot}
    return None


def check_item(model_types: list[str], carried: list[Carried], new: Carried, model_name: str) -> None:
    problem = item_problem(model_types, carried, new)
    if problem:
        code, params = problem
        raise DomainError(code, model=model_name, **params)


def model_labels(models: list[tuple[int, str, str, str | None]]) -> dict[int, str]:
    """Issue 29: models of one profile told apart. `models` is every model of a company as
    (id, profile key, profile name, name given by the player). A given name is the label;
    otherwise a profile held more than once is numbered by purchase ("Ax 1", "Ax 2") and a
    profile held once keeps its plain name. Computed on reading, so a sale renumbers."""
    count: dict[str, int] = {}
    for _id, key, _name, _given in models:
        count[key] = count.get(key, 0) + 1
    seen: dict[str, int] = {}
    labels: dict[int, str] = {}
    for model_id, key, name, given in sorted(models):
        seen[key] = seen.get(key, 0) + 1
        if given:
            labels[model_id] = given
        else:
            labels[model_id] = f"{name} {seen[key]}" if count[key] > 1 else name
    return labels


def clean_given_name(text: str | None) -> str | None:
    """A given name is trimmed; an empty one removes it (the model reads as its profile again)."""
    text = (text or "").strip()
    return text or None


# R11.3, issue 29: the shop lists Vanguard's types in the manual's order, Command first.
SHOP_TYPE_ORDER = ("Command", "Grunt", "Warrior", "Spellcaster", "Support", "Large")


def shop_type(types) -> str:
    """The shop group a profile is listed under: its first type in SHOP_TYPE_ORDER ("" if none)."""
    return next((t for t in SHOP_TYPE_ORDER if t in types), "")


def shop_groups(profiles: list, held: dict[str, int]) -> list[tuple[str, list[tuple[object, int]]]]:
    """Issue 29: the shop's profiles grouped by type, Command first, each with how many of it
    the company owns; a group without profiles is left out, the catalog's order kept within."""
    groups: dict[str, list[tuple[object, int]]] = {t: [] for t in (*SHOP_TYPE_ORDER, "")}
    for profile in profiles:
        groups[shop_type(profile.types)].append((profile, held.get(profile.key, 0)))
    return [(t, rows) for t, rows in groups.items() if rows]

"""Items: entries offered in an item group or carrying an "Items - <slot>" profile, with their
slot, rarity and points (V1)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..catalog import ItemData
from .source import (
    _MAX_POINTS,
    _POINTS_PREFIX,
    _RARITY_IN_NAME,
    POINTS_COST,
    GameSystem,
    Skipped,
    _children,
    _clean,
    _iter,
    _local,
    _points,
    _rarity_of,
    _slot_of,
    _unique_keys,
    slugify,
)


def _item_profile(entry: ET.Element, system: GameSystem) -> ET.Element | None:
    for p in _children(entry, "profiles", "profile"):
        if p.get("typeId") in system.item_profile_types:
            return p
        type_name = _clean(p.get("typeName")).lower()
        if type_name.startswith("items -") and _slot_of(type_name):
            return p
    return None


def _item_hints(root: ET.Element) -> dict[str, list[tuple[str | None, str | None]]]:
    """Slot and rarity hints from item groups: entry id -> [(slot, rarity)] in document order."""
    hints: dict[str, list[tuple[str | None, str | None]]] = {}

    def walk(group: ET.Element, slot: str | None, rarity: str | None) -> None:
        for child in group:
            tag = _local(child.tag)
            if tag in ("selectionEntries", "selectionEntryGroups", "entryLinks"):
                walk(child, slot, rarity)
            elif tag == "selectionEntryGroup":
                walk(child, _slot_of(child.get("name")) or slot, _rarity_of(child.get("name")) or rarity)
            elif tag == "entryLink" and child.get("type") == "selectionEntry":
                hints.setdefault(child.get("targetId", ""), []).append((slot, rarity))
            elif tag == "selectionEntry" and child.get("type") != "model":
                hints.setdefault(child.get("id", ""), []).append((slot, rarity))

    def find_item_groups(elem: ET.Element) -> None:
        for child in elem:
            if _local(child.tag) == "selectionEntryGroup" and "items" in _clean(child.get("name")).lower():
                walk(child, _slot_of(child.get("name")), _rarity_of(child.get("name")))
            else:  # outermost item groups only; walk() covers what lies inside them
                find_item_groups(child)

    find_item_groups(root)
    return hints


def _parse_items(root: ET.Element, system: GameSystem, key_prefix: str, source: str) -> tuple[list[ItemData], list[Skipped]]:
    hints = _item_hints(root)
    rows: list[tuple[str, str | None, dict]] = []
    skipped: list[Skipped] = []
    for entry in _iter(root, "selectionEntry"):
        if entry.get("type") == "model":
            continue
        item_profile = _item_profile(entry, system)
        entry_hints = hints.get(entry.get("id", ""), [])
        if item_profile is None and not entry_hints:
            continue
        raw_name = _clean(entry.get("name"))
        slot = None
        if item_profile is not None:  # the item's own profile type decides first ...
            slot = system.item_profile_types.get(item_profile.get("typeId", "")) or _slot_of(item_profile.get("typeName"))
        slot = slot or next((s for s, _ in entry_hints if s), None)  # ... then the group offering it
        marker = _RARITY_IN_NAME.search(raw_name)
        rarity = marker.group(1).capitalize() if marker else next((r for _, r in entry_hints if r), None)
        name = _clean(item_profile.get("name")) if item_profile is not None else ""
        if not name:
            name = _clean(_RARITY_IN_NAME.sub("", _POINTS_PREFIX.sub("", raw_name)))
        if not rarity:
            skipped.append(
                Skipped(
                    "item",
                    raw_name,
                    "no rarity: not in an item group and no (Common/Rare/Unique) in its name (a model's own equipment)",
                    source,
                )
            )
            continue
        if not slot:
            skipped.append(Skipped("item", raw_name, "no slot: no 'Items - <slot>' profile and not in a slot group", source))
            continue
        points = _points(entry, system)
        if points is None or points > _MAX_POINTS:
            reason = f"no '{POINTS_COST}' cost" if points is None else f"{points} points is out of range"
            skipped.append(Skipped("item", raw_name, reason, source))
            continue
        notes = ""
        if item_profile is not None:
            notes = " ".join(_clean(c.text) for c in _iter(item_profile, "characteristic") if _clean(c.text))
        rows.append(
            (
                f"{key_prefix}.{slugify(name)}",
                entry.get("id"),
                dict(name=name[:120], rarity=rarity, slot=slot, points=points, notes=notes, bs_id=(entry.get("id") or "")[:40]),
            )
        )
    keys = _unique_keys([(k, i) for k, i, _ in rows])
    return [ItemData(key=key, **data) for key, (_, _, data) in zip(keys, rows)], skipped

"""Models: every entry with a Warband Member profile mapped to a catalog profile or mercenary
(types from its categories, stats, special rules, unique, healer; V1)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from ..catalog import MODEL_TYPES, STATS, ProfileData
from .source import (
    _MAX_POINTS,
    MEMBER_PROFILE,
    MERCENARY,
    POINTS_COST,
    UNIQUE_MARKERS,
    GameSystem,
    Skipped,
    _alignment,
    _children,
    _clean,
    _iter,
    _points,
    _unique_keys,
    slugify,
)


def _is_member_profile(profile: ET.Element, system: GameSystem) -> bool:
    return (
        profile.get("typeId") == system.member_profile_type_id
        or _clean(profile.get("typeName")).lower() == MEMBER_PROFILE.lower()
    )


def _is_unique(sources: list[ET.Element], categories: list[str], rules: list[str]) -> bool:
    """A named character: marked so by name, or limited to one per roster / force by a `max`
    constraint that no modifier raises (ordinary profiles: `max 0` raised per 40 points)."""
    if any(name.strip().lower() in UNIQUE_MARKERS for name in categories + rules):
        return True
    raised = {m.get("field") for src in sources for m in _iter(src, "modifier") if m.get("type") in ("increment", "set")}
    for src in sources:
        for c in _children(src, "constraints", "constraint"):
            if c.get("type") != "max" or c.get("field") != "selections" or c.get("scope") in ("parent", None):
                continue
            try:
                value = float(c.get("value", ""))
            except ValueError:
                continue
            if value == 1.0 and c.get("id") not in raised:
                return True
    return False


@dataclass
class _Models:
    rows: list[ProfileData]
    skipped: list[Skipped]
    count: int  # model entries with a Warband Member profile
    alignments: list[str]  # of the faction's (non-mercenary) models, for the faction's majority


def _parse_models(
    root: ET.Element, system: GameSystem, faction: str | None, source: str, own_categories: dict[str, str]
) -> _Models:
    """Profiles (faction given) and mercenaries from every model entry of one file."""
    categories = {**system.categories, **own_categories}
    rows: list[tuple[str, str | None, dict]] = []
    skipped: list[Skipped] = []
    count = 0
    links: dict[str, list[ET.Element]] = {}  # entry id -> entryLinks to it in this file
    for link in _iter(root, "entryLink"):
        links.setdefault(link.get("targetId", ""), []).append(link)
    for entry in _iter(root, "selectionEntry"):
        if entry.get("type") != "model":
            continue
        # a link may add categories and limits of its own to the entry it points at
        sources = [entry] + links.get(entry.get("id", ""), [])
        profile = next((p for p in _children(entry, "profiles", "profile") if _is_member_profile(p, system)), None)
        if profile is None:
            continue
        count += 1
        row = _model_row(entry, sources, profile, system, faction, categories, source)
        if isinstance(row, Skipped):
            skipped.append(row)
        else:
            rows.append(row)
    out, alignments = _profiles(rows)
    return _Models(rows=out, skipped=skipped, count=count, alignments=alignments)


def _model_row(
    entry: ET.Element,
    sources: list[ET.Element],
    profile: ET.Element,
    system: GameSystem,
    faction: str | None,
    categories: dict[str, str],
    source: str,
) -> tuple[str, str | None, dict] | Skipped:
    """One model entry as (base key, BattleScribe id, profile fields), or why it is skipped."""
    name = _clean(entry.get("name")) or _clean(profile.get("name"))
    chars = {_clean(c.get("name")): _clean(c.text) for c in _iter(profile, "characteristic")}
    cat_names = [
        categories.get(link.get("targetId", ""), _clean(link.get("name")))
        for src in sources
        for link in _children(src, "categoryLinks", "categoryLink")
    ]
    types = _model_types(cat_names)
    is_merc = any(c.strip().lower() == MERCENARY.lower() for c in cat_names)
    if not types:
        shown = ", ".join(c for c in cat_names if c) or "none"
        return Skipped("model", name, f"no model type among its categories ({shown})", source)
    if faction is None and not is_merc:
        return Skipped("model", name, "a game-system model that is not marked Mercenary", source)
    points = _points(entry, system)
    if points is None or points > _MAX_POINTS:
        reason = f"no '{POINTS_COST}' cost" if points is None else f"{points} points is out of range"
        return Skipped("model", name, reason, source)
    rules = _special_rules(entry)
    alignment = _alignment(chars.get("Alignment"))
    data = dict(
        name=name[:120],
        types=tuple(types),
        points=points,
        stats={s: chars[s] for s in STATS if chars.get(s)},
        race=chars.get("Race", ""),
        special_rules=tuple(rules),
        unique=_is_unique(sources, cat_names, rules),
        healer=any("heal" in r.lower() for r in rules),
        bs_id=(entry.get("id") or "")[:40],  # rosters name their entries by it (R12.15)
    )
    if not is_merc:
        return (f"{faction}.{slugify(name)}", entry.get("id"), dict(data, faction=faction, _alignment=alignment))
    if alignment is None:
        return Skipped("model", name, f"mercenary without a known alignment ({chars.get('Alignment') or 'none'})", source)
    return (f"bs.merc.{slugify(name)}", entry.get("id"), dict(data, faction=None, alignment=alignment))


def _model_types(category_names: list[str]) -> list[str]:
    """The Vanguard model types among an entry's category names, in catalog order of first use."""
    types: list[str] = []
    for cname in category_names:
        for t in MODEL_TYPES:
            if cname.strip().lower() == t.lower() and t not in types:
                types.append(t)
    return types


def _special_rules(entry: ET.Element) -> list[str]:
    """Rule names linked to or written in a model entry, each once."""
    rules: list[str] = []
    names = [_clean(link.get("name")) for link in _children(entry, "infoLinks", "infoLink") if link.get("type") == "rule"]
    names += [_clean(rule.get("name")) for rule in _children(entry, "rules", "rule")]
    for name in names:
        if name and name not in rules:
            rules.append(name)
    return rules


def _profiles(rows: list[tuple[str, str | None, dict]]) -> tuple[list[ProfileData], list[str]]:
    """Profiles under stable unique keys, and the faction alignments the file's models name."""
    keys = _unique_keys([(k, i) for k, i, _ in rows])
    out = []
    alignments = []
    for key, (_, _, data) in zip(keys, rows):
        data = dict(data)
        if "_alignment" in data:
            alignment = data.pop("_alignment")
            if alignment:
                alignments.append(alignment)
        out.append(ProfileData(key=key, **data))
    return out, alignments

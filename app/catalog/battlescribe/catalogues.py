"""A game system and its catalogues read into catalog files (one faction per catalogue)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..catalog import CatalogFile, FactionData
from .items import _parse_items
from .models import _parse_models
from .source import (
    MEMBER_PROFILE,
    POINTS_COST,
    SOURCE,
    BattleScribeError,
    GameSystem,
    Skipped,
    _clean,
    _iter,
    _local,
    _read_xml,
    _slot_of,
    faction_slug,
)


def parse_game_system(path: Path) -> GameSystem:
    path = Path(path)
    root = _read_xml(path)
    if _local(root.tag) != "gameSystem":
        raise BattleScribeError(f"{path}: not a BattleScribe game system (root <{_local(root.tag)}>)")
    categories = {c.get("id", ""): _clean(c.get("name")) for c in _iter(root, "categoryEntry")}
    points_id = next((c.get("id") for c in _iter(root, "costType") if _clean(c.get("name")).lower() == POINTS_COST.lower()), None)
    member_id = None
    item_types: dict[str, str] = {}
    for pt in _iter(root, "profileType"):
        name = _clean(pt.get("name"))
        if name.lower() == MEMBER_PROFILE.lower():
            member_id = pt.get("id")
        elif name.lower().startswith("items -") and (slot := _slot_of(name)):
            item_types[pt.get("id", "")] = slot
    if member_id is None:
        raise BattleScribeError(f"{path}: no '{MEMBER_PROFILE}' profile type; is this a Vanguard game system?")
    system = GameSystem(
        path=path,
        id=root.get("id", ""),
        name=_clean(root.get("name")),
        revision=root.get("revision", ""),
        categories=categories,
        points_cost_id=points_id,
        member_profile_type_id=member_id,
        item_profile_types=item_types,
    )
    source = path.name
    system.items, item_skips = _parse_items(root, system, key_prefix="bs.item", source=source)
    models = _parse_models(root, system, faction=None, source=source, own_categories={})
    system.model_entries = models.count
    system.mercenaries = models.rows  # a game-system model is imported only as a mercenary
    system.skipped = item_skips + models.skipped
    return system


@dataclass
class ParsedCatalogue:
    path: Path
    data: CatalogFile
    skipped: list[Skipped]
    model_entries: int  # selectionEntry type=model with a Warband Member profile

    @property
    def faction(self) -> FactionData:
        return self.data.factions[0]


def read_catalogue(path: Path, system: GameSystem) -> ParsedCatalogue:
    path = Path(path)
    root = _read_xml(path)
    if _local(root.tag) != "catalogue":
        raise BattleScribeError(f"{path}: not a BattleScribe catalogue (root <{_local(root.tag)}>)")
    wanted = root.get("gameSystemId")
    if wanted and system.id and wanted != system.id:
        raise BattleScribeError(f"{path}: written for game system {wanted}, not {system.id} ({system.path.name})")
    name = _clean(root.get("name")) or path.stem.replace("_", " ")
    faction_key = f"bs.{faction_slug(name)}"
    own_categories = {c.get("id", ""): _clean(c.get("name")) for c in _iter(root, "categoryEntry")}
    models = _parse_models(root, system, faction=faction_key, source=path.name, own_categories=own_categories)
    profiles = [m for m in models.rows if m.faction is not None]
    mercenaries = [m for m in models.rows if m.faction is None]
    items, item_skips = _parse_items(root, system, key_prefix=f"bs.item.{faction_slug(name)}", source=path.name)
    faction = FactionData(key=faction_key, name=name[:120], alignment=_majority(models.alignments))
    data = CatalogFile(
        source=SOURCE,
        name=_file_title(name, root.get("revision")),
        factions=[faction],
        profiles=profiles,
        mercenaries=mercenaries,
        items=items,
    )
    return ParsedCatalogue(path=path, data=data, skipped=item_skips + models.skipped, model_entries=models.count)


def parse_catalogue(path: Path, system: GameSystem) -> CatalogFile:
    return read_catalogue(path, system).data


def _majority(alignments: list[str]) -> str:
    if not alignments:
        return "Neutral"
    counts = Counter(alignments)
    # most common; a tie goes to Neutral, then to the one met first
    order = {a: i for i, a in reversed(list(enumerate(alignments)))}
    return max(counts, key=lambda a: (counts[a], a == "Neutral", -order[a]))


def _file_title(name: str, revision: str | None) -> str:
    return f"BattleScribe: {name}" + (f" (revision {revision})" if revision else "")

"""The catalog (V1, V2): factions, model profiles, items, mercenaries and scenarios.

Loaded from JSON files in the format of FORMAT.md beside this file: the starter catalog
shipped in `app/catalog/data/`, then any catalogs imported from BattleScribe into
`<var>/catalog/` (later files win on equal keys). Files are validated at load and held in
memory; imported files are picked up again when they change on disk.
"""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from app.core.settings import package_path

STARTER_DIR = package_path("catalog", "data")
MODEL_TYPES = ("Command", "Grunt", "Warrior", "Support", "Spellcaster", "Large")
ALIGNMENTS = ("Good", "Neutral", "Evil")
RARITIES = ("Common", "Rare", "Unique")
SLOTS = ("Sundries", "Melee", "Armour", "Ranged", "Magic", "Mount")
STATS = ("Sp", "Me", "Ra", "Ar", "Ne", "Wn", "H")
KEY_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,119}$"


class FactionData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str = Field(pattern=KEY_PATTERN)
    name: str = Field(min_length=1, max_length=120)
    alignment: Literal["Good", "Neutral", "Evil"]


class ProfileData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str = Field(pattern=KEY_PATTERN)
    faction: str | None = None  # None for a mercenary
    name: str = Field(min_length=1, max_length=120)
    types: tuple[Literal["Command", "Grunt", "Warrior", "Support", "Spellcaster", "Large"], ...] = Field(min_length=1)
    points: int = Field(ge=0, le=10_000)
    stats: dict[str, str] = Field(default_factory=dict)
    race: str = ""
    special_rules: tuple[str, ...] = ()
    unique: bool = False
    healer: bool = False
    alignment: Literal["Good", "Neutral", "Evil"] | None = None  # mercenaries only
    bs_id: str = Field(default="", max_length=40)  # the BSData entry it is (a roster is matched by it, R12.15)

    @field_validator("stats")
    @classmethod
    def _known_stats(cls, stats: dict[str, str]) -> dict[str, str]:
        unknown = set(stats) - set(STATS)
        if unknown:
            raise ValueError(f"unknown stats {sorted(unknown)}; use {', '.join(STATS)}")
        return stats

    @field_validator("types")
    @classmethod
    def _no_repeats(cls, types):
        if len(set(types)) != len(types):
            raise ValueError("a type is listed twice")
        return types


class ItemData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str = Field(pattern=KEY_PATTERN)
    name: str = Field(min_length=1, max_length=120)
    rarity: Literal["Common", "Rare", "Unique"]
    slot: Literal["Sundries", "Melee", "Armour", "Ranged", "Magic", "Mount"]
    points: int = Field(ge=0, le=10_000)
    notes: str = ""
    bs_id: str = Field(default="", max_length=40)  # the BSData entry it is (a roster is matched by it, R12.15)


class ScenarioText(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(min_length=1, max_length=120)
    notes: str = ""


class ScenarioData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str = Field(pattern=KEY_PATTERN)
    name: str = Field(min_length=1, max_length=120)
    min_warbands: int = Field(ge=2, le=40)
    max_warbands: int | None = Field(default=None, ge=2, le=40)  # None: no upper bound
    roles: Literal["attacker_defender", "none"] = "none"
    notes: str = ""
    i18n: dict[Literal["pl", "it", "fr", "ru"], ScenarioText] = Field(default_factory=dict)  # name and notes in other languages

    def name_in(self, locale: str) -> str:
        text = self.i18n.get(locale)
        return text.name if text else self.name

    def notes_in(self, locale: str) -> str:
        text = self.i18n.get(locale)
        return text.notes if text and text.notes else self.notes


class CatalogFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal[1] = 1
    source: str = Field(pattern=KEY_PATTERN)
    name: str = ""
    factions: list[FactionData] = []
    profiles: list[ProfileData] = []
    mercenaries: list[ProfileData] = []
    items: list[ItemData] = []
    scenarios: list[ScenarioData] = []

    @model_validator(mode="after")
    def _consistent(self) -> CatalogFile:
        for profile in self.profiles:
            if profile.faction is None:
                raise ValueError(f"profile {profile.key}: a faction is required (mercenaries go in 'mercenaries')")
        for merc in self.mercenaries:
            if merc.faction is not None or merc.alignment is None:
                raise ValueError(f"mercenary {merc.key}: no faction, and an alignment is required")
        for kind, rows in (
            ("faction", self.factions),
            ("profile", self.profiles + self.mercenaries),
            ("item", self.items),
            ("scenario", self.scenarios),
        ):
            keys = [r.key for r in rows]
            if len(keys) != len(set(keys)):
                raise ValueError(f"duplicate {kind} keys in one file")
        for s in self.scenarios:
            if s.max_warbands is not None and s.max_warbands < s.min_warbands:
                raise ValueError(f"scenario {s.key}: max_warbands below min_warbands")
        return self


class CatalogError(Exception):
    """A catalog file that does not follow FORMAT.md."""


@dataclass
class Catalog:
    factions: dict[str, FactionData] = field(default_factory=dict)
    profiles: dict[str, ProfileData] = field(default_factory=dict)
    mercenaries: dict[str, ProfileData] = field(default_factory=dict)
    items: dict[str, ItemData] = field(default_factory=dict)
    scenarios: dict[str, ScenarioData] = field(default_factory=dict)

    def merge(self, data: CatalogFile) -> None:
        for name in ("factions", "profiles", "mercenaries", "items", "scenarios"):
            target = getattr(self, name)
            for row in getattr(data, name):
                target[row.key] = row

    def check(self) -> None:
        missing = {p.faction for p in self.profiles.values()} - set(self.factions)
        if missing:
            raise CatalogError(f"profiles name unknown factions: {sorted(missing)}")

    def faction_profiles(self, faction: str) -> list[ProfileData]:
        return sorted((p for p in self.profiles.values() if p.faction == faction), key=lambda p: (p.points, p.name))


def read_file(path: Path) -> CatalogFile:
    try:
        return CatalogFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise CatalogError(f"{path}: {exc}") from exc


def write_file(path: Path, data: CatalogFile) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(
        json.dumps(data.model_dump(mode="json", exclude_defaults=False), ensure_ascii=False, indent=1), encoding="utf-8"
    )
    tmp.replace(path)


def load(dirs: list[Path]) -> Catalog:
    catalog = Catalog()
    for directory in dirs:
        for path in sorted(directory.glob("*.json")):
            catalog.merge(read_file(path))
    catalog.check()
    return catalog


class CatalogStore:
    """Holds the catalog in memory; reloads when an imported file changes (seen within
    RECHECK_SECONDS: looking over the catalog folders' files cost every page that reads the
    catalog some 30 us, issue 37; `forget` reads it again at once)."""

    RECHECK_SECONDS = 1.0

    def __init__(self, import_dir: Path | None):
        self.dirs = [STARTER_DIR] + ([import_dir] if import_dir else [])
        self._lock = threading.Lock()
        self._stamp: tuple | None = None
        self._catalog: Catalog | None = None
        self._checked = -math.inf
        self.generation = 0  # one more with every load: a page's cheap revalidation keys by it (issue 37)

    def _current_stamp(self) -> tuple:
        stamp = []
        for directory in self.dirs:
            if directory.exists():
                stamp.extend((str(p), p.stat().st_mtime_ns) for p in sorted(directory.glob("*.json")))
        return tuple(stamp)

    def forget(self) -> None:
        """The catalog is read again from its files on the next `get`."""
        self._stamp = None
        self._checked = -math.inf

    def get(self) -> Catalog:
        now = time.monotonic()
        if self._catalog is not None and now - self._checked < self.RECHECK_SECONDS:
            return self._catalog
        stamp = self._current_stamp()
        if stamp != self._stamp:
            with self._lock:
                if stamp != self._stamp:
                    self._catalog = load(self.dirs)
                    self._stamp = stamp
                    self.generation += 1
        self._checked = now
        return self._catalog

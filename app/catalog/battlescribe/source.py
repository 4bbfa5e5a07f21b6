"""Reading BattleScribe XML (with defusedxml: no entity is expanded, no external reference
followed): the file itself, the small text helpers every mapping uses, the game system's
categories, cost and profile types, and what an import skips (and why)."""

from __future__ import annotations

import difflib
import re
import unicodedata
import xml.etree.ElementTree as ET  # the element type only: files are parsed by defusedxml
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

# defusedxml ships no type hints (types-defusedxml is not a dependency)
from defusedxml import DefusedXmlException  # type: ignore[import-untyped]
from defusedxml.ElementTree import ParseError, fromstring, parse  # type: ignore[import-untyped]

from ..catalog import ALIGNMENTS, RARITIES, SLOTS, ItemData, ProfileData

SOURCE = "battlescribe"
COMMON_FILE = "bs-common.json"
MEMBER_PROFILE = "Warband Member"
POINTS_COST = "Points"
MERCENARY = "Mercenary"
UNIQUE_MARKERS = ("unique", "named character")
_RARITY_IN_NAME = re.compile(r"\(\s*(common|rare|unique)\s*\)", re.IGNORECASE)
_POINTS_PREFIX = re.compile(r"^\s*\d+\s*pts?\s*[-:]\s*", re.IGNORECASE)
# keys stay within KEY_PATTERN's 120 characters, duplicate suffix included
_MAX_SLUG = 60
_MAX_FACTION_SLUG = 40
_MAX_POINTS = 10_000


class BattleScribeError(Exception):
    """Input that cannot be imported (missing game system, unreadable XML, ...)."""


def slugify(text: str, limit: int = _MAX_SLUG) -> str:
    """Lower-case ASCII slug: "Magwa & Jo'os" -> "magwa-joos"."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    text = re.sub(r"['`\u2019]", "", text)
    text = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    return text[:limit].strip("-") or "x"


def faction_slug(name: str) -> str:
    return slugify(name, _MAX_FACTION_SLUG)


def _clean(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(elem: ET.Element, container: str, child: str) -> list[ET.Element]:
    """Direct `<container><child/>...</container>` children, whatever the namespace."""
    out: list[ET.Element] = []
    for c in elem:
        if _local(c.tag) == container:
            out.extend(x for x in c if _local(x.tag) == child)
    return out


def _iter(elem: ET.Element, tag: str):
    return (e for e in elem.iter() if _local(e.tag) == tag)


def _alignment(text: str | None) -> str | None:
    value = _clean(text).lower()
    if not value:
        return None
    lowered = {a.lower(): a for a in ALIGNMENTS}
    if value in lowered:
        return lowered[value]
    close = difflib.get_close_matches(value, list(lowered), n=1, cutoff=0.75)  # "Netural"
    return lowered[close[0]] if close else None


def _number(text: str | None) -> int | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return int(value + 0.5) if value >= 0 else None


def _short_id(entry_id: str | None) -> str:
    return re.sub(r"[^a-z0-9]", "", (entry_id or "").lower())[:8] or "dup"


def _read_xml(path: Path) -> ET.Element:
    try:
        if path.suffix.lower() in (".gstz", ".catz"):
            with zipfile.ZipFile(path) as zf:
                names = [n for n in zf.namelist() if not n.endswith("/")]
                if not names:
                    raise BattleScribeError(f"{path}: empty archive")
                return fromstring(zf.read(names[0]))
        return parse(path).getroot()
    except (ParseError, zipfile.BadZipFile) as exc:
        raise BattleScribeError(f"{path}: not valid BattleScribe XML ({exc})") from exc
    except DefusedXmlException as exc:  # entities or external references: never expanded
        raise BattleScribeError(f"{path}: XML entities or external references are not allowed ({exc})") from exc
    except OSError as exc:
        raise BattleScribeError(f"{path}: cannot be read ({exc})") from exc


def _unique_keys(entries: list[tuple[str, str | None]]) -> list[str]:
    """Keys for (base key, BattleScribe id) pairs: the first of a name keeps the plain key,
    later ones get a suffix from their own id (stable while the source keeps its ids)."""
    seen: set[str] = set()
    keys: list[str] = []
    for base, entry_id in entries:
        key = base
        if key in seen:
            key = f"{base}-{_short_id(entry_id)}"
            n = 2
            while key in seen:
                key = f"{base}-{_short_id(entry_id)}-{n}"
                n += 1
        seen.add(key)
        keys.append(key)
    return keys


@dataclass(frozen=True)
class Skipped:
    kind: str  # "model" or "item"
    name: str
    reason: str
    source: str = ""

    def line(self) -> str:
        where = f" ({self.source})" if self.source else ""
        return f"skipped {self.kind} '{self.name}'{where}: {self.reason}"


@dataclass
class GameSystem:
    path: Path
    id: str
    name: str
    revision: str
    categories: dict[str, str]  # category id -> name
    points_cost_id: str | None
    member_profile_type_id: str | None
    item_profile_types: dict[str, str]  # profile type id -> slot
    items: list[ItemData] = field(default_factory=list)
    mercenaries: list[ProfileData] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    model_entries: int = 0  # selectionEntry type=model with a Warband Member profile

    @property
    def title(self) -> str:
        return self.name or self.path.stem

    def category_id(self, name: str) -> str | None:
        for cid, cname in self.categories.items():
            if cname.strip().lower() == name.lower():
                return cid
        return None


def _slot_of(name: str | None) -> str | None:
    value = _clean(name).lower()
    if value.startswith("items -"):
        value = value[len("items -") :].strip()
    for slot in SLOTS:
        if value == slot.lower():
            return slot
    return None


def _rarity_of(name: str | None) -> str | None:
    value = _clean(name).lower()
    if value.startswith("items -"):
        value = value[len("items -") :].strip()
    for rarity in RARITIES:
        if value == rarity.lower():
            return rarity
    return None


def _points(entry: ET.Element, system: GameSystem) -> int | None:
    for cost in _children(entry, "costs", "cost"):
        if (system.points_cost_id and cost.get("typeId") == system.points_cost_id) or _clean(
            cost.get("name")
        ).lower() == POINTS_COST.lower():
            return _number(cost.get("value"))
    return None

"""Import BattleScribe data (a `.gst` game system and `.cat` catalogues) into Hideout catalog
files (FORMAT.md; V1, V2).

BattleScribe XML is read with the standard library only. What the importer takes from it:

* **Game system** (`.gst`): the category names (Grunt, Warrior, Command, Support,
  Spellcaster, Large, Mercenary, ...), the id of the `" Points"` cost type, the id of the
  `" Warband Member"` profile type, the items and the mercenaries.
* **Models**: every `selectionEntry type="model"` anywhere in a file that carries a
  `" Warband Member"` profile. Its types are its category links resolved to category names
  (BattleScribe names most links "New CategoryLink", so the *target* decides); only the six
  model types are kept, a model with none of them is skipped with a reason. A model
  categorised "Mercenary" becomes a mercenary (no faction, its own alignment).
* **Unique**: a model is a named character when the entry itself is limited to at most one
  selection per roster / force (a `max` constraint of 1 whose scope is not `parent` and that
  no modifier raises), or when it carries a category or rule named "Unique" or
  "Named Character". Ordinary profiles use a `max 0` constraint raised by modifiers per
  40 points; that pattern never counts as unique.
* **Healer**: a special rule whose name contains "Heal".
* **Items**: entries offered in an item group (a `selectionEntryGroup` whose name contains
  "Items", e.g. `" Items"`, with sub-groups named after the slots and/or rarities) and
  entries with an `"Items - <Slot>"` profile. The slot comes from the `"Items - <Slot>"`
  profile type, else from the nearest enclosing group named after a slot; the rarity from the
  `(Common)` / `(Rare)` / `(Unique)` marker in the entry's name, else from the nearest
  enclosing group named after a rarity (or "Items - <Rarity>"). Entries with an item profile
  but no rarity (a model's default Spear, Bow, ...) are skipped with a reason.

Keys are derived from names, not from BattleScribe ids, so they survive re-imports:
`bs.<faction>` (faction), `bs.<faction>.<model>` (profile), `bs.merc.<model>` (mercenary),
`bs.item.<item>` (game-system item) and `bs.item.<faction>.<item>` (catalogue item). When two
entries of one file share a name, the first keeps the plain key and each later one gets a
short suffix from its own BattleScribe id.

`import_catalog` writes one file per faction (`<faction-key>.json`) plus `bs-common.json`
(game-system items and mercenaries), compares each with the file already there and never
drops an entry an older import wrote (V2): entries no longer in the source are kept as they
were. Importing the same sources twice leaves every file untouched.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .catalog import (
    ALIGNMENTS,
    MODEL_TYPES,
    RARITIES,
    SLOTS,
    STATS,
    CatalogError,
    CatalogFile,
    FactionData,
    ItemData,
    ProfileData,
    read_file,
    write_file,
)

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


# ---------------------------------------------------------------------------------------------
# small helpers


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
                return ET.fromstring(zf.read(names[0]))
        return ET.parse(path).getroot()
    except (ET.ParseError, zipfile.BadZipFile) as exc:
        raise BattleScribeError(f"{path}: not valid BattleScribe XML ({exc})") from exc
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


# ---------------------------------------------------------------------------------------------
# the game system


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
        value = value[len("items -"):].strip()
    for slot in SLOTS:
        if value == slot.lower():
            return slot
    return None


def _rarity_of(name: str | None) -> str | None:
    value = _clean(name).lower()
    if value.startswith("items -"):
        value = value[len("items -"):].strip()
    for rarity in RARITIES:
        if value == rarity.lower():
            return rarity
    return None


def parse_game_system(path: Path) -> GameSystem:
    path = Path(path)
    root = _read_xml(path)
    if _local(root.tag) != "gameSystem":
        raise BattleScribeError(f"{path}: not a BattleScribe game system (root <{_local(root.tag)}>)")
    categories = {c.get("id", ""): _clean(c.get("name")) for c in _iter(root, "categoryEntry")}
    points_id = next((c.get("id") for c in _iter(root, "costType")
                      if _clean(c.get("name")).lower() == POINTS_COST.lower()), None)
    member_id = None
    item_types: dict[str, str] = {}
    for pt in _iter(root, "profileType"):
        name = _clean(pt.get("name"))
        if name.lower() == MEMBER_PROFILE.lower():
            member_id = pt.get("id")
        elif name.lower().startswith("items -") and _slot_of(name):
            item_types[pt.get("id", "")] = _slot_of(name)
    if member_id is None:
        raise BattleScribeError(f"{path}: no '{MEMBER_PROFILE}' profile type; is this a Vanguard game system?")
    system = GameSystem(path=path, id=root.get("id", ""), name=_clean(root.get("name")),
                        revision=root.get("revision", ""), categories=categories,
                        points_cost_id=points_id, member_profile_type_id=member_id,
                        item_profile_types=item_types)
    source = path.name
    system.items, item_skips = _parse_items(root, system, key_prefix="bs.item", source=source)
    models = _parse_models(root, system, faction=None, source=source, own_categories={})
    system.model_entries = models.count
    system.mercenaries = models.rows  # a game-system model is imported only as a mercenary
    system.skipped = item_skips + models.skipped
    return system


# ---------------------------------------------------------------------------------------------
# items


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


def _parse_items(root: ET.Element, system: GameSystem, key_prefix: str, source: str
                 ) -> tuple[list[ItemData], list[Skipped]]:
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
            slot = (system.item_profile_types.get(item_profile.get("typeId", ""))
                    or _slot_of(item_profile.get("typeName")))
        slot = slot or next((s for s, _ in entry_hints if s), None)  # ... then the group offering it
        marker = _RARITY_IN_NAME.search(raw_name)
        rarity = marker.group(1).capitalize() if marker else next((r for _, r in entry_hints if r), None)
        name = _clean(item_profile.get("name")) if item_profile is not None else ""
        if not name:
            name = _clean(_RARITY_IN_NAME.sub("", _POINTS_PREFIX.sub("", raw_name)))
        if not rarity:
            skipped.append(Skipped("item", raw_name, "no rarity: not in an item group and no (Common/Rare/Unique) "
                                   "in its name (a model's own equipment)", source))
            continue
        if not slot:
            skipped.append(Skipped("item", raw_name, "no slot: no 'Items - <slot>' profile and not in a slot group",
                                   source))
            continue
        points = _points(entry, system)
        if points is None or points > _MAX_POINTS:
            reason = f"no '{POINTS_COST}' cost" if points is None else f"{points} points is out of range"
            skipped.append(Skipped("item", raw_name, reason, source))
            continue
        notes = ""
        if item_profile is not None:
            notes = " ".join(_clean(c.text) for c in _iter(item_profile, "characteristic") if _clean(c.text))
        rows.append((f"{key_prefix}.{slugify(name)}", entry.get("id"),
                     dict(name=name[:120], rarity=rarity, slot=slot, points=points, notes=notes)))
    keys = _unique_keys([(k, i) for k, i, _ in rows])
    return [ItemData(key=key, **data) for key, (_, _, data) in zip(keys, rows)], skipped


def _points(entry: ET.Element, system: GameSystem) -> int | None:
    for cost in _children(entry, "costs", "cost"):
        if (system.points_cost_id and cost.get("typeId") == system.points_cost_id) or \
                _clean(cost.get("name")).lower() == POINTS_COST.lower():
            return _number(cost.get("value"))
    return None


# ---------------------------------------------------------------------------------------------
# models


def _is_member_profile(profile: ET.Element, system: GameSystem) -> bool:
    return (profile.get("typeId") == system.member_profile_type_id
            or _clean(profile.get("typeName")).lower() == MEMBER_PROFILE.lower())


def _is_unique(sources: list[ET.Element], categories: list[str], rules: list[str]) -> bool:
    """A named character: marked so by name, or limited to one per roster / force by a `max`
    constraint that no modifier raises (ordinary profiles: `max 0` raised per 40 points)."""
    if any(name.strip().lower() in UNIQUE_MARKERS for name in categories + rules):
        return True
    raised = {m.get("field") for src in sources for m in _iter(src, "modifier")
              if m.get("type") in ("increment", "set")}
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


def _parse_models(root: ET.Element, system: GameSystem, faction: str | None, source: str,
                  own_categories: dict[str, str]) -> _Models:
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
        name = _clean(entry.get("name")) or _clean(profile.get("name"))
        chars = {_clean(c.get("name")): _clean(c.text) for c in _iter(profile, "characteristic")}
        cat_names = [categories.get(link.get("targetId", ""), _clean(link.get("name")))
                     for src in sources for link in _children(src, "categoryLinks", "categoryLink")]
        types = _model_types(cat_names)
        is_merc = any(c.strip().lower() == MERCENARY.lower() for c in cat_names)
        if not types:
            shown = ", ".join(c for c in cat_names if c) or "none"
            skipped.append(Skipped("model", name, f"no model type among its categories ({shown})", source))
            continue
        if faction is None and not is_merc:
            skipped.append(Skipped("model", name, "a game-system model that is not marked Mercenary", source))
            continue
        points = _points(entry, system)
        if points is None or points > _MAX_POINTS:
            reason = f"no '{POINTS_COST}' cost" if points is None else f"{points} points is out of range"
            skipped.append(Skipped("model", name, reason, source))
            continue
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
        )
        if is_merc:
            if alignment is None:
                skipped.append(Skipped("model", name, f"mercenary without a known alignment "
                                       f"({chars.get('Alignment') or 'none'})", source))
                continue
            rows.append((f"bs.merc.{slugify(name)}", entry.get("id"), dict(data, faction=None, alignment=alignment)))
        else:
            rows.append((f"{faction}.{slugify(name)}", entry.get("id"),
                         dict(data, faction=faction, _alignment=alignment)))
    out, alignments = _profiles(rows)
    return _Models(rows=out, skipped=skipped, count=count, alignments=alignments)


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


# ---------------------------------------------------------------------------------------------
# catalogues


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
    data = CatalogFile(source=SOURCE, name=_file_title(name, root.get("revision")), factions=[faction],
                       profiles=profiles, mercenaries=mercenaries, items=items)
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


# ---------------------------------------------------------------------------------------------
# import with a report


@dataclass
class FileReport:
    title: str
    output: Path
    sources: list[str]
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    retained: list[str] = field(default_factory=list)  # gone from the source, kept in the file (V2)
    skipped: list[Skipped] = field(default_factory=list)
    written: bool = False

    def summary_line(self) -> str:
        line = (f"{self.title}: {len(self.added)} added, {len(self.changed)} changed, "
                f"{len(self.kept)} kept, {len(self.skipped)} skipped")
        if self.retained:
            line += f", {len(self.retained)} no longer in the source (kept)"
        return line


@dataclass
class ImportReport:
    files: list[FileReport] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        return [f.summary_line() for f in self.files]

    def detail_lines(self) -> list[str]:
        lines: list[str] = []
        for f in self.files:
            lines.extend(f"{f.title}: added {k}" for k in f.added)
            lines.extend(f"{f.title}: changed {k}" for k in f.changed)
            lines.extend(f"{f.title}: no longer in the source, kept {k}" for k in f.retained)
            lines.extend(f"{f.title}: {s.line()}" for s in f.skipped)
        return lines

    def file(self, title_or_name: str) -> FileReport:
        for f in self.files:
            if title_or_name in (f.title, f.output.name, f.output.stem):
                return f
        raise KeyError(title_or_name)

    @property
    def added(self) -> list[str]:
        return [k for f in self.files for k in f.added]

    @property
    def changed(self) -> list[str]:
        return [k for f in self.files for k in f.changed]

    @property
    def kept(self) -> list[str]:
        return [k for f in self.files for k in f.kept]

    @property
    def retained(self) -> list[str]:
        return [k for f in self.files for k in f.retained]

    @property
    def skipped(self) -> list[Skipped]:
        return [s for f in self.files for s in f.skipped]


_KINDS = ("factions", "profiles", "mercenaries", "items")


def _merge(new: CatalogFile, old: CatalogFile | None, report: FileReport) -> CatalogFile:
    """New rows win; rows of the old file that the source no longer has are kept (V2)."""
    merged: dict[str, list] = {}
    for kind in _KINDS:
        old_rows = {r.key: r for r in (getattr(old, kind) if old else [])}
        rows = {}
        for row in getattr(new, kind):
            before = old_rows.pop(row.key, None)
            if before is None:
                report.added.append(row.key)
            elif before.model_dump() != row.model_dump():
                report.changed.append(row.key)
            else:
                report.kept.append(row.key)
            rows[row.key] = row
        for key, row in old_rows.items():  # what the source no longer has
            report.retained.append(key)
            rows[key] = row
        merged[kind] = [rows[k] for k in sorted(rows)]
    return CatalogFile(source=new.source, name=new.name, scenarios=list(old.scenarios) if old else [], **merged)


def _plan(path: Path, new: CatalogFile, report: FileReport) -> CatalogFile | None:
    """The merged file to write to `path`, or None when the file already holds exactly that."""
    old = None
    if path.exists():
        try:
            old = read_file(path)
        except CatalogError as exc:
            raise BattleScribeError(f"{path} exists but is not a valid catalog file; fix or remove it "
                                    f"before importing ({exc})") from exc
    merged = _merge(new, old, report)
    if old is not None and merged.model_dump() == old.model_dump():
        return None
    return merged


def _expand(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    systems: list[Path] = []
    catalogues: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            members = sorted(x for x in p.iterdir() if x.is_file())
        elif p.exists():
            members = [p]
        else:
            raise BattleScribeError(f"{p}: no such file")
        for m in members:
            suffix = m.suffix.lower()
            if suffix in (".gst", ".gstz"):
                systems.append(m)
            elif suffix in (".cat", ".catz"):
                catalogues.append(m)
            elif not p.is_dir():
                raise BattleScribeError(f"{m}: not a BattleScribe file (.gst or .cat)")
    return list(dict.fromkeys(systems)), list(dict.fromkeys(catalogues))


def import_catalog(paths: list[Path], out_dir: Path) -> ImportReport:
    """Import a game system and catalogues (any order; a directory stands for its files) into
    `out_dir`: one `<faction-key>.json` per catalogue, game-system items and mercenaries in
    `bs-common.json`. Without a `.gst` among the paths, the one beside the catalogues is used."""
    out_dir = Path(out_dir)
    gst_paths, cat_paths = _expand(paths)
    if not gst_paths:
        beside = sorted({g for c in cat_paths for g in c.parent.iterdir()
                         if g.suffix.lower() in (".gst", ".gstz")})
        gst_paths = beside
    if not gst_paths:
        raise BattleScribeError("no game system: give the .gst file (none lies beside the catalogues)")
    systems = [parse_game_system(p) for p in gst_paths]
    by_id = {s.id: s for s in systems}

    parsed: list[ParsedCatalogue] = []
    for cat in cat_paths:
        root_system_id = _read_xml(cat).get("gameSystemId") if len(systems) > 1 else None
        system = by_id.get(root_system_id) if root_system_id else systems[0]
        if system is None:
            raise BattleScribeError(f"{cat}: none of the given game systems has id {root_system_id}")
        parsed.append(read_catalogue(cat, system))
    seen: dict[str, Path] = {}
    for pc in parsed:
        key = pc.faction.key
        if key in seen:
            raise BattleScribeError(f"{pc.path} and {seen[key]} both give faction {key}")
        seen[key] = pc.path

    # game-system items and mercenaries (keys stay unique should several systems be given)
    items = list({i.key: i for s in systems for i in s.items}.values())
    mercs = list({m.key: m for s in systems for m in s.mercenaries}.values())
    common = CatalogFile(source=SOURCE, items=items, mercenaries=mercs,
                         name=_file_title(", ".join(s.title for s in systems), systems[0].revision
                                          if len(systems) == 1 else None) + ": items and mercenaries")
    jobs = [(common, FileReport(title=" / ".join(s.title for s in systems) + " (items and mercenaries)",
                                output=out_dir / COMMON_FILE, sources=[s.path.name for s in systems],
                                skipped=[x for s in systems for x in s.skipped]))]
    for pc in sorted(parsed, key=lambda p: p.faction.key):
        jobs.append((pc.data, FileReport(title=pc.faction.name, output=out_dir / f"{pc.faction.key}.json",
                                         sources=[pc.path.name], skipped=list(pc.skipped))))

    # compare with every existing file first, so a bad one stops the import before any write
    report = ImportReport()
    plans = []
    for new, file_report in jobs:
        plans.append(_plan(file_report.output, new, file_report))
        report.files.append(file_report)
    out_dir.mkdir(parents=True, exist_ok=True)
    for merged, file_report in zip(plans, report.files):
        if merged is not None:
            write_file(file_report.output, merged)
            file_report.written = True
    return report

"""A BattleScribe or New Recruit roster (R12.15): a `.ros` file (XML in the rosterSchema
namespace) or a `.rosz` (a zip holding one `.ros`), read from an upload that nobody vouches
for, and matched to the catalog.

Every refusal is a 422 with its reason, and none of them has read more than it had to: the
upload and the unpacked roster are capped before and while they are read (a zip's member size
is checked in its header, then the read stops at the cap whatever the header said); the XML is
parsed by defusedxml with DTDs forbidden, so no entity is expanded and no external reference
followed; the selection tree is walked without recursion.

Matching: an entry is found first by its BSData entry id (the `bs_id` the importer writes on
each profile and item, and the starter catalog carries where it has the same entry), then by
the key the importer gives that entry — the faction of the roster's catalogue, the entry's
name, and its entry id's suffix where names repeat — then by its name among the faction's
profiles (case, accents, spacing ignored). A model's upgrades (weapons, items) are matched the
same way among the catalog's items (a "(Common)" marker or "5 pts - " prefix in the name
ignored) and bought with it; upgrades outside a model (a force's or a unit's) go to the
stash. BattleScribe's "Rule Check" entries are the data's own bookkeeping, not equipment, and
are left out; every other upgrade not found is listed with its model. Mercenaries are hired
with a warband, not bought."""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass
from xml.etree.ElementTree import Element

# defusedxml ships no type hints (types-defusedxml is not a dependency)
from defusedxml import DefusedXmlException  # type: ignore[import-untyped]
from defusedxml.ElementTree import ParseError, fromstring  # type: ignore[import-untyped]

from app.catalog.catalog import Catalog, ItemData, ProfileData
from app.core.errors import DomainError

from .source import _POINTS_PREFIX, _RARITY_IN_NAME, _clean, _short_id, faction_slug, slugify

ROSTER_NS = "http://www.battlescribe.net/schema/rosterSchema"
MAX_BYTES = 2 * 1024 * 1024  # the file as uploaded, and the roster inside a .rosz
MAX_MODELS = 100  # a Vanguard company has a dozen; more is not a roster of one
MAX_EACH = 2  # copies of one upgrade a model takes (V8: two items at most)
RULE_CHECK = "rule check"  # BSData's validation entries ("Rule Check - Base Unit Count")


@dataclass(frozen=True)
class Upgrade:
    name: str
    entry_id: str
    number: int


@dataclass(frozen=True)
class Selection:
    name: str
    entry_id: str  # "<link id>::<entry id>" for an entry reached through a link
    number: int
    upgrades: tuple[Upgrade, ...] = ()  # chosen for these models (weapons, items), rule checks left out


@dataclass(frozen=True)
class Roster:
    name: str
    catalogues: tuple[str, ...]  # the names of the forces' catalogues, each once
    selections: tuple[Selection, ...]  # the models, in the roster's order
    upgrades: tuple[Upgrade, ...] = ()  # chosen for no one model (a force's or a unit's)

    @property
    def models(self) -> int:
        return sum(s.number for s in self.selections)


@dataclass(frozen=True)
class RosterMatch:
    faction: str  # a faction key of the catalog
    profiles: tuple[ProfileData, ...]  # one per model to buy (a selection of 3 is listed 3 times)
    unmatched: tuple[str, ...]  # the names of the selections not found, each once
    items: tuple[tuple[int | None, ItemData], ...] = ()  # (the model's index in profiles, or None: the stash)
    lost: tuple[tuple[int | None, str], ...] = ()  # upgrades not in the catalog: (the model's index, the name)


def _max_mb() -> int:
    return MAX_BYTES // (1024 * 1024)


def read_roster(data: bytes) -> Roster:
    """The roster in an uploaded `.ros` or `.rosz` file, or a 422 saying why not."""
    if not data:
        raise DomainError("roster_no_file")
    if len(data) > MAX_BYTES:
        raise DomainError("roster_too_large", max_mb=_max_mb())
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        data = _unpacked(data)
    return _roster(_parsed(data))


def _unpacked(data: bytes) -> bytes:
    """The one `.ros` of a `.rosz`: its size checked in the header first, then capped while read."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError):
        raise DomainError("roster_archive_invalid") from None
    with archive:
        members = archive.infolist()
        if len(members) != 1 or members[0].is_dir():
            raise DomainError("roster_archive_members", count=len(members))
        member = members[0]
        if member.file_size > MAX_BYTES:
            raise DomainError("roster_archive_too_large", max_mb=_max_mb())
        try:
            with archive.open(member) as stream:
                content = stream.read(MAX_BYTES + 1)
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, ValueError, OSError, EOFError):
            raise DomainError("roster_archive_invalid") from None
    if len(content) > MAX_BYTES:  # the header lied about the size
        raise DomainError("roster_archive_too_large", max_mb=_max_mb())
    return content


def _parsed(data: bytes) -> Element:
    try:
        return fromstring(data, forbid_dtd=True)
    except DefusedXmlException:
        raise DomainError("roster_unsafe_xml") from None
    except (ParseError, LookupError, ValueError):
        raise DomainError("roster_not_xml") from None


def _tag(name: str) -> str:
    return f"{{{ROSTER_NS}}}{name}"


_WALKED = {_tag(n) for n in ("forces", "force", "selections", "selection")}


def _roster(root: Element) -> Roster:
    if root.tag != _tag("roster"):
        raise DomainError("roster_not_roster")
    catalogues: list[str] = []
    selections: list[Selection] = []
    loose: list[Upgrade] = []
    count = 0
    # forces may hold forces, a unit may hold models; a model's own selections are its
    # upgrades. Walked depth first with a stack, in document order.
    stack: list[Element] = [root]
    while stack:
        node = stack.pop()
        if node.tag == _tag("selection"):
            kind = node.get("type")
            if kind == "model" or (kind == "unit" and not _holds_models(node)):
                selection = _selection(node)
                selections.append(selection)
                count += selection.number
                if count > MAX_MODELS:
                    raise DomainError("roster_too_many_models", max=MAX_MODELS)
                continue
            if kind != "unit":  # an upgrade of the force, or of a unit of models
                loose.extend(_upgrades(node, include_self=True))
                continue
        elif node.tag == _tag("force") and (name := _clean(node.get("catalogueName"))) and name not in catalogues:
            catalogues.append(name)
        stack.extend(reversed([child for child in node if child.tag in _WALKED]))
    return Roster(_clean(root.get("name"))[:120], tuple(catalogues), tuple(selections), tuple(loose))


def _selection(node: Element) -> Selection:
    number = _number(node.get("number"))
    return Selection(_clean(node.get("name"))[:120], node.get("entryId", ""), number, tuple(_upgrades(node, models=number)))


def _upgrades(node: Element, *, include_self: bool = False, models: int = 1) -> list[Upgrade]:
    """The upgrades in `node` (and `node` itself if asked), nested ones too, without recursion;
    each copied at most MAX_EACH times a model (more cannot be carried)."""
    found: list[Upgrade] = []
    stack = [node] if include_self else _children(node)
    while stack:
        child = stack.pop()
        name = _clean(child.get("name"))[:120]
        if child.get("type") == "upgrade" and not name.lower().startswith(RULE_CHECK):
            found.append(Upgrade(name, child.get("entryId", ""), min(_number(child.get("number")), MAX_EACH * models)))
        stack.extend(_children(child))
    return found


def _children(node: Element) -> list[Element]:
    return list(reversed([c for group in node.findall(_tag("selections")) for c in group.findall(_tag("selection"))]))


def _holds_models(unit: Element) -> bool:
    return any(
        child.get("type") == "model" for group in unit.findall(_tag("selections")) for child in group.findall(_tag("selection"))
    )


def _number(text: str | None) -> int:
    try:
        value = int(float(text or "1"))
    except (ValueError, OverflowError):
        return 1
    return min(max(value, 1), MAX_MODELS + 1)


def _folded(name: str) -> str:
    return slugify(name, 200)


def roster_faction(catalog: Catalog, roster: Roster) -> str:
    """The faction key of the roster's catalogue: the key the importer gives it, else the
    faction of that name."""
    if not roster.catalogues:
        raise DomainError("roster_not_roster")
    if len(roster.catalogues) > 1:
        raise DomainError("roster_two_factions", factions=", ".join(roster.catalogues))
    name = roster.catalogues[0]
    key = f"bs.{faction_slug(name)}"
    if key in catalog.factions:
        return key
    wanted = _folded(name)
    for fkey, faction in sorted(catalog.factions.items()):
        if _folded(faction.name) == wanted:
            return fkey
    raise DomainError("roster_faction_unknown", catalogue=name)


def match_roster(catalog: Catalog, roster: Roster) -> RosterMatch:
    if not roster.selections:
        raise DomainError("roster_no_models")
    faction = roster_faction(catalog, roster)
    known = sorted(catalog.faction_profiles(faction), key=lambda p: p.key)
    by_id = {p.bs_id: p for p in reversed(known) if p.bs_id}
    by_name: dict[str, ProfileData] = {}
    for profile in known:
        by_name.setdefault(_folded(profile.name), profile)
    items = _ItemIndex(catalog)
    profiles: list[ProfileData] = []
    unmatched: list[str] = []
    bought: list[tuple[int | None, ItemData]] = []
    lost: list[tuple[int | None, str]] = []
    for selection in roster.selections:
        found = (
            by_id.get(_entry_id(selection.entry_id))
            or _by_key(catalog, faction, selection)
            or by_name.get(_folded(selection.name))
        )
        if found is None:
            if selection.name not in unmatched:
                unmatched.append(selection.name or "?")
            continue
        first = len(profiles)
        profiles.extend([found] * selection.number)
        for upgrade in selection.upgrades:
            for n in range(upgrade.number):  # a selection of 3 with 3 spears: one each
                _take(items, upgrade, first + n % selection.number, bought, lost)
    for upgrade in roster.upgrades:
        for _n in range(min(upgrade.number, MAX_EACH * MAX_MODELS)):
            _take(items, upgrade, None, bought, lost)
    return RosterMatch(faction, tuple(profiles), tuple(unmatched), tuple(bought), tuple(dict.fromkeys(lost)))


def _take(items: _ItemIndex, upgrade: Upgrade, model: int | None, bought: list, lost: list) -> None:
    item = items.find(upgrade)
    if item is None:
        lost.append((model, upgrade.name or "?"))
    else:
        bought.append((model, item))


class _ItemIndex:
    """The catalog's items by BSData id and by folded name (a "(Rare)" marker and a "5 pts -"
    prefix left out, as the importer names them); the importer's keys sort first."""

    def __init__(self, catalog: Catalog) -> None:
        ordered = sorted(catalog.items.values(), key=lambda i: (not i.key.startswith("bs."), i.key))
        self.by_id = {i.bs_id: i for i in reversed(ordered) if i.bs_id}
        self.by_name: dict[str, ItemData] = {}
        for item in ordered:
            self.by_name.setdefault(_item_name(item.name), item)

    def find(self, upgrade: Upgrade) -> ItemData | None:
        return self.by_id.get(_entry_id(upgrade.entry_id)) or self.by_name.get(_item_name(upgrade.name))


def _item_name(name: str) -> str:
    return _folded(_RARITY_IN_NAME.sub("", _POINTS_PREFIX.sub("", name)))


def _entry_id(entry_id: str) -> str:
    """The entry's own id: a link's selection names the link, then the entry ("link::entry")."""
    return entry_id.rsplit("::", 1)[-1]


def _by_key(catalog: Catalog, faction: str, selection: Selection) -> ProfileData | None:
    """The profile the importer made of this entry: `<faction>.<name>`, or with the entry id's
    suffix when the catalogue repeats the name."""
    base = f"{faction}.{slugify(selection.name)}"
    for key in (f"{base}-{_short_id(_entry_id(selection.entry_id))}", base):
        profile = catalog.profiles.get(key)
        if profile is not None and profile.faction == faction:
            return profile
    return None

"""A BattleScribe or New Recruit roster (R12.15): a `.ros` file (XML in the rosterSchema
namespace) or a `.rosz` (a zip holding one `.ros`), read from an upload that nobody vouches
for, and matched to the catalog.

Every refusal is a 422 with its reason, and none of them has read more than it had to: the
upload and the unpacked roster are capped before and while they are read (a zip's member size
is checked in its header, then the read stops at the cap whatever the header said); the XML is
parsed by defusedxml with DTDs forbidden, so no entity is expanded and no external reference
followed; the selection tree is walked without recursion.

Matching: the importer keeps no BattleScribe id in the catalog (keys come from names, and an
entry's id only shows as the suffix of a repeated name, see source.py). So a model selection is
matched first by the key the importer gives that entry — the faction of the roster's catalogue,
the entry's name, and its entry id's suffix where names repeat — then by its name among the
faction's profiles (case, accents, spacing ignored). Only models are bought: upgrades inside a
model (weapons, items, spells) stay out, and mercenaries are hired with a warband, not bought."""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass
from xml.etree.ElementTree import Element

# defusedxml ships no type hints (types-defusedxml is not a dependency)
from defusedxml import DefusedXmlException  # type: ignore[import-untyped]
from defusedxml.ElementTree import ParseError, fromstring  # type: ignore[import-untyped]

from app.catalog.catalog import Catalog, ProfileData
from app.core.errors import DomainError

from .source import _clean, _short_id, faction_slug, slugify

ROSTER_NS = "http://www.battlescribe.net/schema/rosterSchema"
MAX_BYTES = 2 * 1024 * 1024  # the file as uploaded, and the roster inside a .rosz
MAX_MODELS = 100  # a Vanguard company has a dozen; more is not a roster of one


@dataclass(frozen=True)
class Selection:
    name: str
    entry_id: str  # "<link id>::<entry id>" for an entry reached through a link
    number: int


@dataclass(frozen=True)
class Roster:
    name: str
    catalogues: tuple[str, ...]  # the names of the forces' catalogues, each once
    selections: tuple[Selection, ...]  # the models, in the roster's order

    @property
    def models(self) -> int:
        return sum(s.number for s in self.selections)


@dataclass(frozen=True)
class RosterMatch:
    faction: str  # a faction key of the catalog
    profiles: tuple[ProfileData, ...]  # one per model to buy (a selection of 3 is listed 3 times)
    unmatched: tuple[str, ...]  # the names of the selections not found, each once


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
    count = 0
    # forces may hold forces, a unit may hold models; a model's own selections are its
    # upgrades. Walked depth first with a stack, in document order.
    stack: list[Element] = [root]
    while stack:
        node = stack.pop()
        if node.tag == _tag("selection"):
            kind = node.get("type")
            if kind == "model" or (kind == "unit" and not _holds_models(node)):
                selection = Selection(_clean(node.get("name"))[:120], node.get("entryId", ""), _number(node.get("number")))
                selections.append(selection)
                count += selection.number
                if count > MAX_MODELS:
                    raise DomainError("roster_too_many_models", max=MAX_MODELS)
                continue
            if kind != "unit":
                continue
        elif node.tag == _tag("force") and (name := _clean(node.get("catalogueName"))) and name not in catalogues:
            catalogues.append(name)
        stack.extend(reversed([child for child in node if child.tag in _WALKED]))
    return Roster(_clean(root.get("name"))[:120], tuple(catalogues), tuple(selections))


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
    by_name: dict[str, ProfileData] = {}
    for known in sorted(catalog.faction_profiles(faction), key=lambda p: p.key):
        by_name.setdefault(_folded(known.name), known)
    profiles: list[ProfileData] = []
    unmatched: list[str] = []
    for selection in roster.selections:
        profile = _by_key(catalog, faction, selection) or by_name.get(_folded(selection.name))
        if profile is None:
            if selection.name not in unmatched:
                unmatched.append(selection.name or "?")
            continue
        profiles.extend([profile] * selection.number)
    return RosterMatch(faction, tuple(profiles), tuple(unmatched))


def _by_key(catalog: Catalog, faction: str, selection: Selection) -> ProfileData | None:
    """The profile the importer made of this entry: `<faction>.<name>`, or with the entry id's
    suffix when the catalogue repeats the name."""
    base = f"{faction}.{slugify(selection.name)}"
    entry_id = selection.entry_id.rsplit("::", 1)[-1]
    for key in (f"{base}-{_short_id(entry_id)}", base):
        profile = catalog.profiles.get(key)
        if profile is not None and profile.faction == faction:
            return profile
    return None

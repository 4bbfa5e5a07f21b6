"""BattleScribe rosters (R12.15) built from the real BSData Kings of War: Vanguard files in
../shared (read there, never copied): a `.ros` picks a catalogue's model entries by name, with
their ids and points, the rule checks BattleScribe adds to each by itself, and the upgrades a
test chooses for a model (one the entry links, an item of the game system's item groups, or
one no catalog has), as BattleScribe writes a roster; a `.rosz` zips it. The catalog a test
imports from the same files is `import_bsdata`."""

from __future__ import annotations

import io
import uuid
import xml.etree.ElementTree as ET
import zipfile
from functools import cache
from pathlib import Path

BSDATA = Path(__file__).resolve().parents[2].parent / "shared" / "catalog-sources" / "battlescribe"
GAME_SYSTEM = BSDATA / "Vanguard.gst"
ROSTER_NS = "http://www.battlescribe.net/schema/rosterSchema"
_CAT_NS = {"bs": "http://www.battlescribe.net/schema/catalogueSchema"}
_GST_NS = {"bs": "http://www.battlescribe.net/schema/gameSystemSchema"}
NORMAL_GAMES = "3734-3c1c-d6b8-29c2"  # the game system's "Warband - Normal Games" force entry


@cache
def _root(path: Path) -> ET.Element:
    return ET.parse(path).getroot()


def catalogue(name: str) -> ET.Element:
    """A catalogue of ../shared by its file name without `.cat` ("Goblins")."""
    return _root(BSDATA / f"{name}.cat")


def model_entry(cat: ET.Element, name: str) -> ET.Element:
    """The catalogue's (or the game system's) model entry of that name."""
    ns = _GST_NS if cat.tag.endswith("gameSystem") else _CAT_NS
    for entry in cat.findall("bs:selectionEntries/bs:selectionEntry", ns):
        if entry.get("type") == "model" and entry.get("name") == name:
            return entry
    raise KeyError(f"{cat.get('name')} has no model entry {name!r}")


def _points(entry: ET.Element) -> str:
    for cost in entry.iter():
        if cost.tag.endswith("}cost") and cost.get("name", "").strip() == "Points":
            return cost.get("value", "0")
    return "0"


def _offered(entry: ET.Element) -> dict[str, tuple[str, str]]:
    """The upgrades a model entry offers, by name: (the roster's entryId, points) — the entry's
    own links, then the game system's items in the item groups it links."""
    system = _root(GAME_SYSTEM)
    by_id = {e.get("id"): e for e in system.iter() if e.get("id")}
    offered: dict[str, tuple[str, str]] = {}
    for link in entry.iter():
        if not link.tag.endswith("}entryLink"):
            continue
        if link.get("type") == "selectionEntry":
            offered.setdefault(link.get("name", ""), (f"{link.get('id')}::{link.get('targetId')}", "0"))
        group = by_id.get(link.get("targetId")) if link.get("type") == "selectionEntryGroup" else None
        for item in group.iter() if group is not None else ():
            if item.tag.endswith("}entryLink") and item.get("type") == "selectionEntry":
                target = by_id.get(item.get("targetId"))
                points = _points(target) if target is not None else "0"
                offered.setdefault(item.get("name", ""), (f"{item.get('id')}::{item.get('targetId')}", points))
    return offered


def _selection(parent: ET.Element, entry: ET.Element, number: int, upgrades: tuple[str, ...] = ()) -> None:
    sel = ET.SubElement(
        parent,
        f"{{{ROSTER_NS}}}selection",
        id=str(uuid.uuid4())[:19],
        name=entry.get("name", ""),
        entryId=entry.get("id", ""),
        number=str(number),
        type="model",
    )
    costs = ET.SubElement(sel, f"{{{ROSTER_NS}}}costs")
    ET.SubElement(costs, f"{{{ROSTER_NS}}}cost", name=" Points", typeId="b888-e3bd-8798-6364", value=_points(entry))
    # the rule checks BattleScribe adds by itself, then the upgrades chosen, nested as it nests them
    offered = _offered(entry)
    chosen = [name for name in offered if name.startswith("Rule Check")] + list(upgrades)
    nested = ET.SubElement(sel, f"{{{ROSTER_NS}}}selections")
    for name in chosen:
        entry_id, points = offered.get(name, (str(uuid.uuid4())[:19], "1"))  # not offered: no catalog has it
        upgrade = ET.SubElement(
            nested,
            f"{{{ROSTER_NS}}}selection",
            id=str(uuid.uuid4())[:19],
            name=name,
            entryId=entry_id,
            number=str(number),
            type="upgrade",
        )
        upgrade_costs = ET.SubElement(upgrade, f"{{{ROSTER_NS}}}costs")
        ET.SubElement(upgrade_costs, f"{{{ROSTER_NS}}}cost", name=" Points", typeId="b888-e3bd-8798-6364", value=points)


def roster_xml(
    catalogue_name: str,
    picks: list[str | tuple[str, int]],
    *,
    mercenaries: tuple[str, ...] = (),
    unknown: tuple[str, ...] = (),
    roster_name: str = "My warband",
    upgrades: dict[str, tuple[str, ...]] | None = None,
) -> bytes:
    """A `.ros` of `catalogue_name` with the model entries named in `picks` ("Rabble", or
    ("Rabble", 3) for one selection of three), game-system mercenaries, and entries no catalog
    has (`unknown`). `upgrades` chooses upgrades by the model's name ({"Rabble": ("Spear",
    "Brew of Courage (Common)")}); a selection of three takes each three times, one a model."""
    upgrades = upgrades or {}
    cat = catalogue(catalogue_name)
    system = _root(GAME_SYSTEM)
    ET.register_namespace("", ROSTER_NS)
    roster = ET.Element(
        f"{{{ROSTER_NS}}}roster",
        id=str(uuid.uuid4())[:19],
        name=roster_name,
        battleScribeVersion="2.03",
        gameSystemId=system.get("id", ""),
        gameSystemName=system.get("name", ""),
        gameSystemRevision=system.get("revision", ""),
    )
    forces = ET.SubElement(roster, f"{{{ROSTER_NS}}}forces")
    force = ET.SubElement(
        forces,
        f"{{{ROSTER_NS}}}force",
        id=str(uuid.uuid4())[:19],
        name="Warband - Normal Games",
        entryId=NORMAL_GAMES,
        catalogueId=cat.get("id", ""),
        catalogueRevision=cat.get("revision", ""),
        catalogueName=cat.get("name", ""),
    )
    selections = ET.SubElement(force, f"{{{ROSTER_NS}}}selections")
    for pick in picks:
        name, number = (pick, 1) if isinstance(pick, str) else pick
        _selection(selections, model_entry(cat, name), number, upgrades.get(name, ()))
    for name in mercenaries:
        _selection(selections, model_entry(system, name), 1)
    for name in unknown:
        fake = ET.Element("selectionEntry", id=str(uuid.uuid4())[:19], name=name)
        _selection(selections, fake, 1)
    return ET.tostring(roster, encoding="utf-8", xml_declaration=True)


def rosz(*members: tuple[str, bytes]) -> bytes:
    """A `.rosz`: a zip of the given (name, content) members (BattleScribe writes one)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members:
            zf.writestr(name, content)
    return out.getvalue()


def import_bsdata(out_dir: Path, *catalogue_names: str) -> Path:
    """The named catalogues of ../shared (with the game system) imported into `out_dir` as a
    server's `var/catalog` holds them."""
    from app.catalog.battlescribe import import_catalog

    import_catalog([GAME_SYSTEM, *(BSDATA / f"{n}.cat" for n in catalogue_names)], out_dir)
    return out_dir

"""BattleScribe rosters (R12.15) built from the real BSData Kings of War: Vanguard files in
../shared (read there, never copied): a `.ros` picks a catalogue's model entries by name, with
their ids, points and the upgrades each entry links, as BattleScribe writes a roster; a `.rosz`
zips it. The catalog a test imports from the same files is `import_bsdata`."""

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


def _selection(parent: ET.Element, entry: ET.Element, number: int) -> None:
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
    # the entry's linked upgrades (a spear, a rule check) as BattleScribe nests them
    upgrades = ET.SubElement(sel, f"{{{ROSTER_NS}}}selections")
    for link in entry.iter():
        if link.tag.endswith("}entryLink") and link.get("type") == "selectionEntry":
            ET.SubElement(
                upgrades,
                f"{{{ROSTER_NS}}}selection",
                id=str(uuid.uuid4())[:19],
                name=link.get("name", ""),
                entryId=f"{link.get('id')}::{link.get('targetId')}",
                number="1",
                type="upgrade",
            )


def roster_xml(
    catalogue_name: str,
    picks: list[str | tuple[str, int]],
    *,
    mercenaries: tuple[str, ...] = (),
    unknown: tuple[str, ...] = (),
    roster_name: str = "My warband",
) -> bytes:
    """A `.ros` of `catalogue_name` with the model entries named in `picks` ("Rabble", or
    ("Rabble", 3) for one selection of three), game-system mercenaries, and entries no catalog
    has (`unknown`)."""
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
        _selection(selections, model_entry(cat, name), number)
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

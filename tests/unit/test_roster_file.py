"""R12.15: reading a roster file and matching it to the catalog (pure: no server, no database),
with rosters built from the real BSData files; and the catalog importer on defusedxml."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from app.catalog.battlescribe import BattleScribeError, parse_game_system
from app.catalog.battlescribe.roster import MAX_MODELS, ROSTER_NS, match_roster, read_roster
from app.catalog.battlescribe.source import _read_xml
from app.catalog.catalog import STARTER_DIR, Catalog, FactionData, ItemData, ProfileData, load
from app.core.errors import DomainError
from tests.builders.rosters import GAME_SYSTEM, catalogue, import_bsdata, model_entry, roster_xml, rosz


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> Catalog:
    return load([STARTER_DIR, import_bsdata(tmp_path_factory.mktemp("bs"), "Goblins", "Ratkin")])


def refused(data: bytes) -> str:
    with pytest.raises(DomainError) as caught:
        read_roster(data)
    assert caught.value.status == 422
    return caught.value.code


def test_r12_15_a_roster_is_read_in_order_with_its_numbers_and_without_the_models_upgrades():
    roster = read_roster(roster_xml("Goblins", ["Biggit", ("Rabble", 3), "Wiz"], roster_name="Night raid"))
    assert roster.name == "Night raid" and roster.catalogues == ("Goblins",)
    assert [(s.name, s.number) for s in roster.selections] == [("Biggit", 1), ("Rabble", 3), ("Wiz", 1)]
    assert roster.selections[0].entry_id == model_entry(catalogue("Goblins"), "Biggit").get("id")
    assert roster.models == 5  # the rule checks nested in each model are not models


def test_r12_15_the_catalog_match_is_by_the_importers_key_then_by_name(catalog):
    match = match_roster(catalog, read_roster(roster_xml("Goblins", ["Biggit", ("Rabble", 2)], unknown=("Homebrew Hero",))))
    assert match.faction == "bs.goblins"
    assert [p.key for p in match.profiles] == ["bs.goblins.biggit", "bs.goblins.rabble", "bs.goblins.rabble"]
    assert match.unmatched == ("Homebrew Hero",)


def test_r12_15_a_catalogue_not_imported_is_the_catalogs_faction_of_that_name(catalog):
    # Basileans are not imported from BSData here: the starter catalog's Basileans take the roster
    match = match_roster(catalog, read_roster(roster_xml("Basileans", ["Man-At-Arms", "Paladin Chaplin", "Sergeant"])))
    assert match.faction == "basileans"
    assert [p.key for p in match.profiles] == ["basileans.man-at-arms", "basileans.sergeant"]
    assert match.unmatched == ("Paladin Chaplin",)  # BSData's spelling: no guessing


def _catalog(*profiles: tuple[str, str]) -> Catalog:
    c = Catalog()
    c.factions["bs.goblins"] = FactionData(key="bs.goblins", name="Goblins", alignment="Evil")
    for key, name in profiles:
        c.profiles[key] = ProfileData(key=key, faction="bs.goblins", name=name, types=("Grunt",), points=5)
    return c


def test_r12_15_a_repeated_name_is_told_apart_by_its_entry_ids_suffix():
    """The importer gives the second entry of a repeated name a suffix of its own id."""
    xml = roster_xml("Goblins", ["Rabble"])
    rabble_id = model_entry(catalogue("Goblins"), "Rabble").get("id")
    suffix = rabble_id.replace("-", "")[:8]
    c = _catalog(("bs.goblins.rabble", "Rabble"), (f"bs.goblins.rabble-{suffix}", "Rabble"))
    assert [p.key for p in match_roster(c, read_roster(xml)).profiles] == [f"bs.goblins.rabble-{suffix}"]
    linked = xml.replace(f'entryId="{rabble_id}"'.encode(), f'entryId="0000-link::{rabble_id}"'.encode())
    assert [p.key for p in match_roster(c, read_roster(linked)).profiles] == [f"bs.goblins.rabble-{suffix}"]


def test_r12_15_a_profile_whose_key_is_not_its_name_is_found_by_name():
    c = _catalog(("bs.goblins.boss", "Biggit"))
    match = match_roster(c, read_roster(roster_xml("Goblins", ["Biggit"])))
    assert [p.key for p in match.profiles] == ["bs.goblins.boss"]


def test_r12_15_units_holding_models_and_forces_in_forces_are_walked():
    ns = ROSTER_NS
    xml = f"""<roster xmlns="{ns}" name="Nested"><forces><force catalogueName="Goblins"><forces>
      <force catalogueName="Goblins"><selections>
        <selection name="Mob" type="unit" number="1"><selections>
          <selection name="Rabble" type="model" number="2" entryId="a"/>
          <selection name="Spear" type="upgrade" number="2" entryId="b"/>
        </selections></selection>
        <selection name="Troll" type="unit" number="1" entryId="c"/>
        <selection name="Warband option" type="upgrade" number="1" entryId="d"/>
      </selections></force></forces></force></forces></roster>""".encode()
    roster = read_roster(xml)
    assert [(s.name, s.number) for s in roster.selections] == [("Rabble", 2), ("Troll", 1)]
    assert roster.catalogues == ("Goblins",)


def test_r12_15_what_a_roster_may_not_be(catalog):
    two = roster_xml("Goblins", ["Rabble"]).replace(b"</forces>", b'<force catalogueName="Ratkin"/></forces>')
    with pytest.raises(DomainError) as caught:
        match_roster(catalog, read_roster(two))
    assert caught.value.code == "roster_two_factions"
    assert refused(roster_xml("Goblins", [("Rabble", MAX_MODELS + 1)])) == "roster_too_many_models"
    assert refused(b'<roster xmlns="urn:other"/>') == "roster_not_roster"
    assert refused(b'<?xml version="1.0" encoding="klingon"?><roster/>') == "roster_not_xml"
    assert refused(b'<!DOCTYPE roster SYSTEM "http://example.com/roster.dtd"><roster/>') == "roster_unsafe_xml"


def test_r12_15_a_zip_whose_header_understates_its_member_is_still_capped():
    """The header says 100 bytes; the member unpacks to 3 MB: the read stops, nothing is kept."""
    archive = bytearray(rosz(("big.ros", b"<roster>" + b" " * (3 * 1024 * 1024) + b"</roster>")))
    central = archive.rindex(b"PK\x01\x02")
    struct.pack_into("<I", archive, central + 24, 100)  # the central directory's uncompressed size
    local = archive.index(b"PK\x03\x04")
    struct.pack_into("<I", archive, local + 22, 100)
    assert refused(bytes(archive)) in ("roster_archive_invalid", "roster_archive_too_large")


def test_r12_15_a_deeply_nested_file_is_walked_without_recursion():
    depth = 100_000  # 1.7 MB, under the 2 MB cap
    xml = f'<roster xmlns="{ROSTER_NS}"><forces>'.encode() + b"<forces>" * depth + b"</forces>" * depth + b"</forces></roster>"
    assert read_roster(xml).selections == ()


def test_the_catalog_importer_refuses_entities_and_external_references(tmp_path: Path):
    text = GAME_SYSTEM.read_text(encoding="utf-8")
    hostile = text.replace("<gameSystem ", '<!DOCTYPE gameSystem [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<gameSystem ', 1)
    hostile = hostile.replace('name="Vanguard"', 'name="&x;"', 1)
    path = tmp_path / "Vanguard.gst"
    path.write_text(hostile, encoding="utf-8")
    with pytest.raises(BattleScribeError, match="entities or external references are not allowed"):
        parse_game_system(path)
    assert parse_game_system(GAME_SYSTEM).name == "Vanguard"  # the real file reads as before


def test_r12_15_a_models_upgrades_are_read_with_it_and_battlescribes_rule_checks_left_out():
    xml = roster_xml("Goblins", [("Rabble", 2), "Biggit"], upgrades={"Rabble": ("Spear", "Homebrew Charm")})
    assert b"Rule Check - Base Unit Count" in xml  # BattleScribe writes them into every model
    rabble, biggit = read_roster(xml).selections
    assert [(u.name, u.number) for u in rabble.upgrades] == [("Spear", 2), ("Homebrew Charm", 2)]
    assert rabble.upgrades[0].entry_id.endswith("::da36-7b90-c7e5-26c1")  # the game system's Spear, through a link
    assert biggit.upgrades == ()


def test_r12_15_upgrades_match_the_catalogs_items_and_the_rest_is_kept_with_its_model(catalog):
    xml = roster_xml(
        "Goblins", ["Biggit", ("Rabble", 2)], upgrades={"Biggit": ("Brew of Courage (Common)",), "Rabble": ("Spear", "Shiv")}
    )
    match = match_roster(catalog, read_roster(xml))
    assert [p.key for p in match.profiles] == ["bs.goblins.biggit", "bs.goblins.rabble", "bs.goblins.rabble"]
    assert [(m, i.key) for m, i in match.items] == [(0, "bs.item.brew-of-courage"), (1, "bs.item.spear"), (2, "bs.item.spear")]
    assert match.lost == ((1, "Shiv"), (2, "Shiv"))  # each model's, for its label
    assert match.unmatched == ()


def test_r12_15_an_upgrade_of_no_one_model_goes_to_the_stash():
    ns = ROSTER_NS
    xml = f"""<roster xmlns="{ns}" name="Stash"><forces><force catalogueName="Goblins"><selections>
        <selection name="Rabble" type="model" number="1" entryId="a"/>
        <selection name="5 pts - Lucky Charm (Common)" type="upgrade" number="1" entryId="x"/>
        <selection name="Warband option" type="upgrade" number="1" entryId="d"/>
        <selection name="Rule Check - Warband Size" type="upgrade" number="1" entryId="e"/>
      </selections></force></forces></roster>""".encode()
    roster = read_roster(xml)
    assert [u.name for u in roster.upgrades] == ["5 pts - Lucky Charm (Common)", "Warband option"]
    c = _catalog(("bs.goblins.rabble", "Rabble"))
    c.items["bs.item.lucky-charm"] = ItemData(
        key="bs.item.lucky-charm", name="Lucky Charm", rarity="Common", slot="Magic", points=1
    )
    match = match_roster(c, roster)
    assert [(m, i.key) for m, i in match.items] == [(None, "bs.item.lucky-charm")]
    assert match.lost == ((None, "Warband option"),)


def test_r12_15_the_bsdata_entry_id_is_matched_before_the_name():
    """A profile and an item carrying the entry's BSData id (`bs_id`) are found by it, whatever
    they are called; without it the name decides."""
    rabble_id = model_entry(catalogue("Goblins"), "Rabble").get("id")
    c = _catalog(("bs.goblins.rabble", "Rabble"))
    c.profiles["bs.goblins.mob"] = ProfileData(
        key="bs.goblins.mob", faction="bs.goblins", name="Goblin Mob", types=("Grunt",), points=5, bs_id=rabble_id
    )
    c.items["item.pointy-stick"] = ItemData(
        key="item.pointy-stick", name="Pointy Stick", rarity="Common", slot="Melee", points=2, bs_id="da36-7b90-c7e5-26c1"
    )
    match = match_roster(c, read_roster(roster_xml("Goblins", ["Rabble"], upgrades={"Rabble": ("Spear",)})))
    assert [p.key for p in match.profiles] == ["bs.goblins.mob"]
    assert [(m, i.key) for m, i in match.items] == [(0, "item.pointy-stick")]


def test_r12_15_the_importer_writes_each_entrys_bsdata_id(catalog):
    rabble = catalog.profiles["bs.goblins.rabble"]
    assert rabble.bs_id == model_entry(catalogue("Goblins"), "Rabble").get("id")
    spear = catalog.items["bs.item.spear"]
    entries = {e.get("id"): e for e in _read_xml(GAME_SYSTEM).iter() if e.get("id")}
    assert spear.bs_id in entries and "Spear" in entries[spear.bs_id].get("name", "")

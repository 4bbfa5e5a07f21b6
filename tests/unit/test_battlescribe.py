"""BattleScribe importer (V1, V2, V3): a hand-written fixture for exact results, and the real
Vanguard data in ../shared/catalog-sources/battlescribe/ (read from there, never copied)."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from app.catalog import battlescribe as bs
from app.catalog.catalog import KEY_PATTERN, STARTER_DIR, load, read_file

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "fixtures" / "battlescribe"
FIXTURE_GST = FIXTURES / "Fixture.gst"
FIXTURE_CAT = FIXTURES / "Free_Company.cat"
REAL_DIR = REPO_ROOT.parent / "shared" / "catalog-sources" / "battlescribe"
CAT_NS = "http://www.battlescribe.net/schema/catalogueSchema"
GST_NS = "http://www.battlescribe.net/schema/gameSystemSchema"
FACTION = "bs.free-company"


# ---------------------------------------------------------------------------------------------
# helpers


def real_dir() -> Path:
    if not (REAL_DIR / "Vanguard.gst").is_file():
        pytest.fail(
            f"the real BattleScribe data is missing: expected Vanguard.gst and the .cat files in "
            f"{REAL_DIR} (the shared folder beside the repository; CI always has it)"
        )
    return REAL_DIR


def copy_fixtures(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURE_GST, src / FIXTURE_GST.name)
    shutil.copy(FIXTURE_CAT, src / FIXTURE_CAT.name)
    return src


def edit_xml(path: Path, namespace: str, change) -> None:
    """Parse, let `change(root, q)` edit the tree (q("tag") gives the qualified tag), write back."""
    ET.register_namespace("", namespace)
    tree = ET.parse(path)
    change(tree.getroot(), lambda tag: f"{{{namespace}}}{tag}")
    tree.write(path, encoding="utf-8", xml_declaration=True)


def set_points(path: Path, namespace: str, entry_id: str, value: str) -> None:
    def change(root, q):
        entry = next(e for e in root.iter(q("selectionEntry")) if e.get("id") == entry_id)
        entry.find(f"{q('costs')}/{q('cost')}").set("value", value)

    edit_xml(path, namespace, change)


def remove_entry(path: Path, namespace: str, entry_id: str) -> None:
    def change(root, q):
        for parent in root.iter():
            for child in list(parent):
                if child.tag == q("selectionEntry") and child.get("id") == entry_id:
                    parent.remove(child)
                    return
        raise AssertionError(f"no entry {entry_id}")

    edit_xml(path, namespace, change)


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.json"))}


def warband_member_models(path: Path) -> int:
    """Independent count: selectionEntry elements of type model with a " Warband Member" profile."""
    count = 0
    for elem in ET.parse(path).getroot().iter():
        if elem.tag.endswith("}selectionEntry") and elem.get("type") == "model":
            profiles = [p for c in elem if c.tag.endswith("}profiles") for p in c if p.tag.endswith("}profile")]
            if any(p.get("typeName") == " Warband Member" for p in profiles):
                count += 1
    return count


@pytest.fixture(scope="module")
def system() -> bs.GameSystem:
    return bs.parse_game_system(FIXTURE_GST)


@pytest.fixture(scope="module")
def parsed(system) -> bs.ParsedCatalogue:
    return bs.read_catalogue(FIXTURE_CAT, system)


# ---------------------------------------------------------------------------------------------
# the fixture: exact parse results


def test_v1_game_system_categories_points_and_profile_type(system):
    assert sorted(system.categories.values()) == sorted(
        ["Grunt", "Warrior", "Command", "Support", "Spellcaster", "Large", "Mercenary", "Additional Special Rules"]
    )
    assert system.category_id("Large") == "f1x0-cat0-0000-0006"
    assert system.points_cost_id == "f1x0-cost-0000-0001"
    assert system.member_profile_type_id == "f1x0-ptyp-0000-0001"
    assert system.item_profile_types == {
        "f1x0-ptyp-0000-0002": "Sundries",
        "f1x0-ptyp-0000-0003": "Melee",
        "f1x0-ptyp-0000-0004": "Magic",
    }


def test_v1_game_system_items_rarity_slot_points(system):
    items = {i.key: i for i in system.items}
    assert set(items) == {"bs.item.bandages", "bs.item.marksmans-rifle"}
    bandages = items["bs.item.bandages"]  # rarity from "(Common)", slot from its "Items - Sundries" profile
    assert (bandages.name, bandages.rarity, bandages.slot, bandages.points, bandages.notes) == (
        "Bandages",
        "Common",
        "Sundries",
        2,
        "Single Use",
    )
    rifle = items["bs.item.marksmans-rifle"]  # both from the item groups " Items" > "Ranged" > "Rare"
    assert (rifle.name, rifle.rarity, rifle.slot, rifle.points) == ("Marksman's Rifle", "Rare", "Ranged", 6)
    # the model's own Spear (item profile, no rarity, in no item group) is not an item
    assert [(s.kind, s.name) for s in system.skipped] == [("item", "Spear")]
    assert "no rarity" in system.skipped[0].reason


def test_v1_game_system_mercenary(system):
    [tom] = system.mercenaries
    assert tom.key == "bs.merc.old-tom"
    assert (tom.faction, tom.alignment, tom.types, tom.points, tom.unique) == (None, "Neutral", ("Command",), 45, True)
    assert tom.special_rules == ("Stubborn",)


def test_v1_catalogue_faction_and_alignment(parsed):
    assert parsed.data.source == "battlescribe"
    assert [f.model_dump() for f in parsed.data.factions] == [
        {"key": FACTION, "name": "Free Company", "alignment": "Good"}
    ]  # 3 Good, 1 Neutral model
    assert bs.parse_catalogue(FIXTURE_CAT, bs.parse_game_system(FIXTURE_GST)) == parsed.data


def test_v1_catalogue_models_types_points_stats(parsed):
    profiles = {p.key: p for p in parsed.data.profiles}
    assert set(profiles) == {f"{FACTION}.captain", f"{FACTION}.levy", f"{FACTION}.ogre-brute", f"{FACTION}.sister-mercy"}
    captain = profiles[f"{FACTION}.captain"]  # nested in a shared entry group
    assert (captain.name, captain.types, captain.points, captain.race) == ("Captain", ("Command",), 40, "Human")
    assert captain.stats == {"Sp": "5", "Me": "3+", "Ra": "4+", "Ar": "4+", "Ne": "3+", "Wn": "4", "H": "2"}
    assert captain.special_rules == ("Inspiring", "Parry")
    assert (captain.unique, captain.healer, captain.faction) == (False, False, FACTION)
    levy = profiles[f"{FACTION}.levy"]
    assert (levy.types, levy.points, levy.stats["Me"], levy.unique) == (("Grunt",), 7, "5+", False)
    ogre = profiles[f"{FACTION}.ogre-brute"]
    assert (ogre.types, ogre.points, ogre.race, ogre.stats["Ra"]) == (("Large", "Warrior"), 24, "Ogre", "-")
    assert ogre.special_rules == ("Crushing Strength (1)", "SMASH! (1)")  # rule link and inline rule
    assert ogre.unique is False


def test_v1_named_character_is_unique_and_healer_from_rule(parsed):
    mercy = next(p for p in parsed.data.profiles if p.name == "Sister Mercy")
    assert (mercy.types, mercy.points, mercy.unique, mercy.healer) == (("Support",), 30, True, True)


def test_v1_mercenary_of_a_catalogue(parsed):
    [grimm] = parsed.data.mercenaries
    assert grimm.key == "bs.merc.grimm-the-sellsword"
    assert (grimm.faction, grimm.alignment, grimm.types, grimm.points, grimm.unique) == (None, "Evil", ("Warrior",), 25, False)


def test_v1_catalogue_item_and_skipped_model(parsed):
    assert [(i.key, i.rarity, i.slot, i.points) for i in parsed.data.items] == [
        ("bs.item.free-company.company-banner", "Rare", "Magic", 4)
    ]
    [skip] = parsed.skipped
    assert (skip.kind, skip.name) == ("model", "Mawhound (Additional)")
    assert "no model type" in skip.reason and "Additional Special Rules" in skip.reason
    assert parsed.model_entries == warband_member_models(FIXTURE_CAT) == 6
    assert len(parsed.data.profiles) + len(parsed.data.mercenaries) + 1 == 6


def test_v1_keys_follow_the_pattern_and_hold_no_battlescribe_ids(system, parsed):
    rows = (
        parsed.data.factions
        + parsed.data.profiles
        + parsed.data.mercenaries
        + parsed.data.items
        + system.items
        + system.mercenaries
    )
    for row in rows:
        assert re.match(KEY_PATTERN, row.key), row.key
        assert "f1" not in row.key, row.key
    assert bs.slugify("Magwa & Jo'os") == "magwa-joos"
    assert bs.slugify("Ünïcode  Name!") == "unicode-name"


def test_v1_duplicate_names_get_a_stable_suffix(tmp_path):
    src = copy_fixtures(tmp_path)

    def rename(root, q):
        for e in root.iter(q("selectionEntry")):
            if e.get("id") == "f1c0-mrcy-0000-0001":
                e.set("name", "Levy")

    edit_xml(src / FIXTURE_CAT.name, CAT_NS, rename)
    system = bs.parse_game_system(src / FIXTURE_GST.name)
    first = bs.parse_catalogue(src / FIXTURE_CAT.name, system)
    keys = sorted(p.key for p in first.profiles if p.name == "Levy")
    assert keys == [f"{FACTION}.levy", f"{FACTION}.levy-f1c0mrcy"]
    again = bs.parse_catalogue(src / FIXTURE_CAT.name, system)
    assert again == first


# ---------------------------------------------------------------------------------------------
# the fixture: import, idempotence, changes, entries kept (V2)


def test_v2_import_writes_one_file_per_faction_and_common(tmp_path):
    out = tmp_path / "out"
    report = bs.import_catalog([FIXTURE_CAT, FIXTURE_GST], out)  # any order
    assert sorted(p.name for p in out.glob("*.json")) == ["bs-common.json", "bs.free-company.json"]
    faction = read_file(out / "bs.free-company.json")
    assert len(faction.profiles) == 4 and len(faction.mercenaries) == 1 and len(faction.items) == 1
    common = read_file(out / "bs-common.json")
    assert [i.key for i in common.items] == ["bs.item.bandages", "bs.item.marksmans-rifle"]
    assert [m.key for m in common.mercenaries] == ["bs.merc.old-tom"]
    assert report.summary_lines() == [
        "Vanguard Fixture (items and mercenaries): 3 added, 0 changed, 0 kept, 1 skipped",
        "Free Company: 7 added, 0 changed, 0 kept, 1 skipped",
    ]
    catalog = load([STARTER_DIR, out])
    assert catalog.faction_profiles(FACTION)[0].name == "Levy"
    assert catalog.mercenaries["bs.merc.grimm-the-sellsword"].alignment == "Evil"
    assert catalog.items["bs.item.marksmans-rifle"].slot == "Ranged"
    assert "basileans" in catalog.factions  # the starter catalog is still there


def test_v2_importing_twice_keeps_everything_and_files_identical(tmp_path):
    out = tmp_path / "out"
    bs.import_catalog([FIXTURE_GST, FIXTURE_CAT], out)
    before = snapshot(out)
    mtimes = {p.name: p.stat().st_mtime_ns for p in out.glob("*.json")}
    report = bs.import_catalog([FIXTURE_GST, FIXTURE_CAT], out)
    assert report.added == [] and report.changed == [] and report.retained == []
    assert len(report.kept) == 10
    assert report.summary_lines()[1] == "Free Company: 0 added, 0 changed, 7 kept, 1 skipped"
    assert snapshot(out) == before
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.json")} == mtimes  # not even rewritten
    assert not [f for f in report.files if f.written]


def test_v2_changed_points_are_reported_and_imported(tmp_path):
    src = copy_fixtures(tmp_path)
    out = tmp_path / "out"
    bs.import_catalog([src / FIXTURE_GST.name, src / FIXTURE_CAT.name], out)
    set_points(src / FIXTURE_CAT.name, CAT_NS, "f1c0-capt-0000-0001", "45.0")
    set_points(src / FIXTURE_GST.name, GST_NS, "f1x0-item-0000-0001", "3.0")
    report = bs.import_catalog([src / FIXTURE_GST.name, src / FIXTURE_CAT.name], out)
    assert report.changed == ["bs.item.bandages", f"{FACTION}.captain"]
    assert report.added == []
    assert report.file("Free Company").summary_line() == "Free Company: 0 added, 1 changed, 6 kept, 1 skipped"
    catalog = load([STARTER_DIR, out])
    assert catalog.profiles[f"{FACTION}.captain"].points == 45
    assert catalog.items["bs.item.bandages"].points == 3


def test_v2_removed_model_is_kept_in_the_output(tmp_path):
    src = copy_fixtures(tmp_path)
    out = tmp_path / "out"
    bs.import_catalog([src / FIXTURE_GST.name, src / FIXTURE_CAT.name], out)
    old_levy = read_file(out / "bs.free-company.json").profiles
    remove_entry(src / FIXTURE_CAT.name, CAT_NS, "f1c0-levy-0000-0001")
    report = bs.import_catalog([src / FIXTURE_GST.name, src / FIXTURE_CAT.name], out)
    assert report.retained == [f"{FACTION}.levy"]
    assert report.added == [] and report.changed == []
    assert (
        report.file("Free Company").summary_line()
        == "Free Company: 0 added, 0 changed, 6 kept, 1 skipped, 1 no longer in the source (kept)"
    )
    faction = read_file(out / "bs.free-company.json")
    assert [p for p in faction.profiles if p.key == f"{FACTION}.levy"] == [p for p in old_levy if p.key == f"{FACTION}.levy"]
    # and a third import of the same sources changes nothing
    before = snapshot(out)
    again = bs.import_catalog([src / FIXTURE_GST.name, src / FIXTURE_CAT.name], out)
    assert again.added == [] and again.changed == [] and again.retained == [f"{FACTION}.levy"]
    assert snapshot(out) == before
    load([STARTER_DIR, out])


def test_v2_new_model_is_added_beside_the_old_ones(tmp_path):
    src = copy_fixtures(tmp_path)
    out = tmp_path / "out"
    bs.import_catalog([src / FIXTURE_GST.name, src / FIXTURE_CAT.name], out)

    def clone(root, q):
        entries = root.find(q("selectionEntries"))
        levy = next(e for e in entries if e.get("id") == "f1c0-levy-0000-0001")
        copy = ET.fromstring(ET.tostring(levy))
        copy.set("id", "f1c0-vetl-0000-0001")
        copy.set("name", "Veteran Levy")
        entries.append(copy)

    edit_xml(src / FIXTURE_CAT.name, CAT_NS, clone)
    report = bs.import_catalog([src / FIXTURE_GST.name, src / FIXTURE_CAT.name], out)
    assert report.added == [f"{FACTION}.veteran-levy"]
    assert report.changed == []


def test_v2_game_system_is_found_beside_the_catalogue(tmp_path):
    out = tmp_path / "out"
    report = bs.import_catalog([FIXTURE_CAT], out)
    assert report.file("Free Company").added
    assert (out / "bs-common.json").exists()


def test_v2_no_game_system_is_an_error(tmp_path):
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    shutil.copy(FIXTURE_CAT, lonely / FIXTURE_CAT.name)
    with pytest.raises(bs.BattleScribeError, match="no game system"):
        bs.import_catalog([lonely / FIXTURE_CAT.name], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_v2_a_directory_stands_for_its_files_and_details_name_the_skips(tmp_path):
    report = bs.import_catalog([FIXTURES], tmp_path / "out")
    assert [f.output.name for f in report.files] == ["bs-common.json", "bs.free-company.json"]
    details = report.detail_lines()
    assert "Free Company: added bs.free-company.captain" in details
    assert any("skipped model 'Mawhound (Additional)' (Free_Company.cat): no model type" in d for d in details)


def test_v2_an_invalid_existing_file_stops_the_import_before_any_write(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "bs.free-company.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(bs.BattleScribeError, match="not a valid catalog file"):
        bs.import_catalog([FIXTURE_GST, FIXTURE_CAT], out)
    assert sorted(p.name for p in out.iterdir()) == ["bs.free-company.json"]


def test_v2_broken_xml_is_a_clear_error(tmp_path):
    broken = tmp_path / "Broken.cat"
    broken.write_text("<catalogue", encoding="utf-8")
    with pytest.raises(bs.BattleScribeError, match="Broken.cat"):
        bs.import_catalog([FIXTURE_GST, broken], tmp_path / "out")


def test_v3_old_companies_keep_their_profile_after_a_price_change(tmp_path):
    """A key once written keeps resolving (V2), so snapshots of V3 have their profile."""
    src = copy_fixtures(tmp_path)
    out = tmp_path / "out"
    bs.import_catalog([src / FIXTURE_GST.name, src / FIXTURE_CAT.name], out)
    keys = set(load([out]).profiles)
    set_points(src / FIXTURE_CAT.name, CAT_NS, "f1c0-ogre-0000-0001", "26.0")
    remove_entry(src / FIXTURE_CAT.name, CAT_NS, "f1c0-mrcy-0000-0001")
    bs.import_catalog([src / FIXTURE_GST.name, src / FIXTURE_CAT.name], out)
    assert keys <= set(load([out]).profiles)


# ---------------------------------------------------------------------------------------------
# the real Vanguard data


@pytest.fixture(scope="module")
def real_system() -> bs.GameSystem:
    return bs.parse_game_system(real_dir() / "Vanguard.gst")


def test_v2_real_game_system(real_system):
    assert real_system.points_cost_id == "b888-e3bd-8798-6364"
    assert real_system.member_profile_type_id == "8146-3b99-e6f9-d0a1"
    assert {"Grunt", "Warrior", "Command", "Support", "Spellcaster", "Large", "Mercenary"} <= set(real_system.categories.values())
    assert len(real_system.mercenaries) == warband_member_models(REAL_DIR / "Vanguard.gst") == 3
    assert all(m.alignment and m.unique for m in real_system.mercenaries)
    items = {i.key: i for i in real_system.items}
    assert len(items) >= 50
    assert {i.rarity for i in items.values()} == {"Common", "Rare", "Unique"}
    assert {i.slot for i in items.values()} == {"Sundries", "Melee", "Armour", "Ranged", "Magic", "Mount"}
    assert (
        items["bs.item.healing-potion"].rarity,
        items["bs.item.healing-potion"].slot,
        items["bs.item.healing-potion"].points,
    ) == ("Unique", "Sundries", 5)
    assert items["bs.item.battle-mount"].slot == "Mount"


@pytest.mark.parametrize("cat_name", sorted(p.name for p in REAL_DIR.glob("*.cat")) or ["(missing)"])
def test_v2_real_catalogue_imports_every_warband_member(real_system, cat_name):
    path = real_dir() / cat_name
    if not path.is_file():
        pytest.fail(f"no .cat files in {REAL_DIR}")
    parsed = bs.read_catalogue(path, real_system)
    skipped_models = [s for s in parsed.skipped if s.kind == "model"]
    assert all(s.reason for s in skipped_models)
    imported = len(parsed.data.profiles) + len(parsed.data.mercenaries) + len(skipped_models)
    assert imported == warband_member_models(path)
    assert parsed.faction.key.startswith("bs.")
    assert parsed.faction.alignment in ("Good", "Neutral", "Evil")


def test_v2_real_import_loads_and_every_faction_can_field_a_warband(tmp_path, real_system):
    source = real_dir()
    cats = sorted(source.glob("*.cat"))
    assert len(cats) == 22
    out = tmp_path / "out"
    report = bs.import_catalog([*cats, source / "Vanguard.gst"], out)
    assert len(list(out.glob("bs.*.json"))) == 22
    catalog = load([STARTER_DIR, out])
    factions = [k for k in catalog.factions if k.startswith("bs.")]
    assert len(factions) == 22
    for key in factions:
        types = [t for p in catalog.faction_profiles(key) for t in p.types]
        assert "Command" in types, key
        assert "Grunt" in types or "Warrior" in types, key
    assert len(report.summary_lines()) == 23
    assert all(re.match(r"^.+: \d+ added, 0 changed, 0 kept, \d+ skipped$", line) for line in report.summary_lines())
    assert catalog.factions["bs.basileans"].alignment == "Good"
    assert catalog.factions["bs.the-herd"].alignment == "Neutral"
    # idempotent on the real data too
    before = snapshot(out)
    again = bs.import_catalog([source / "Vanguard.gst", *cats], out)
    assert again.added == [] and again.changed == [] and again.retained == []
    assert snapshot(out) == before

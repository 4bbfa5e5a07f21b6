"""The catalog format, loader and the starter catalog (V1, V2(a), V9)."""

import json
import os
import time

import pytest

from app.catalog import catalog as catalog_module
from app.catalog.catalog import MODEL_TYPES, SLOTS, STARTER_DIR, CatalogError, CatalogStore, load, read_file

V9 = {
    "Supply Grab",
    "Light the Beacon",
    "Free the Princess",
    "Recover the Plans",
    "Kill the Bard!",
    "The Dragon's Egg",
    "The Power Stones",
    "Capture the Giant!",
    "Destroy the Baggage Train",
    "Burn the Stores",
    "Secure the Portal",
    "Kill the Commander",
    "Canyon Patrol",
    "King of the Hill",
}


@pytest.fixture(scope="module")
def starter():
    return load([STARTER_DIR])


def test_v2_starter_has_three_factions_with_every_model_type(starter):
    complete = [f for f in starter.factions if {t for p in starter.faction_profiles(f) for t in p.types} >= set(MODEL_TYPES)]
    assert len(complete) >= 3


def test_v2_starter_factions_can_build_a_legal_company_and_warband(starter):
    for faction in starter.factions:
        profiles = starter.faction_profiles(faction)
        command = min((p for p in profiles if "Command" in p.types), key=lambda p: p.points)
        fighter = min((p for p in profiles if {"Grunt", "Warrior"} & set(p.types)), key=lambda p: p.points)
        assert command.points + fighter.points <= 200, faction


def test_v1_v2_items_by_rarity_and_slot_mercenaries_and_profiles(starter):
    rarities = {i.rarity for i in starter.items.values()}
    assert rarities == {"Common", "Rare", "Unique"}
    assert {i.slot for i in starter.items.values()} == set(SLOTS)
    assert len(starter.mercenaries) == 3
    assert all(m.faction is None and m.alignment for m in starter.mercenaries.values())
    assert any(p.unique for p in starter.profiles.values()) and any(p.healer for p in starter.profiles.values())
    for p in starter.profiles.values():
        assert p.faction in starter.factions and p.types and p.points >= 0


def test_v9_scenario_list_and_roles(starter):
    names = {s.name: s for s in starter.scenarios.values()}
    assert set(names) == V9
    assert names["King of the Hill"].min_warbands == 3 and names["King of the Hill"].max_warbands is None
    roles = {n for n, s in names.items() if s.roles == "attacker_defender"}
    assert roles == {"Light the Beacon", "Destroy the Baggage Train", "Burn the Stores"}


def test_v1_loader_rejects_a_broken_file_naming_it(tmp_path):
    bad = {"format": 1, "source": "x", "factions": [{"key": "a", "name": "A", "alignment": "Chaotic"}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(CatalogError) as info:
        read_file(path)
    assert "bad.json" in str(info.value) and "alignment" in str(info.value)
    orphan = {
        "format": 1,
        "source": "x",
        "profiles": [{"key": "x.y", "faction": "nowhere", "name": "Y", "types": ["Grunt"], "points": 5}],
    }
    path.write_text(json.dumps(orphan))
    with pytest.raises(CatalogError):
        load([tmp_path])
    path.write_text(
        json.dumps(
            {
                "format": 1,
                "source": "x",
                "profiles": [{"key": "x.y", "faction": "f", "name": "Y", "types": ["Grunt", "Grunt"], "points": 5}],
            }
        )
    )
    with pytest.raises(CatalogError):
        read_file(path)


def test_v2_imported_files_override_and_reload_when_changed(tmp_path, monkeypatch):
    # The files are looked over at most once a second (issue 37): the clock moves a second on.
    clock = [1000.0]
    monkeypatch.setattr(catalog_module.time, "monotonic", lambda: clock[0])

    def later():
        clock[0] += CatalogStore.RECHECK_SECONDS

    store = CatalogStore(tmp_path)
    before = store.get()
    extra = {
        "format": 1,
        "source": "club",
        "factions": [{"key": "club", "name": "Club", "alignment": "Neutral"}],
        "profiles": [{"key": "club.hero", "faction": "club", "name": "Hero", "types": ["Command"], "points": 50}],
    }
    path = tmp_path / "club.json"
    path.write_text(json.dumps(extra))
    later()
    after = store.get()
    assert "club" in after.factions and "club" not in before.factions
    extra["profiles"][0]["points"] = 55
    path.write_text(json.dumps(extra))
    os.utime(path, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    later()
    assert store.get().profiles["club.hero"].points == 55
    assert store.get() is store.get()  # held in memory while nothing changes

"""R12.15 over the API: a company filled from a BattleScribe roster built from the real BSData
Vanguard files, all or nothing, and every hostile file refused with nothing changed."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from app.catalog.catalog import CatalogStore
from app.companies.models import CompanyModel
from app.gold.models import LedgerEntry
from tests.builders.accounts import user
from tests.builders.campaigns import join
from tests.builders.responses import error_code
from tests.builders.rosters import import_bsdata, roster_xml, rosz

TEN = ["Biggit", ("Rabble", 6), "Spitter", "Luggit", "Wiz"]  # ten Goblins models, a Command among them


@pytest.fixture(scope="module")
def bsdata_dir(tmp_path_factory):
    return import_bsdata(tmp_path_factory.mktemp("bsdata"), "Goblins", "Orcs")


@pytest.fixture
def bsdata(app, bsdata_dir):
    """The server's catalog with the BSData Goblins and Orcs imported (as `hideout
    import-catalog` leaves them), for this test only."""
    before = app.state.catalog
    app.state.catalog = CatalogStore(bsdata_dir)
    yield app.state.catalog.get()
    app.state.catalog = before


def shop(client, **settings):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Roster", **settings}, headers=gm).json()["id"]
    return gm, cid, join(client, gm, cid, "anna")


def upload(client, cid, player, content: bytes, name: str = "warband.ros"):
    return client.post(
        f"/api/v1/campaigns/{cid}/company/import",
        files={"file": (name, content, "application/octet-stream")},
        headers=player["headers"],
    )


def state(engine, player_id):
    """What a refusal must leave alone: the company's models, the ledger, the gold."""
    from app.campaigns.models import Player

    with Session(engine) as s:
        return (
            [m.profile_key for m in s.exec(select(CompanyModel)).all()],
            [(e.amount, e.kind) for e in s.exec(select(LedgerEntry).where(LedgerEntry.player_id == player_id)).all()],
            s.get(Player, player_id).gold,
        )


def test_r12_15_a_roster_buys_its_models_one_ledger_entry_each_and_lists_what_is_unmatched(client, engine, bsdata):
    gm, cid, anna = shop(client, starting_gold=500, gold_per_point=1)
    xml = roster_xml("Goblins", TEN, mercenaries=("Blaine",), unknown=("Homebrew Hero",))
    r = upload(client, cid, anna, xml)
    assert r.status_code == 201, r.text
    body = r.json()
    names = [m["name"] for m in body["bought"]]
    assert names == ["Biggit"] + ["Rabble"] * 6 + ["Spitter", "Luggit", "Wiz"]
    assert body["unmatched"] == ["Blaine", "Homebrew Hero"]  # a mercenary is hired with a warband, not bought
    prices = {p.name: p.points for p in bsdata.profiles.values() if p.faction == "bs.goblins"}
    total = sum(prices[n] for n in names)
    assert [m["price"] for m in body["bought"]] == [prices[n] for n in names]
    assert body["gold"] == 500 - total
    company = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()
    assert company["faction"] == "bs.goblins" and len(company["models"]) == 10 and company["gold"] == 500 - total
    ledger = client.get(f"/api/v1/campaigns/{cid}/ledger", headers=anna["headers"], params={"per_page": 50}).json()["items"]
    purchases = [(e["amount"], e["note"]) for e in ledger if e["kind"] == "purchase"]
    assert sorted(purchases) == sorted((-prices[n], n) for n in names)


def test_r12_15_a_rosz_and_a_company_of_the_same_faction_gets_the_models_added(client, bsdata):
    gm, cid, anna = shop(client, starting_gold=500, gold_per_point=1)
    assert upload(client, cid, anna, roster_xml("Goblins", ["Biggit"])).status_code == 201
    r = upload(client, cid, anna, rosz(("warband.ros", roster_xml("Goblins", [("Rabble", 2)]))), "warband.rosz")
    assert r.status_code == 201, r.text
    models = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()["models"]
    assert [m["name"] for m in models] == ["Biggit", "Rabble", "Rabble"]
    assert [m["label"] for m in r.json()["bought"]] == ["Rabble 1", "Rabble 2"]


def test_r12_15_all_or_nothing_not_enough_gold_buys_nothing(client, engine, bsdata):
    gm, cid, anna = shop(client, starting_gold=100, gold_per_point=1)
    before = state(engine, anna["player_id"])
    r = upload(client, cid, anna, roster_xml("Goblins", [("Troll", 2), ("Rabble", 6)]))
    assert r.status_code == 409 and error_code(r) == "not_enough_gold"
    needed = 2 * bsdata.profiles["bs.goblins.troll"].points + 6 * bsdata.profiles["bs.goblins.rabble"].points
    assert r.json()["error"]["message"] == f"Not enough gold: {needed} needed, you have 100."
    assert state(engine, anna["player_id"]) == before
    assert client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()["faction"] is None


def test_r12_15_a_unique_character_twice_refuses_the_whole_roster(client, engine, bsdata):
    gm, cid, anna = shop(client, starting_gold=900, gold_per_point=1)
    before = state(engine, anna["player_id"])
    r = upload(client, cid, anna, roster_xml("Goblins", ["Rabble", "Magwa & Jo'os", "Magwa & Jo'os"]))
    assert r.status_code == 409 and error_code(r) == "unique_profile_held"
    assert state(engine, anna["player_id"]) == before


def test_r12_15_a_company_of_another_faction_is_refused_with_what_to_do(client, engine, bsdata):
    gm, cid, anna = shop(client, starting_gold=500)
    assert upload(client, cid, anna, roster_xml("Orcs", ["Ax"])).status_code == 201
    before = state(engine, anna["player_id"])
    r = upload(client, cid, anna, roster_xml("Goblins", ["Rabble"]))
    assert r.status_code == 409 and error_code(r) == "roster_other_faction"
    assert "The roster is of Goblins but your company is of Orcs" in r.json()["error"]["message"]
    assert state(engine, anna["player_id"]) == before


def test_r12_15_who_may_import_and_when(client, engine, bsdata):
    gm, cid, anna = shop(client, starting_gold=500)
    xml = roster_xml("Goblins", ["Rabble"])
    assert upload(client, cid, {"headers": gm}, xml).status_code == 403  # the GM has no company
    stranger = {"headers": user(client, "stranger")}
    assert upload(client, cid, stranger, xml).status_code == 404
    assert state(engine, anna["player_id"])[0] == []


def test_r12_15_the_refusal_speaks_the_users_language(client, bsdata):
    gm, cid, anna = shop(client)
    headers = {**anna["headers"], "Accept-Language": "pl"}
    r = client.post(
        f"/api/v1/campaigns/{cid}/company/import", files={"file": ("x.ros", b"not xml at all", "text/plain")}, headers=headers
    )
    assert r.status_code == 422 and error_code(r) == "roster_not_xml"
    assert r.json()["error"]["message"].startswith("Plik nie jest")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
<!ENTITY lol9 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">]>
<roster xmlns="http://www.battlescribe.net/schema/rosterSchema" name="&lol9;"/>"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE roster [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<roster xmlns="http://www.battlescribe.net/schema/rosterSchema" name="&x;"/>"""


def _bomb() -> bytes:
    """A .rosz whose one member says 2 GB of zeros unpacked from a few kilobytes."""
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("bomb.ros", "w", force_zip64=True) as member:
        for _ in range(64):
            member.write(b"\0" * (1024 * 1024))
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "content", "code"),
    [
        ("billion laughs", BILLION_LAUGHS, "roster_unsafe_xml"),
        ("external entity", EXTERNAL, "roster_unsafe_xml"),
        ("not XML", b"\x89PNG\r\n\x1a\n not a roster", "roster_not_xml"),
        ("wrong namespace", roster_xml("Goblins", ["Rabble"]).replace(b"rosterSchema", b"catalogueSchema"), "roster_not_roster"),
        ("a catalogue", b'<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema"/>', "roster_not_roster"),
        ("zip bomb", _bomb(), "roster_archive_too_large"),
        (
            "two files",
            rosz(("a.ros", roster_xml("Goblins", ["Rabble"])), ("b.ros", roster_xml("Goblins", ["Biggit"]))),
            "roster_archive_members",
        ),
        ("broken zip", b"PK\x03\x04" + b"\0" * 64, "roster_archive_invalid"),
        ("3 MB", b"<roster>" + b" " * (3 * 1024 * 1024), "roster_too_large"),
        ("empty", b"", "roster_no_file"),
        ("no models", roster_xml("Goblins", []), "roster_no_models"),
        (
            "unknown catalogue",
            roster_xml("Goblins", ["Rabble"]).replace(b'catalogueName="Goblins"', b'catalogueName="Lizardfolk"'),
            "roster_faction_unknown",
        ),
        ("nothing matched", roster_xml("Goblins", [], unknown=("Homebrew Hero",)), "roster_nothing_matched"),
    ],
)
def test_r12_15_hostile_and_bad_files_answer_422_with_the_reason_and_change_nothing(client, engine, bsdata, name, content, code):
    gm, cid, anna = shop(client, starting_gold=500)
    before = state(engine, anna["player_id"])
    r = upload(client, cid, anna, content)
    assert r.status_code == 422, (name, r.text)
    assert error_code(r) == code, name
    assert r.json()["error"]["message"]
    assert state(engine, anna["player_id"]) == before


def test_r12_15_a_20_mb_upload_is_refused_at_the_servers_body_cap(client, engine, bsdata):
    """Past the server's body cap (R11.5) the file is never read: 413 body_too_large, with the
    reason in the user's language; the roster's own cap (2 MB, 422) is the test above."""
    gm, cid, anna = shop(client, starting_gold=500)
    before = state(engine, anna["player_id"])
    r = upload(client, cid, anna, b"<" + b"x" * (20 * 1024 * 1024))
    assert r.status_code == 413 and error_code(r) == "body_too_large"
    assert state(engine, anna["player_id"]) == before


def _items(engine) -> list[tuple[str, int | None]]:
    from app.companies.models import CompanyItem

    with Session(engine) as s:
        return [(i.item_key, i.model_id) for i in s.exec(select(CompanyItem).order_by(CompanyItem.id)).all()]


UPGRADES = {
    "Biggit": ("Brew of Courage (Common)", "Holy Water (Unique)", "Homebrew Charm"),
    "Rabble": ("Spear", "Bandages (Common)"),
}


def test_r12_15_a_models_items_are_bought_with_it_and_the_rest_listed_with_its_model(client, engine, bsdata):
    gm, cid, anna = shop(client, starting_gold=500, gold_per_point=1)
    r = upload(client, cid, anna, roster_xml("Goblins", ["Biggit", ("Rabble", 2)], upgrades=UPGRADES))
    assert r.status_code == 201, r.text
    body = r.json()
    biggit, rabble1, rabble2 = body["bought"]
    # a Grunt carries one Common item (V8): each Rabble takes its Spear, not the Bandages too
    assert [(i["item"], i["model_id"]) for i in body["items"]] == [
        ("bs.item.brew-of-courage", biggit["id"]),
        ("bs.item.spear", rabble1["id"]),
        ("bs.item.spear", rabble2["id"]),
    ]
    assert [len(m["item_ids"]) for m in body["bought"]] == [1, 1, 1]
    assert body["unmatched"] == ["Biggit: Homebrew Charm"]  # not in the catalog, named with its model
    # Unique is for rewards only; a Grunt's second item is one too many
    assert body["refused"] == ["Biggit: Holy Water", "Rabble 1: Bandages", "Rabble 2: Bandages"]
    items = bsdata.items
    total = sum(m["price"] for m in body["bought"]) + items["bs.item.brew-of-courage"].points + 2 * items["bs.item.spear"].points
    assert body["gold"] == 500 - total
    ledger = client.get(f"/api/v1/campaigns/{cid}/ledger", headers=anna["headers"], params={"per_page": 50}).json()["items"]
    notes = sorted(e["note"] for e in ledger if e["kind"] == "purchase")
    assert notes == sorted(["Biggit", "Rabble", "Rabble", "Brew of Courage", "Spear", "Spear"])  # one entry a purchase
    company = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()
    assert sorted((i["name"], i["model_id"]) for i in company["items"]) == sorted(
        [("Brew of Courage", biggit["id"]), ("Spear", rabble1["id"]), ("Spear", rabble2["id"])]
    )


def test_r12_15_not_gold_enough_for_the_models_items_buys_nothing(client, engine, bsdata):
    prices = bsdata.profiles["bs.goblins.rabble"].points * 2
    gm, cid, anna = shop(client, starting_gold=prices + 1, gold_per_point=1)  # the models, not their spears
    before = state(engine, anna["player_id"])
    r = upload(client, cid, anna, roster_xml("Goblins", [("Rabble", 2)], upgrades={"Rabble": ("Spear",)}))
    assert r.status_code == 409 and error_code(r) == "not_enough_gold"
    assert (
        r.json()["error"]["message"]
        == f"Not enough gold: {prices + 2 * bsdata.items['bs.item.spear'].points} needed, you have {prices + 1}."
    )
    assert state(engine, anna["player_id"]) == before and _items(engine) == []

"""Export and import (issue 19, docs/export.md): one versioned JSON document with the whole
campaign; export -> import -> export gives the same document; players become seats that the
users with their nicknames are invited to take; the GM's document keeps the players'
secrets (R11.2); a bad document is refused with a clear 422 and creates nothing."""

from __future__ import annotations

import copy
import json
from io import BytesIO

import pytest
from PIL import Image
from sqlalchemy import func
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Invitation, Player
from app.core.limits import MAX_BODY
from app.exports.models import ImportedSeat
from app.exports.parts import PARTS
from app.exports.service import LOCKED, export_for_server
from tests.api.test_gm_gold_R11_2 import adjust
from tests.api.test_transfers_api import MARKER, assert_adds_up, ledger_adds_up, send, shown_ledger
from tests.builders.accounts import user
from tests.builders.campaigns import running_trio
from tests.builders.companies import buy, warband
from tests.builders.guilds import guild_campaign
from tests.builders.maps import add_place
from tests.builders.responses import error_code
from tests.builders.settlements import close_all, play_round

API = "/api/v1"


def png(color=(90, 120, 60), size=(12, 8)) -> bytes:
    out = BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def rich_campaign(client) -> dict:
    """A campaign with something in every part of the document: maps with images (a place
    with its own map and a place on it), paths, an event, a guild with a member and a pending
    request, a revealed mission alliance, a transfer and a letter, a battle fought and
    settled (a capture and its ransom), a warband kept at home, the battle clock's settings."""
    g = guild_campaign(client, 4, modules={"paths": True})
    gm, cid, players, places = g.gm, g.cid, g.players, g.places
    url = f"{API}/campaigns/{cid}"
    assert client.put(f"{url}/maps/top/image", files={"file": ("map.png", png(), "image/png")}, headers=gm).status_code == 200
    city = places[5]
    r = client.put(f"{url}/maps/{city['id']}/image", files={"file": ("city.png", png((10, 20, 30)), "image/png")}, headers=gm)
    assert r.status_code == 200, r.text
    gate = add_place(client, gm, cid, "Gate", hideout_slot=False, parent_id=city["id"], entry=True)
    add_place(client, gm, cid, "Market", hideout_slot=False, parent_id=city["id"])
    for a, b in ((0, 4), (1, 4), (4, 5)):  # the paths module: players 0 and 1 reach place 4 to fight
        r = client.post(f"{url}/paths", json={"from_id": places[a]["id"], "to_id": places[b]["id"]}, headers=gm)
        assert r.status_code == 201, r.text
    r = client.put(f"{url}/clock-settings", json={"minutes_per_side": 30, "max_turns": 5, "extra_turn_on": 4}, headers=gm)
    assert r.status_code == 200, r.text
    r = client.patch(url, json={"settlement_rules": {"ranks": [4, 8, 13, 19, 26]}}, headers=gm)
    assert r.status_code == 200, r.text
    ambush = g.event(5, "Ambush at the gate")
    gid = g.found(3, "Iron Pact")["id"]
    assert g.post(1, f"/guilds/{gid}/requests").status_code == 201
    g.admit(3, gid, 2)
    alliance = g.ally(0, ambush, 1)
    assert g.post(1, f"/alliances/{alliance['id']}/accept").status_code == 200
    r = g.post(2, "/transfers", {"to_player_id": g.pid(0), "amount": 5, "note": "for the road"})
    assert r.status_code == 201, r.text
    r = g.post(0, "/letters", {"to_player_id": g.pid(1), "subject": "Sealed", "body": "Meet me at the gate."})
    assert r.status_code == 201, r.text
    home = buy(client, cid, players[3], "undead.crypt-gouger", "undead.skeleton", faction="undead")
    warband(client, cid, players[3], home, "Stay-at-home")
    rnd = play_round(client, campaign=(gm, cid, players, places), place=4)
    arms = rnd.models[1][1]
    r = rnd.put(1, {"course": {"taken_out": [arms]}, "injuries": [{"model_id": arms, "result": "captured"}]})
    assert r.status_code == 200, r.text
    r = rnd.put(0, {"course": {"took_out": {str(rnd.models[0][0]): 1}, "objectives": [rnd.models[0][1]]}})
    assert r.status_code == 200, r.text
    close_all(rnd)
    [ransom] = client.get(f"{url}/ransoms", headers=gm).json()
    assert (
        client.post(f"{url}/ransoms/{ransom['id']}/offer", json={"price": 15}, headers=players[0]["headers"]).status_code == 200
    )
    return {"gm": gm, "cid": cid, "players": players, "places": places, "gate": gate, "g": g}


def export(client, cid: int, headers: dict) -> dict:
    r = client.get(f"{API}/campaigns/{cid}/export", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def import_(client, doc, headers: dict) -> dict:
    r = client.post(f"{API}/campaigns/import", json=doc, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()


def normalized(doc: dict) -> dict:
    """The document with what may differ between two exports made out of its structure: every
    row number and time (`id`, `*_id`, `*_ids`, `*_at`) — found by the keys' shape, not by
    hand. (Numbers count rows in the order they were made, and times are kept, so in practice
    these match too: the round trip tests check the documents whole as well.)"""

    def walk(value, key=""):
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if key == "id" or key.endswith(("_id", "_ids")) or key.endswith("_at"):
            return "#"
        return value

    return walk(doc)


def count(engine, model) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(model)).one()


def test_issue19_export_is_one_versioned_document_with_every_part(client):
    w = rich_campaign(client)
    doc = export(client, w["cid"], w["gm"])
    assert (doc["format"], doc["version"], doc["scope"]) == ("hideout-campaign", 1, "gm")
    c = doc["campaign"]
    assert c["name"] == "Guild test" and c["gm"] == "gamemaster" and c["modules"]["paths"] is True
    assert c["clock"] == {"minutes_per_side": 30, "max_turns": 5, "extra_turn_on": 4} and c["guild"]["request_fee"] == 7
    assert c["settlement_rules"]["ranks"] == [4, 8, 13, 19, 26]
    assert c["map"] and Image.open(BytesIO(__import__("base64").b64decode(c["map"]))).size == (12, 8)
    assert [p["nickname"] for p in doc["players"]] == ["player0", "player1", "player2", "player3"]
    city = next(p for p in doc["places"] if p["name"] == "Place 5")
    assert (
        city["has_map"]
        and city["map"]
        and {p["name"] for p in doc["places"] if p["parent_id"] == city["id"]} == {"Gate", "Market"}
    )
    assert len(doc["paths"]) == 3 and len(doc["hideouts"]) == 4 and doc["events"][0]["title"] == "Ambush at the gate"
    assert all(company["models"] for company in doc["companies"])
    [battle] = doc["battles"]
    assert len(battle["warbands"]) == 2 and battle["confirmations"] and battle["winners"] == [1]
    assert {m["model_id"] for bw in battle["warbands"] for m in bw["roster"]} <= {
        m["id"] for c in doc["companies"] for m in c["models"]
    }
    assert len(doc["settlements"]) == 2 and doc["ransoms"][0]["price"] == 15
    [guild] = doc["guilds"]
    assert guild["name"] == "Iron Pact" and len(guild["members"]) == 2
    assert len(doc["alliances"]) == 1 and len(doc["alliances"][0]["members"]) == 2  # revealed at Battles (R8.8)
    assert doc["chronicle"] and doc["ledger"]
    assert set(doc) == {"format", "version", "scope", "campaign", "audit"} | {p.name for p in PARTS if p.parent is None}
    # R12.9: the GM's audit trail travels too, its ids as the document's numbers.
    added = [a for a in doc["audit"] if a["action"] == "place_added"]
    assert added and all(a["actor"] == "gamemaster" and a["target"].startswith("place:#") for a in added)
    assert {int(a["target"][7:]) for a in added} <= {p["id"] for p in doc["places"]}


def test_r11_2_the_gms_document_keeps_the_players_secrets(client, engine, settings):
    """Letters are in no document; transfers, guild requests and a warband never sent are not
    the GM's to see (R8.11), and with gold transfers on the document gives no balance, as the
    GM's pages and API give none (issue 27 item 6): `gold` and `balance_after` are null."""
    w = rich_campaign(client)
    doc = export(client, w["cid"], w["gm"])
    text = json.dumps(doc)
    assert "Meet me at the gate" not in text and "Sealed" not in text and "letters" not in doc
    assert doc["transfers"] == [] and "for the road" not in text and not any(e["kind"] == "transfer" for e in doc["ledger"])
    assert doc["guilds"][0]["requests"] == [] and "Stay-at-home" not in text
    assert w["g"].campaign()["modules"]["gold_transfers"] is True
    players = {p["player_id"]: p for p in client.get(f"{API}/campaigns/{w['cid']}/players", headers=w["gm"]).json()}
    for number, player in enumerate(doc["players"], 1):
        entries = [e for e in doc["ledger"] if e["player_id"] == number]
        assert entries and player["gold"] is None and all(e["balance_after"] is None for e in entries)
        assert players[w["players"][number - 1]["player_id"]]["gold"] is None  # as the GM's API shows it (R11.2)
        gm_ledger = client.get(
            f"{API}/campaigns/{w['cid']}/ledger", params={"player_id": w["players"][number - 1]["player_id"]}, headers=w["gm"]
        ).json()
        assert gm_ledger["balance"] is None and sorted(e["amount"] for e in entries) == sorted(
            e["amount"] for e in gm_ledger["items"]
        )  # the same entries as the GM's ledger, and no figure more
    with Session(engine) as s:
        server = export_for_server(s, campaign_id=w["cid"], media_dir=settings.var_dir / "media")
    assert [p["gold"] for p in server["players"]] == [
        client.get(f"{API}/campaigns/{w['cid']}/ledger", headers=p["headers"]).json()["balance"] for p in w["players"]
    ]  # the server's document keeps each player's real balance, as the player sees it


def test_r11_2_without_transfers_the_gms_document_gives_the_balances_the_gm_sees(client, engine):
    """Without the gold transfers module the GM sees every balance, and so does the document:
    each the sum of the entries in it, as the GM's API shows it."""
    w = rich_campaign(client)
    with Session(engine) as s:
        campaign = s.get(Campaign, w["cid"])
        campaign.modules = {**campaign.modules, "gold_transfers": False}
        s.add(campaign)
        s.commit()
    doc = export(client, w["cid"], w["gm"])
    players = {p["player_id"]: p["gold"] for p in client.get(f"{API}/campaigns/{w['cid']}/players", headers=w["gm"]).json()}
    for number, player in enumerate(doc["players"], 1):
        entries = [e for e in doc["ledger"] if e["player_id"] == number]
        assert player["gold"] == sum(e["amount"] for e in entries) == players[w["players"][number - 1]["player_id"]]
        assert [e["balance_after"] for e in entries] == [sum(x["amount"] for x in entries[: i + 1]) for i in range(len(entries))]


def test_issue19_round_trip_export_import_export_gives_the_same_document(client, engine):
    """SQLite and PostgreSQL (TEST_DATABASE_URL): the GM moves the campaign, and the new one
    exports as the same document, though every row of it is new."""
    w = rich_campaign(client)
    first = export(client, w["cid"], w["gm"])
    created = import_(client, first, w["gm"])
    assert created["id"] != w["cid"] and created["status"] == "running" and created["phase"] == "settlement"
    assert [p["nickname"] for p in created["players"]] == ["player0", "player1", "player2", "player3"]
    assert {p["player_id"] for p in created["players"]}.isdisjoint(p["player_id"] for p in w["players"])
    second = export(client, created["id"], w["gm"])
    assert normalized(second) == normalized(first)
    assert second == first
    with Session(engine) as s:
        old, new = s.get(Campaign, w["cid"]), s.get(Campaign, created["id"])
        assert new.map_image and new.map_image != old.map_image  # stored anew on this server


def test_R11_2_a_gms_document_without_balances_imports_again(client, engine):
    """Transfers on, borys received gold and spent it: the GM's document (no balances, no
    transfer) imports. Each seat's gold is the sum of its entries in the document; where that
    would drop below zero, one transfer entry opens the ledger with the least that keeps every
    balance at zero or more (borys: 400, -395, -12 needs 7). The new campaign exports as the
    same document, and no balance is off its ledger (R3.8)."""
    gm, cid, (anna, borys, cecylia) = running_trio(client)
    assert adjust(client, cid, gm, borys["player_id"], -395).status_code == 201  # borys: 5
    assert send(client, cid, anna, borys["player_id"], 30, MARKER).status_code == 201  # borys: 35, anna: 370
    buy(client, cid, borys, "orcs.ax", faction="orcs")  # borys: 23, spent gold received
    first = export(client, cid, gm)
    assert [p["gold"] for p in first["players"]] == [None, None, None] and MARKER not in json.dumps(first)
    assert [e["amount"] for e in first["ledger"] if e["player_id"] == 2] == [400, -395, -12]  # -7 as a running sum
    created = import_(client, first, gm)
    new_cid = created["id"]
    assert [p["gold"] for p in created["players"]] == [None, None, None]  # the GM still sees no balance
    assert export(client, new_cid, gm) == first  # the opening entry is a transfer: not the GM's to see either
    for who in (anna, borys):
        r = client.post(f"{API}/campaigns/{new_cid}/invitations/accept", headers=who["headers"])
        assert r.status_code == 200, r.text
    anna_ledger, borys_ledger = (shown_ledger(client, new_cid, who["headers"]) for who in (anna, borys))
    # anna's 30 sent is not in the document: her seat keeps what the GM saw of her.
    assert anna_ledger["balance"] == 400 and [e["kind"] for e in anna_ledger["items"]] == ["start"]
    assert borys_ledger["balance"] == 0
    assert [(e["kind"], e["amount"], e["balance_after"]) for e in reversed(borys_ledger["items"])] == [
        ("transfer", 7, 7),
        ("start", 400, 407),
        ("gm_adjustment", -395, 12),
        ("purchase", -12, 0),
    ]
    assert_adds_up(anna_ledger)
    assert_adds_up(borys_ledger)
    ledger_adds_up(engine)
    gm_view = shown_ledger(client, new_cid, gm, borys_ledger["player_id"])
    assert gm_view["balance"] is None and [e["kind"] for e in gm_view["items"]] == ["purchase", "gm_adjustment", "start"]
    # A document that does give a balance is still held to it (R3.8).
    broken = copy.deepcopy(first)
    broken["players"][1]["gold"] = -7
    r = client.post(f"{API}/campaigns/import", json=broken, headers=gm)
    assert (r.status_code, error_code(r)) == (422, "import_gold_negative")
    assert count(engine, Campaign) == 2


def test_issue19_players_found_by_nickname_are_invited_to_take_their_seat(client, engine):
    """Import keeps every player's data on a seat; a user with the nickname gets an
    invitation (they have not agreed to join) and accepting binds them to the seat."""
    w = rich_campaign(client)
    doc = export(client, w["cid"], w["gm"])
    newgm = user(client, "newgm")
    created = import_(client, doc, newgm)
    cid = created["id"]
    p0, p1 = w["players"][0]["headers"], w["players"][1]["headers"]
    assert client.get(f"{API}/campaigns/{cid}/company", headers=p1).status_code == 404  # not a member yet
    assert client.get(f"{API}/campaigns/{cid}", headers=p1).status_code == 200  # an invitee sees it to decide
    with Session(engine) as s:
        pending = s.exec(select(Invitation.status).where(Invitation.campaign_id == cid)).all()
        assert pending == ["pending"] * 4
        seats = s.exec(select(ImportedSeat).where(ImportedSeat.campaign_id == cid)).all()
        assert sorted(seat.nickname for seat in seats) == ["player0", "player1", "player2", "player3"]
    # The GM's document gives no balance (transfers on, R11.2): a seat's gold is the sum of its entries.
    seat_gold = {p["nickname"]: sum(e["amount"] for e in doc["ledger"] if e["player_id"] == p["id"]) for p in doc["players"]}
    r = client.post(f"{API}/campaigns/{cid}/invitations/accept", headers=p1)
    assert r.status_code == 200, r.text
    company = client.get(f"{API}/campaigns/{cid}/company", headers=p1).json()
    assert company["faction"] == "basileans" and [m["status"] for m in company["models"]].count("captured") == 1
    assert client.get(f"{API}/campaigns/{cid}/ledger", headers=p1).json()["balance"] == seat_gold["player1"]
    assert client.get(f"{API}/campaigns/{cid}/ransoms", headers=p1).json()[0]["price"] == 15
    r = client.post(f"{API}/campaigns/{cid}/invitations/decline", headers=p0)
    assert r.status_code == 204
    players = client.get(f"{API}/campaigns/{cid}/players", headers=newgm).json()
    assert [p["nickname"] for p in players] == ["player0", "player1", "player2", "player3"]  # the declined seat stays
    with Session(engine) as s:
        mine = s.exec(select(User.nickname).join(Player, Player.user_id == User.id).where(Player.campaign_id == cid)).all()
        assert sorted(mine) == ["player0", "player1", "player2", "player3"]
        left = s.exec(select(ImportedSeat.nickname).where(ImportedSeat.campaign_id == cid)).all()
        assert sorted(left) == ["player0", "player2", "player3"]  # a declined seat stays, waiting
        assert (
            s.exec(select(func.count()).select_from(User).where(User.nickname == "player1")).one() == 1
        )  # the placeholder is gone
    # Nobody can log in as a seat's placeholder account.
    assert client.post(f"{API}/auth/tokens", json={"nickname": "player2", "password": "correct horse battery"}).status_code == 201
    assert sum(1 for p in players if p["nickname"] == "player2") == 1


def test_issue19_the_importing_gm_is_not_invited_to_their_own_seat(client, engine):
    w = rich_campaign(client)
    doc = export(client, w["cid"], w["gm"])
    created = import_(client, doc, w["players"][0]["headers"])  # player0 runs the copy
    with Session(engine) as s:
        invited = s.exec(
            select(User.nickname).join(Invitation, Invitation.user_id == User.id).where(Invitation.campaign_id == created["id"])
        ).all()
    assert sorted(invited) == ["player1", "player2", "player3"]


def test_r11_2_export_is_the_gms_alone(client):
    w = rich_campaign(client)
    cid = w["cid"]
    r = client.get(f"{API}/campaigns/{cid}/export", headers=w["players"][0]["headers"])
    assert r.status_code == 403 and error_code(r) == "gm_only"
    r = client.get(f"{API}/campaigns/{cid}/export", headers=user(client, "outsider"))
    assert r.status_code == 404 and error_code(r) == "not_found"
    assert client.get(f"{API}/campaigns/{cid}/export").status_code == 401
    assert (
        client.post(f"{API}/campaigns/import", json={"format": "hideout-campaign", "version": 1, "campaign": {}}).status_code
        == 401
    )


def _broken(doc: dict):
    """(why, document, code): one thing wrong with an otherwise valid document each."""

    def edit(fn):
        d = copy.deepcopy(doc)
        fn(d)
        return d

    yield "not an export", {"name": "x"}, "import_not_export"
    yield "a list", [doc], "import_not_export"
    yield "another format", {**doc, "format": "kow-campaign"}, "import_not_export"
    yield "a newer version", {**doc, "version": 2}, "import_version"
    yield "no campaign", {k: v for k, v in doc.items() if k != "campaign"}, "import_part_invalid"
    yield "places not a list", {**doc, "places": {"1": {}}}, "import_part_invalid"
    yield "a row without a number", edit(lambda d: d["places"][0].pop("id")), "import_row_invalid"
    yield "two rows with one number", edit(lambda d: d["places"].append(copy.deepcopy(d["places"][0]))), "import_part_invalid"
    yield "a dangling reference", edit(lambda d: d["hideouts"][0].update(place_id=999)), "import_reference"
    yield "a reference that is text", edit(lambda d: d["orders"][0].update(warband_id="one")), "import_reference"
    yield "a wrong type", edit(lambda d: d["companies"][0]["models"][0].update(points="many")), "import_row_invalid"
    yield "a too long name", edit(lambda d: d["places"][0].update(name="x" * 500)), "import_row_invalid"
    yield "an unknown phase", edit(lambda d: d["campaign"].update(phase="lunch")), "import_row_invalid"
    yield "an unknown status", edit(lambda d: d["campaign"].update(status="paused")), "import_row_invalid"
    yield "a nameless campaign", edit(lambda d: d["campaign"].update(name="  ")), "import_row_invalid"
    yield "a bad guild setting", edit(lambda d: d["campaign"]["guild"].update(term="clan of doom")), "guild_term_invalid"
    yield (
        "a bad casualty table",
        edit(lambda d: d["campaign"].update(settlement_rules={"casualty_table": []})),
        "casualty_table_invalid",
    )

    def gold_of(d, number):  # the GM's document gives no balance with transfers on: the sum of its entries
        return sum(e["amount"] for e in d["ledger"] if e["player_id"] == number)

    yield "gold off its ledger", edit(lambda d: d["players"][0].update(gold=gold_of(d, 1) + 1)), "import_gold"
    yield "gold below zero", edit(lambda d: d["players"][0].update(gold=-5)), "import_gold_negative"
    yield "a bad nickname", edit(lambda d: d["players"][0].update(nickname="no spaces allowed")), "import_nickname"
    yield "one nickname twice", edit(lambda d: d["players"][1].update(nickname="PLAYER0")), "import_nickname"
    yield "an image that is not base64", edit(lambda d: d["campaign"].update(map="not base64!")), "import_image"
    yield "an image that is no image", edit(lambda d: d["campaign"].update(map="aGVsbG8=")), "image_invalid"
    yield "a place off its map", edit(lambda d: d["places"][0].update(x=500)), "import_row_invalid"  # PlaceIn's bounds
    yield "a broken check", edit(lambda d: d["companies"][0]["models"][0].update(price=-1)), "import_contradiction"
    yield (
        "a duplicate hideout",
        edit(lambda d: d["hideouts"][1].update(place_id=d["hideouts"][0]["place_id"])),
        "import_contradiction",
    )
    yield "a number too big", edit(lambda d: d["events"][0].update(duration=2**40)), "import_row_invalid"


def test_r11_5_a_bad_document_is_refused_with_a_clear_422_and_creates_nothing(client, engine, settings):
    w = rich_campaign(client)
    doc = export(client, w["cid"], w["gm"])
    newgm = user(client, "newgm")
    media = settings.var_dir / "media"
    before = (count(engine, Campaign), count(engine, User), count(engine, Player), sorted(media.iterdir()))
    for why, broken, code in _broken(doc):
        r = client.post(f"{API}/campaigns/import", json=broken, headers=newgm)
        if code == "import_contradiction" and r.status_code == 201:
            pytest.fail(f"{why}: imported")
        assert (r.status_code, error_code(r)) == (422, code), (why, r.text[:300])
        assert r.json()["error"]["message"], why
        assert (count(engine, Campaign), count(engine, User), count(engine, Player), sorted(media.iterdir())) == before, why
    r = client.post(
        f"{API}/campaigns/import",
        content=b'{"format": "hideout-campaign", ',
        headers={**newgm, "Content-Type": "application/json"},
    )
    assert (r.status_code, error_code(r)) == (422, "import_not_json"), r.text
    assert "not a JSON document" in r.json()["error"]["message"]
    assert count(engine, Campaign) == before[0]


def test_r11_5_a_too_large_document_is_refused_by_the_body_limit(client):
    newgm = user(client, "newgm")
    body = b'{"format": "hideout-campaign", "version": 1, "campaign": {"story": "' + b"x" * MAX_BODY + b'"}}'
    r = client.post(f"{API}/campaigns/import", content=body, headers={**newgm, "Content-Type": "application/json"})
    assert r.status_code == 413 and error_code(r) == "body_too_large"


# --- the `hideout` command ------------------------------------------------------------------------


@pytest.fixture
def cli(monkeypatch, database_url, settings):
    """app.cli.main on the test database and media folder."""
    from app.cli import main
    from app.core.settings import get_settings

    monkeypatch.setenv("HIDEOUT_DATABASE_URL", database_url)
    monkeypatch.setenv("HIDEOUT_VAR_DIR", str(settings.var_dir))
    monkeypatch.setenv("HIDEOUT_FAST_HASHING", "1")
    get_settings.cache_clear()
    yield main
    get_settings.cache_clear()


def test_issue19_cli_export_and_import_round_trip_with_everything_but_letters(client, cli, tmp_path, capsys):
    """`hideout export` is the server's: it keeps what the GM may not see (transfers, guild
    requests, a warband at home), so that a server move loses nothing but the letters."""
    w = rich_campaign(client)
    first_path, second_path = tmp_path / "first.json", tmp_path / "second.json"
    assert cli(["export", str(w["cid"]), str(first_path)]) == 0
    first = json.loads(first_path.read_text())
    assert first["scope"] == "server" and first["transfers"][0]["note"] == "for the road"
    assert first["guilds"][0]["requests"] and "Stay-at-home" in first_path.read_text() and "Meet me" not in first_path.read_text()
    assert cli(["import", str(first_path), "--as", "gamemaster"]) == 0
    out = capsys.readouterr().out
    new_cid = int(out.split("as campaign ")[1].split(",")[0])
    assert cli(["export", str(new_cid), str(second_path)]) == 0
    second = json.loads(second_path.read_text())
    assert normalized(second) == normalized(first)
    assert second == first


def test_issue19_cli_refusals(client, cli, tmp_path, capsys):
    user(client, "newgm")
    assert cli(["export", "999", str(tmp_path / "x.json")]) == 1
    assert "no campaign 999" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli(["import", str(bad), "--as", "newgm"]) == 1
    assert "cannot read" in capsys.readouterr().err
    bad.write_text(json.dumps({"format": "hideout-campaign", "version": 7, "campaign": {}}))
    assert cli(["import", str(bad), "--as", "newgm"]) == 1
    assert "version 7" in capsys.readouterr().err
    bad.write_text(json.dumps({"format": "hideout-campaign", "version": 1, "campaign": {"name": "Solo"}}))
    assert cli(["import", str(bad), "--as", "nobody-here"]) == 1
    assert "nobody-here" in capsys.readouterr().err
    assert cli(["import", str(bad), "--as", "NewGM"]) == 0


def test_issue28_3_r12_10_a_seat_the_gm_handed_over_is_not_taken_back_by_its_old_invitation(client, engine):
    """An imported seat nobody here had (or nobody took) is given by the GM to a user of their
    choice (R12.10's handover, the claim for a seat); the invitation the import sent for it then
    no longer binds the seat: the company stays with the one it was handed to."""
    w = rich_campaign(client)
    doc = export(client, w["cid"], w["gm"])
    newgm = user(client, "newgm")
    cid = import_(client, doc, newgm)["id"]
    seat = next(p for p in client.get(f"{API}/campaigns/{cid}/players", headers=newgm).json() if p["nickname"] == "player1")
    newcomer = user(client, "newcomer")
    r = client.post(f"{API}/campaigns/{cid}/players/{seat['player_id']}/handover", json={"nickname": "newcomer"}, headers=newgm)
    assert r.status_code == 200, r.text
    company = client.get(f"{API}/campaigns/{cid}/company", headers=newcomer).json()
    assert company["faction"] == "basileans"
    r = client.post(f"{API}/campaigns/{cid}/invitations/accept", headers=w["players"][1]["headers"])
    assert client.get(f"{API}/campaigns/{cid}/company", headers=newcomer).json() == company
    with Session(engine) as s:
        holder = s.exec(select(User.nickname).join(Player, Player.user_id == User.id).where(Player.id == seat["player_id"])).one()
    assert holder == "newcomer"
    # The seat's record and its placeholder account went with the handover: the invitation is
    # one to the campaign only, which, running outside Preparation, takes no new player (R12.12).
    assert r.status_code == 409 and error_code(r) == "late_join_phase", r.text
    with Session(engine) as s:
        assert s.exec(select(ImportedSeat.nickname).where(ImportedSeat.player_id == seat["player_id"])).all() == []
        assert s.exec(select(User).where(User.nickname == "player1", User.password_hash == LOCKED)).all() == []
        # The other seats are kept for their people, each held by its placeholder.
        kept = s.exec(select(ImportedSeat).where(ImportedSeat.campaign_id == cid)).all()
        assert kept and all(s.get(User, s.get(Player, k.player_id).user_id).password_hash == LOCKED for k in kept)

"""Hostile input over the API (issue 10): ids beyond the database's integers, names of only
spaces, nulls and non-booleans, unparseable bodies — always a 4xx with the error body, never a
500, and nothing changed (R11.5). Runs on SQLite and PostgreSQL."""

import json
import re

import pytest
from sqlmodel import Session, func, select

from app.campaigns.models import Campaign
from app.maps.models import Place
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, running_campaign
from tests.builders.companies import buy, warband
from tests.builders.maps import add_place
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase

HUGE = [10**20, 2**31, 2**63, 0, -1]


def _assert_error_body(r):
    body = r.json()
    assert set(body) == {"error"} and {"code", "message", "details"} <= set(body["error"]), body


@pytest.mark.load
def test_r11_5_every_api_path_with_an_impossible_id_is_404(client, app):
    gm, cid, players, places = running_campaign(client, 2)
    spec = client.get("/api/v1/openapi.json").json()
    checked = 0
    for path, methods in spec["paths"].items():
        params = re.findall(r"{(\w+)}", path)
        if not params:
            continue
        for method in methods:
            for target in params:  # one impossible id at a time; the others real
                for huge in HUGE:
                    url = re.sub(
                        r"{(\w+)}", lambda m: str(huge if m.group(1) == target else cid if m.group(1) == "cid" else 1), path
                    )
                    r = client.request(method.upper(), url, headers=gm, json={})
                    assert r.status_code in (404, 405, 422), (method, url, r.status_code, r.text)
                    _assert_error_body(r)
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/hideouts", {"place_id": 10**20}),
        ("POST", "/rewards", {"player_id": 2**31, "item": "item.bandages"}),
        ("POST", "/ledger/adjustments", {"player_id": 10**20, "amount": 5, "reason": "x"}),
        ("POST", "/ledger/adjustments", {"player_id": 1, "amount": 10**20, "reason": "x"}),
        ("POST", "/events", {"place_id": 10**20, "title": "Ambush"}),
        ("POST", "/places", {"name": "X", "parent_id": 10**20}),
        ("POST", "/paths", {"from_id": 10**20, "to_id": 1}),
        ("POST", "/warbands", {"name": "X", "model_ids": [10**20]}),
        ("PUT", "/company/items/1", {"model_id": 10**20}),
    ],
)
def test_r11_5_body_ids_beyond_the_database_are_422(client, method, path, body, engine):
    gm, cid, players, places = running_campaign(client, 2)
    headers = gm if path in ("/rewards", "/ledger/adjustments", "/events", "/places", "/paths") else players[0]["headers"]
    r = client.request(method, f"/api/v1/campaigns/{cid}{path}", json=body, headers=headers)
    assert r.status_code == 422, r.text
    _assert_error_body(r)


@pytest.mark.parametrize(
    "query",
    [
        "/battles?round=1e20",
        "/battles?round=100000000000000000000",
        "/map?of=100000000000000000000",
        "/company?player_id=100000000000000000000",
        "/ledger?player_id=99999999999",
        "/orders?round=-1",
        "/chronicle?page=100000000000000000000",
    ],
)
def test_r11_5_query_values_beyond_the_database_are_422(client, query):
    gm, cid, _players, _places = running_campaign(client, 2)
    r = client.get(f"/api/v1/campaigns/{cid}{query}", headers=gm)
    assert r.status_code == 422, r.text
    _assert_error_body(r)


def test_r11_5_names_of_only_spaces_are_refused_and_nothing_is_stored(client, engine):
    gm = user(client, "gamemaster")
    r = client.post("/api/v1/campaigns", json={"name": "   "}, headers=gm)
    assert r.status_code == 422 and r.json()["error"]["details"][0]["field"] == "name"
    cid = create_campaign(client, gm)["id"]
    assert client.patch(f"/api/v1/campaigns/{cid}", json={"name": " \t "}, headers=gm).status_code == 422
    assert client.post(f"/api/v1/campaigns/{cid}/places", json={"name": "  "}, headers=gm).status_code == 422
    place = add_place(client, gm, cid, "  Keep  ")
    assert place["name"] == "Keep"
    assert client.patch(f"/api/v1/campaigns/{cid}/places/{place['id']}", json={"name": "   "}, headers=gm).status_code == 422
    assert (
        client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": place["id"], "title": "   "}, headers=gm).status_code
        == 422
    )
    with Session(engine) as s:
        assert [c.name for c in s.exec(select(Campaign)).all()] == ["Winter of the Lost Crown"]
        assert [p.name for p in s.exec(select(Place)).all()] == ["Keep"]


def test_r11_5_a_warband_renamed_to_spaces_keeps_its_name(client):
    gm, cid, players, places = running_campaign(client, 2)
    models = buy(client, cid, players[0], "orcs.krusher", "orcs.ax", faction="orcs")
    w = warband(client, cid, players[0], models, "Raiders")
    r = client.patch(f"/api/v1/campaigns/{cid}/warbands/{w['id']}", json={"name": "    "}, headers=players[0]["headers"])
    assert r.status_code == 422
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=players[0]["headers"]).json()[0]["name"] == "Raiders"


def test_r11_5_guild_nulls_keep_the_setting_and_booleans_are_strict(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, guild={"term": "cartel", "max_level": 4})["id"]
    r = client.patch(f"/api/v1/campaigns/{cid}", json={"guild": {"term": None, "max_level": None}}, headers=gm)
    assert r.status_code == 200, r.text
    assert (r.json()["guild"]["term"], r.json()["guild"]["max_level"]) == ("cartel", 4)
    r = client.patch(f"/api/v1/campaigns/{cid}", json={"modules": {"guilds": None}}, headers=gm)
    assert r.status_code == 200 and r.json()["modules"]["guilds"] is True
    for bad in (0, 1, "true", "yes"):
        r = client.patch(f"/api/v1/campaigns/{cid}", json={"modules": {"movement": bad}}, headers=gm)
        assert r.status_code == 422 and error_code(r) == "validation_error", bad
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["modules"]["movement"] is False


def test_r11_5_unparseable_bodies_are_422(client):
    gm = user(client, "gamemaster")
    headers = {**gm, "Content-Type": "application/json"}
    deep = "[" * 100_000 + "]" * 100_000
    for raw in (b'{"name": "\xff\xfe"}', deep.encode(), b"{not json", b""):
        r = client.post("/api/v1/campaigns", content=raw, headers=headers)
        assert r.status_code == 422, (raw[:20], r.status_code, r.text[:200])
        _assert_error_body(r)


def test_r11_5_405_names_the_allowed_methods(client):
    r = client.delete("/api/v1/catalog/factions")
    assert r.status_code == 405 and "GET" in r.headers["allow"]
    _assert_error_body(r)


def _png(width: int, height: int) -> bytes:
    """A real PNG header claiming these dimensions, with a tiny (invalid) body: the check must
    come from the header, before decoding."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


def test_r11_5_an_image_of_too_many_pixels_is_refused_from_its_header(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    r = client.put(
        f"/api/v1/campaigns/{cid}/maps/top/image", files={"file": ("big.png", _png(9500, 9500), "image/png")}, headers=gm
    )
    assert r.status_code == 422 and error_code(r) == "image_too_many_pixels" and "9500 × 9500" in r.json()["error"]["message"]
    assert client.get(f"/api/v1/campaigns/{cid}/map", headers=gm).json()["image"] is None


def test_r11_5_a_body_over_the_cap_is_refused_before_it_is_read(client):
    from app.core.limits import MAX_BODY

    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    r = client.put(
        f"/api/v1/campaigns/{cid}/maps/top/image",
        content=b"x" * 16,
        headers={**gm, "Content-Type": "multipart/form-data; boundary=x", "Content-Length": str(2 * 1024**3)},
    )
    assert r.status_code == 413 and error_code(r) == "body_too_large"

    def chunks():  # no Content-Length: refused once the stream passes the cap
        for _ in range(MAX_BODY // 65536 + 2):
            yield b"y" * 65536

    r = client.post("/api/v1/campaigns", content=chunks(), headers={**gm, "Content-Type": "application/json"})
    assert r.status_code == 413 and error_code(r) == "body_too_large"


def _abusive_body(schema: dict, components: dict, text: str, number: int):
    """A body for this schema where every string is `text` and every integer `number`."""
    if "$ref" in schema:
        return _abusive_body(components[schema["$ref"].split("/")[-1]], components, text, number)
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        return _abusive_body(options[0], components, text, number) if options else None
    kind = schema.get("type")
    if kind == "object":
        return {name: _abusive_body(sub, components, text, number) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [_abusive_body(schema.get("items", {}), components, text, number)]
    if kind == "string":
        return text
    if kind in ("integer", "number"):
        return number
    if kind == "boolean":
        return True
    return text


@pytest.mark.parametrize(("text", "number"), [("x" * 100_000, 2**40), ("nul\x00byte", 7), ("  ", -(2**40))])
def test_r11_5_long_text_nul_bytes_and_huge_numbers_in_every_field_are_refused_without_a_500(client, text, number):
    gm, cid, players, places = running_campaign(client, 2)
    spec = client.get("/api/v1/openapi.json").json()
    components = spec["components"]["schemas"]
    sent = 0
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            content = op.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            body = _abusive_body(content["application/json"]["schema"], components, text, number)
            url = path.replace("{cid}", str(cid))
            url = re.sub(r"{\w+}", "1", url)
            for headers in (gm, players[0]["headers"]):
                r = client.request(method.upper(), url, json=body, headers=headers)
                assert r.status_code < 500, (method, url, r.status_code, r.text[:300])
                sent += 1
    assert sent > 40
    r = client.post(f"/api/v1/campaigns/{cid}/places", json={"name": "Nul\x00place"}, headers=gm)
    assert r.status_code == 422 and error_code(r) == "text_nul"
    assert client.get(f"/api/v1/campaigns/{cid}/battles?x=%00", headers=gm).status_code == 422

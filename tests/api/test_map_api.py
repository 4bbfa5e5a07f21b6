"""The map over the API: nested maps (R1.2, R1.3), images, paths (R9.6 off, R9.7 on)."""

import io

from PIL import Image
from sqlmodel import Session, func, select

from app.maps.models import Path, Place
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join, running_campaign
from tests.builders.maps import add_place
from tests.builders.responses import error_code


def png(size=(64, 48), fmt="PNG") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, "green").save(buf, fmt)
    return buf.getvalue()


def campaign(client, **body):
    gm = user(client, "gamemaster")
    return gm, create_campaign(client, gm, **body)["id"]


def test_r1_2_places_have_name_description_income_position_and_flag(client):
    gm, cid = campaign(client)
    r = client.post(
        f"/api/v1/campaigns/{cid}/places",
        headers=gm,
        json={"name": "Ravensgate", "description": "*Walled* town", "income": 10, "hideout_slot": True, "x": 12.5, "y": 80},
    )
    assert r.status_code == 201
    place = r.json()
    assert {k: place[k] for k in ("name", "description", "income", "hideout_slot", "x", "y", "parent_id", "owner_player_id")} == {
        "name": "Ravensgate",
        "description": "*Walled* town",
        "income": 10,
        "hideout_slot": True,
        "x": 12.5,
        "y": 80,
        "parent_id": None,
        "owner_player_id": None,
    }
    for body in ({"name": "", "x": 5}, {"name": "A", "x": 101}, {"name": "A", "income": -1}, {"name": "A", "y": "far"}):
        r = client.post(f"/api/v1/campaigns/{cid}/places", headers=gm, json=body)
        assert r.status_code == 422, body
    assert len(client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json()) == 1


def test_r1_3_maps_inside_places_three_levels_at_most(client, engine):
    gm, cid = campaign(client)
    land = add_place(client, gm, cid, "Land")
    city = add_place(client, gm, cid, "City", parent_id=land["id"])
    district = add_place(client, gm, cid, "District", parent_id=city["id"])
    r = client.post(f"/api/v1/campaigns/{cid}/places", headers=gm, json={"name": "Cellar", "parent_id": district["id"]})
    assert r.status_code == 422 and error_code(r) == "map_too_deep"
    r = client.patch(f"/api/v1/campaigns/{cid}/places/{district['id']}", headers=gm, json={"has_map": True})
    assert r.status_code == 422 and error_code(r) == "map_too_deep"
    r = client.patch(f"/api/v1/campaigns/{cid}/places/{city['id']}", headers=gm, json={"has_map": False})
    assert r.status_code == 409 and error_code(r) == "map_has_places"
    other = client.post(f"/api/v1/campaigns/{cid}/places", headers=gm, json={"name": "X", "parent_id": 99999})
    assert other.status_code == 422 and error_code(other) == "place_parent_invalid"
    top = client.get(f"/api/v1/campaigns/{cid}/map", headers=gm).json()
    assert [p["name"] for p in top["places"]] == ["Land"] and top["places"][0]["has_map"] is True and top["image"] is None
    inner = client.get(f"/api/v1/campaigns/{cid}/map?of={city['id']}", headers=gm).json()
    assert [p["name"] for p in inner["places"]] == ["District"]
    assert [b["name"] for b in inner["breadcrumbs"]] == ["Land", "City"] and inner["name"] == "City"
    assert client.get(f"/api/v1/campaigns/{cid}/map?of={district['id']}", headers=gm).status_code == 404
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Place)).one() == 3


def test_r1_3_places_on_place_maps_are_full_places(client):
    gm, cid = campaign(client)
    city = add_place(client, gm, cid, "City", hideout_slot=False)
    add_place(client, gm, cid, "Top flag")
    inner = add_place(client, gm, cid, "Docks", parent_id=city["id"])  # a ⚑ place inside the city
    anna, borys = join(client, gm, cid, "anna"), join(client, gm, cid, "borys")
    client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm)
    r = client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": inner["id"]}, headers=anna["headers"])
    assert r.status_code == 201
    view = client.get(f"/api/v1/campaigns/{cid}/map?of={city['id']}", headers=borys["headers"]).json()
    assert view["places"][0]["owner_player_id"] == anna["player_id"] and view["places"][0]["hideout"] is True


def test_map_images_are_verified_and_give_a_place_its_map(client):
    gm, cid = campaign(client)
    keep = add_place(client, gm, cid, "Keep", hideout_slot=False)
    r = client.put(
        f"/api/v1/campaigns/{cid}/maps/top/image", headers=gm, files={"file": ("map.png", png((3000, 1000)), "image/png")}
    )
    assert r.status_code == 200 and (r.json()["width"], r.json()["height"]) == (2048, 683)
    top = client.get(f"/api/v1/campaigns/{cid}/map", headers=gm).json()
    assert top["image"]["url"] == r.json()["url"]
    image = client.get(top["image"]["url"])
    assert image.status_code == 200 and "max-age=31536000" in image.headers["cache-control"]
    original = client.get(top["image"]["original_url"])
    assert Image.open(io.BytesIO(original.content)).size == (3000, 1000)
    r = client.put(
        f"/api/v1/campaigns/{cid}/maps/{keep['id']}/image", headers=gm, files={"file": ("k.webp", png(fmt="WEBP"), "image/webp")}
    )
    assert r.status_code == 200
    assert client.get(f"/api/v1/campaigns/{cid}/map?of={keep['id']}", headers=gm).json()["image"]["width"] == 64
    for name, data in (("x.png", b"garbage"), ("x.gif", _gif()), ("x.png", b"")):
        r = client.put(f"/api/v1/campaigns/{cid}/maps/top/image", headers=gm, files={"file": (name, data, "image/png")})
        assert r.status_code == 422 and error_code(r) == "image_invalid", name
    big = png((10, 10)) + b"\0" * (10 * 1024 * 1024)
    r = client.put(f"/api/v1/campaigns/{cid}/maps/top/image", headers=gm, files={"file": ("big.png", big, "image/png")})
    assert r.status_code == 422 and error_code(r) == "image_too_large"
    assert client.get(f"/api/v1/campaigns/{cid}/map", headers=gm).json()["image"]["url"] == top["image"]["url"]
    anna = join(client, gm, cid, "anna")
    r = client.put(
        f"/api/v1/campaigns/{cid}/maps/top/image", headers=anna["headers"], files={"file": ("m.png", png(), "image/png")}
    )
    assert r.status_code == 403


def _gif() -> bytes:
    buf = io.BytesIO()
    Image.new("P", (4, 4)).save(buf, "GIF")
    return buf.getvalue()


def test_metadata_is_stripped_from_uploaded_images(client):
    gm, cid = campaign(client)
    exif = Image.Exif()
    exif[0x010F] = "SecretCameraMaker"
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), "red").save(buf, "JPEG", exif=exif)
    assert b"SecretCameraMaker" in buf.getvalue()
    r = client.put(f"/api/v1/campaigns/{cid}/maps/top/image", headers=gm, files={"file": ("m.jpg", buf.getvalue(), "image/jpeg")})
    for url in (r.json()["url"], r.json()["original_url"]):
        assert b"SecretCameraMaker" not in client.get(url).content


def test_r9_6_path_calls_are_refused_with_the_paths_module_off(client, engine):
    gm, cid = campaign(client)
    a, b = add_place(client, gm, cid, "A"), add_place(client, gm, cid, "B")
    r = client.post(f"/api/v1/campaigns/{cid}/paths", headers=gm, json={"from_id": a["id"], "to_id": b["id"], "one_way": False})
    assert r.status_code == 409 and error_code(r) == "module_disabled" and "Paths between places" in r.json()["error"]["message"]
    assert client.get(f"/api/v1/campaigns/{cid}/paths", headers=gm).status_code == 409
    city = add_place(client, gm, cid, "City")
    r = client.post(f"/api/v1/campaigns/{cid}/places", headers=gm, json={"name": "Gate", "parent_id": city["id"], "entry": True})
    assert r.status_code == 409 and error_code(r) == "module_disabled"
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Path)).one() == 0


def test_r9_7_gm_draws_toggles_reverses_and_deletes_paths(client):
    gm, cid = campaign(client, modules={"paths": True})
    a, b, c = (add_place(client, gm, cid, n) for n in "ABC")
    url = f"/api/v1/campaigns/{cid}/paths"
    r = client.post(url, headers=gm, json={"from_id": a["id"], "to_id": b["id"], "one_way": True})
    assert r.status_code == 201
    path = r.json()
    assert (path["from_id"], path["to_id"], path["one_way"]) == (a["id"], b["id"], True)
    for body, status, code in (
        ({"from_id": b["id"], "to_id": a["id"], "one_way": False}, 409, "path_exists"),
        ({"from_id": a["id"], "to_id": a["id"]}, 422, "path_same_place"),
        ({"from_id": a["id"], "to_id": 99999}, 404, "not_found"),
    ):
        r = client.post(url, headers=gm, json=body)
        assert r.status_code == status and error_code(r) == code, code
    city_place = add_place(client, gm, cid, "Inner", parent_id=c["id"])
    r = client.post(url, headers=gm, json={"from_id": a["id"], "to_id": city_place["id"]})
    assert r.status_code == 422 and error_code(r) == "path_cross_map"
    reversed_ = client.patch(f"{url}/{path['id']}", headers=gm, json={"reverse": True}).json()
    assert (reversed_["from_id"], reversed_["to_id"]) == (b["id"], a["id"])
    assert client.patch(f"{url}/{path['id']}", headers=gm, json={"one_way": False}).json()["one_way"] is False
    shown = client.get(f"/api/v1/campaigns/{cid}/map", headers=gm).json()["paths"]
    assert shown == [{"id": path["id"], "from_id": b["id"], "to_id": a["id"], "one_way": False}]
    assert client.delete(f"{url}/{path['id']}", headers=gm).status_code == 204
    assert client.get(url, headers=gm).json() == []
    assert client.delete(f"{url}/{path['id']}", headers=gm).status_code == 404


def test_r9_7_entry_marks_join_a_place_map_to_its_parent(client, engine):
    from app.maps import rules, service

    gm, cid = campaign(client, modules={"paths": True})
    city, field = add_place(client, gm, cid, "City"), add_place(client, gm, cid, "Field")
    gate = add_place(client, gm, cid, "Gate", parent_id=city["id"], entry=True)
    hall = add_place(client, gm, cid, "Hall", parent_id=city["id"])
    client.post(f"/api/v1/campaigns/{cid}/paths", headers=gm, json={"from_id": gate["id"], "to_id": hall["id"]})
    client.post(f"/api/v1/campaigns/{cid}/paths", headers=gm, json={"from_id": field["id"], "to_id": city["id"], "one_way": True})
    r = client.patch(f"/api/v1/campaigns/{cid}/places/{city['id']}", headers=gm, json={"entry": True})
    assert r.status_code == 422 and error_code(r) == "entry_needs_parent"
    with Session(engine) as s:
        graph = service.path_graph(s, cid)
    assert rules.reachable({city["id"]}, graph) == {city["id"], gate["id"]}
    assert rules.reachable({gate["id"]}, graph) == {gate["id"], city["id"], hall["id"]}
    assert rules.reachable({field["id"]}, graph) == {field["id"], city["id"]}


def test_r1_3_deleting_a_place_removes_its_map_and_paths_and_owned_places_stay(client, engine):
    gm, cid, players, places = running_campaign(client)
    owned = places[0]["id"]
    r = client.delete(f"/api/v1/campaigns/{cid}/places/{owned}", headers=gm)
    assert r.status_code == 409 and error_code(r) == "place_owned"
    free = places[2]["id"]
    inner = add_place(client, gm, cid, "Inner", parent_id=free)
    assert client.delete(f"/api/v1/campaigns/{cid}/places/{free}", headers=gm).status_code == 204
    with Session(engine) as s:
        assert s.get(Place, inner["id"]) is None and s.get(Place, owned) is not None
    r = client.post(f"/api/v1/campaigns/{cid}/places", headers=players[0]["headers"], json={"name": "Mine"})
    assert r.status_code == 403

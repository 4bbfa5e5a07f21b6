"""R12.14 over the API: POST /campaigns/{cid}/places/bulk adds up to 200 places at once, all or
none, each checked as one place is (its parent, the maps' depth, its name unused on its map),
laid out apart on their map; they are moved and edited after as any place."""

import math

from sqlmodel import Session, func, select

from app.maps.models import Place
from app.maps.rules import SPOT_GAP
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join
from tests.builders.maps import add_place
from tests.builders.responses import error_code


def _bulk(client, gm, cid, places, status=201):
    r = client.post(f"/api/v1/campaigns/{cid}/places/bulk", headers=gm, json={"places": places})
    assert r.status_code == status, r.text
    return r.json()


def _count(engine, cid) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Place).where(Place.campaign_id == cid)).one()


def test_r12_14_ten_places_in_one_request_laid_out_apart_then_moved_and_edited(client):
    gm = user(client, "bulkgm")
    cid = create_campaign(client, gm)["id"]
    keep = add_place(client, gm, cid, "Ivory Keep", x=50, y=50)
    body = [{"name": f"Village {n}", "income": n, "hideout_slot": n < 4} for n in range(10)]
    items = _bulk(client, gm, cid, body)["items"]
    assert [(p["name"], p["income"], p["hideout_slot"], p["parent_id"]) for p in items] == [
        (f"Village {n}", n, n < 4, None) for n in range(10)
    ]
    spots = [(p["x"], p["y"]) for p in items] + [(keep["x"], keep["y"])]
    assert all(math.dist(a, b) >= SPOT_GAP for n, a in enumerate(spots) for b in spots[n + 1 :]), spots
    assert len(client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json()) == 11
    moved = client.patch(f"/api/v1/campaigns/{cid}/places/{items[0]['id']}", headers=gm, json={"x": 3, "y": 4, "name": "Hamlet"})
    assert moved.status_code == 200 and (moved.json()["x"], moved.json()["y"], moved.json()["name"]) == (3, 4, "Hamlet")


def test_r12_14_places_go_inside_a_place_whose_map_opens(client):
    gm = user(client, "bulkgm2")
    cid = create_campaign(client, gm)["id"]
    city = add_place(client, gm, cid, "City")
    items = _bulk(client, gm, cid, [{"name": "Docks", "parent_id": city["id"]}, {"name": "Market", "parent_id": city["id"]}])[
        "items"
    ]
    assert {p["parent_id"] for p in items} == {city["id"]}
    shown = client.get(f"/api/v1/campaigns/{cid}/map?of={city['id']}", headers=gm).json()
    assert [p["name"] for p in shown["places"]] == ["Docks", "Market"]
    # A name on another map is no clash: City's map and the campaign map are apart.
    _bulk(client, gm, cid, [{"name": "Docks"}])


def test_r12_14_one_bad_place_refuses_the_whole_list_and_names_each_item(client, engine):
    gm = user(client, "bulkgm3")
    cid = create_campaign(client, gm)["id"]
    land = add_place(client, gm, cid, "Land")
    city = add_place(client, gm, cid, "City", parent_id=land["id"])
    district = add_place(client, gm, cid, "District", parent_id=city["id"])
    before = _count(engine, cid)
    body = [
        {"name": "Fine"},
        {"name": "land"},  # taken on the campaign map (names are told apart without case)
        {"name": "Twice"},
        {"name": "Twice "},
        {"name": "Cellar", "parent_id": district["id"]},  # a fourth level
        {"name": "Nowhere", "parent_id": 999_999},
    ]
    r = client.post(f"/api/v1/campaigns/{cid}/places/bulk", headers=gm, json={"places": body})
    assert r.status_code == 422 and error_code(r) == "places_refused"
    details = r.json()["error"]["details"]
    assert [(d["code"], d["item"]) for d in details] == [
        ("place_name_taken", 1),
        ("place_name_repeated", 3),
        ("map_too_deep", 4),
        ("place_parent_invalid", 5),
    ]
    assert details[0]["message"] == "A place named land is already on this map." and details[0]["field"] == "places.1.name"
    assert _count(engine, cid) == before


def test_r12_14_the_list_holds_1_to_200_valid_places(client, engine):
    gm = user(client, "bulkgm4")
    cid = create_campaign(client, gm)["id"]
    for body in (
        [],
        [{"name": f"P{n}"} for n in range(201)],
        [{"name": ""}],
        [{"name": "A", "income": -1}],
        [{"name": "A", "x": 5}],
    ):
        r = client.post(f"/api/v1/campaigns/{cid}/places/bulk", headers=gm, json={"places": body})
        assert r.status_code == 422 and error_code(r) == "validation_error", body
    assert _count(engine, cid) == 0
    items = _bulk(client, gm, cid, [{"name": f"Hamlet {n}"} for n in range(200)])["items"]
    assert len(items) == 200 and all(0 <= p["x"] <= 100 and 0 <= p["y"] <= 100 for p in items)


def test_r12_14_only_the_gm_adds_places_in_bulk(client):
    gm = user(client, "bulkgm5")
    cid = create_campaign(client, gm)["id"]
    player = join(client, gm, cid, "bulkplayer")["headers"]
    r = client.post(f"/api/v1/campaigns/{cid}/places/bulk", headers=player, json={"places": [{"name": "Mine"}]})
    assert r.status_code == 403
    assert client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json() == []

"""R12.13 ready maps: an empty draft's map filled from a shipped template — its image (files of
the campaign's own), places, a city's districts with their own maps, paths and the paths
module on, names in the GM's language; refused, and nothing changed, for a map with places,
a started campaign, a player, a stranger or an unknown template."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from app.campaigns.models import Campaign
from app.core.i18n import LOCALES
from app.maps.models import Path, Place
from app.maps.ready import service as ready
from tests.builders.accounts import user
from tests.builders.campaigns import campaign_with_players, create_campaign, running_campaign
from tests.builders.maps import add_place
from tests.builders.responses import error_code

API = "/api/v1"


def fill(client, headers, cid, template="region"):
    return client.post(f"{API}/campaigns/{cid}/map-template", json={"template": template}, headers=headers)


def state(engine, cid) -> tuple:
    with Session(engine) as s:
        c = s.get(Campaign, cid)
        n = s.exec(select(func.count()).select_from(Place).where(Place.campaign_id == cid)).one()
        m = s.exec(select(func.count()).select_from(Path).where(Path.campaign_id == cid)).one()
        return c.map_image, dict(c.modules), n, m


def test_r12_13_every_ready_map_is_package_data_named_in_every_language():
    for key in ready.KEYS:
        assert (resources.files("app.maps") / "data" / f"{key}.json").is_file()
        raw = json.loads((resources.files("app.maps") / "data" / f"{key}.json").read_text(encoding="utf-8"))
        for text in (raw["name"], raw["summary"], *(p["name"] for p in raw["places"])):
            assert set(LOCALES) <= set(text), text  # a language may be ready before it is listed (issue 34)
        ids = [p["id"] for p in raw["places"]]
        assert len(set(ids)) == len(ids)
        assert all(a in ids and b in ids for a, b in raw["paths"])


def test_r12_13_the_region_fills_an_empty_draft(client, engine):
    gm = user(client, "regiongm")
    cid = create_campaign(client, gm)["id"]
    r = fill(client, gm, cid)
    assert r.status_code == 201, r.text
    assert r.json() == {"template": "region", "name": "A region of ten places with paths", "places": 10, "paths": 13}
    places = client.get(f"{API}/campaigns/{cid}/places", headers=gm).json()
    places = places["items"] if isinstance(places, dict) else places
    assert len(places) == 10 and sum(p["hideout_slot"] for p in places) == 4
    assert {"Millford", "Saltmarsh"} <= {p["name"] for p in places}
    image, modules, _n, paths = state(engine, cid)
    assert image and modules["paths"] is True and paths == 13
    # A second campaign from the same ready map gets image files of its own.
    other = create_campaign(client, gm, name="Another")["id"]
    assert fill(client, gm, other).status_code == 201
    assert state(engine, other)[0] != image


def test_r12_13_the_city_has_districts_with_their_own_maps_in_polish(client, engine):
    gm = user(client, "citygm", locale="pl")
    cid = create_campaign(client, gm)["id"]
    r = fill(client, {**gm, "Accept-Language": "pl"}, cid, "city")
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "Miasto z dzielnicami"
    with Session(engine) as s:
        rows = {p.name: p for p in s.exec(select(Place).where(Place.campaign_id == cid)).all()}
        districts = [p for p in rows.values() if p.has_map]
        assert len(districts) == 4 and all(d.map_image for d in districts)
        assert len({d.map_image for d in districts}) == 4  # each its own file
        assert rows["Brama Miejska"].parent_id == rows["Stare Miasto"].id and rows["Brama Miejska"].entry
        assert sum(p.entry for p in rows.values()) == 4
        for path in s.exec(select(Path).where(Path.campaign_id == cid)).all():
            assert s.get(Place, path.from_place_id).parent_id == s.get(Place, path.to_place_id).parent_id


def test_r12_13_a_map_with_places_or_a_started_campaign_is_refused_and_unchanged(client, engine):
    gm, cid, _players, _places = campaign_with_players(client, 1)
    before = state(engine, cid)
    r = fill(client, gm, cid)
    assert r.status_code == 409 and error_code(r) == "ready_map_not_empty"
    assert state(engine, cid) == before
    gm2, cid2, _p, _pl = running_campaign(client, 2, gm_name="runninggm", names=("runner_a", "runner_b"))
    before = state(engine, cid2)
    r = fill(client, gm2, cid2)
    assert r.status_code == 409 and error_code(r) == "ready_map_not_draft"
    assert state(engine, cid2) == before


@pytest.mark.parametrize("body", [{"template": "moon"}, {}, {"template": "region", "extra": 1}])
def test_r12_13_an_unknown_template_is_422(client, engine, body):
    gm = user(client, "badgm")
    cid = create_campaign(client, gm)["id"]
    r = client.post(f"{API}/campaigns/{cid}/map-template", json=body, headers=gm)
    assert r.status_code == 422
    assert state(engine, cid)[2] == 0


def test_r12_13_a_player_or_a_stranger_may_not_fill_the_map(client, engine):
    gm, cid, players, places = campaign_with_players(client, 1)
    r = client.delete(f"{API}/campaigns/{cid}/places/{places[1]['id']}", headers=gm)
    assert r.status_code in (200, 204), r.text
    r = client.delete(f"{API}/campaigns/{cid}/places/{places[0]['id']}", headers=gm)
    assert r.status_code in (200, 204), r.text
    before = state(engine, cid)
    r = fill(client, players[0]["headers"], cid)
    assert r.status_code == 403 and error_code(r) == "gm_only"
    assert fill(client, user(client, "outsider"), cid).status_code == 404
    assert state(engine, cid) == before
    assert fill(client, gm, cid).status_code == 201

"""R12.13 campaign copies over the API: a GM copies a campaign they run into a new draft with
its map, new copies of its images, places without owners, nested maps, paths, settings,
modules, guild settings, cover and events (ended, kept to reuse), and nothing of its play; a
player or a stranger is refused and nothing is made."""

from __future__ import annotations

from io import BytesIO

from PIL import Image
from sqlalchemy import func
from sqlmodel import Session, select

from app.campaigns.models import Campaign, Invitation, Player
from app.chronicle.models import ChronicleEntry
from app.events.models import Event
from app.maps.models import Hideout, Path, Place
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.maps import add_place
from tests.builders.responses import error_code
from tests.builders.rounds import event

API = "/api/v1"


def png(color=(90, 120, 60), size=(12, 8)) -> bytes:
    out = BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def played_campaign(client):
    """A running campaign with a map image, a place with its own map and places on it (one an
    entry), paths, an event, hideouts held, a guild term and settings changed."""
    gm, cid, players, places = running_campaign(
        client, 2, 4, name="Winter", modules={"paths": True}, guild={"term": "cartel"}, starting_gold=300
    )
    url = f"{API}/campaigns/{cid}"
    assert client.put(f"{url}/maps/top/image", files={"file": ("m.png", png(), "image/png")}, headers=gm).status_code == 200
    city = places[3]
    r = client.put(f"{url}/maps/{city['id']}/image", files={"file": ("c.png", png((1, 2, 3)), "image/png")}, headers=gm)
    assert r.status_code == 200, r.text
    add_place(client, gm, cid, "Gate", hideout_slot=False, parent_id=city["id"], entry=True)
    add_place(client, gm, cid, "Market", hideout_slot=False, parent_id=city["id"])
    for a, b in ((0, 2), (1, 2), (2, 3)):
        r = client.post(f"{url}/paths", json={"from_id": places[a]["id"], "to_id": places[b]["id"]}, headers=gm)
        assert r.status_code == 201, r.text
    event(client, gm, cid, places[2]["id"], "Ambush at the ford", duration=2, blockade=True)
    return gm, cid, players, places


def counts(engine) -> dict:
    with Session(engine) as s:
        return {m.__name__: s.exec(select(func.count()).select_from(m)).one() for m in (Campaign, Place, Path, Event, Player)}


def test_r12_13_the_gm_copies_a_running_campaign_into_a_new_draft(client, engine, tmp_path):
    gm, cid, players, places = played_campaign(client)
    r = client.post(f"{API}/campaigns/{cid}/copy", headers=gm)
    assert r.status_code == 201, r.text
    new = r.json()
    assert new["id"] != cid and new["name"] == "Winter (copy)"
    assert (new["status"], new["round"], new["phase"], new["players"]) == ("setup", 0, None, [])
    assert new["modules"]["paths"] is True and new["guild"]["term"] == "cartel"
    with Session(engine) as s:
        old, copy = s.get(Campaign, cid), s.get(Campaign, new["id"])
        assert copy.starting_gold == 300 and copy.gm_user_id == old.gm_user_id
        assert copy.map_image and copy.map_image != old.map_image and copy.map_original != old.map_original
        src = {p.name: p for p in s.exec(select(Place).where(Place.campaign_id == cid)).all()}
        got = {p.name: p for p in s.exec(select(Place).where(Place.campaign_id == new["id"])).all()}
        assert set(got) == set(src)
        assert all(p.owner_player_id is None for p in got.values())
        city = got[places[3]["name"]]
        assert city.has_map and city.map_image and city.map_image != src[city.name].map_image
        assert got["Gate"].parent_id == city.id and got["Gate"].entry and got["Market"].parent_id == city.id
        assert (got["Gate"].x, got["Gate"].y, got["Gate"].income) == (src["Gate"].x, src["Gate"].y, src["Gate"].income)
        ends = {
            (s.get(Place, p.from_place_id).name, s.get(Place, p.to_place_id).name)
            for p in s.exec(select(Path).where(Path.campaign_id == new["id"])).all()
        }
        assert ends == {(places[a]["name"], places[b]["name"]) for a, b in ((0, 2), (1, 2), (2, 3))}
        [kept] = s.exec(select(Event).where(Event.campaign_id == new["id"])).all()
        assert (kept.title, kept.duration, kept.blockade, kept.place_id) == (
            "Ambush at the ford",
            2,
            True,
            got[places[2]["name"]].id,
        )
        assert (kept.round_added, kept.ended_round) == (1, 0)
        for model in (Player, Hideout, Invitation):
            assert s.exec(select(model).where(model.campaign_id == new["id"])).all() == []
        assert [e.kind for e in s.exec(select(ChronicleEntry).where(ChronicleEntry.campaign_id == new["id"])).all()] == [
            "campaign_created"
        ]
    # The events are a library: none is active in the draft, nor would be in its first round.
    assert client.get(f"{API}/campaigns/{new['id']}/events", headers=gm).json() == []
    # The source is unchanged.
    assert client.get(f"{API}/campaigns/{cid}", headers=gm).json()["status"] == "running"


def test_r12_13_a_copy_takes_the_given_name_and_the_gms_language(client):
    gm, cid, _players, _places = played_campaign(client)
    r = client.post(f"{API}/campaigns/{cid}/copy", json={"name": "  Spring  "}, headers=gm)
    assert r.status_code == 201 and r.json()["name"] == "Spring"
    r = client.post(f"{API}/campaigns/{cid}/copy", headers={**gm, "Accept-Language": "pl"})
    assert r.status_code == 201 and r.json()["name"] == "Winter (kopia)"
    r = client.post(f"{API}/campaigns/{cid}/copy", json={"name": ""}, headers=gm)
    assert r.status_code == 422


def test_r12_13_a_long_name_is_shortened_to_fit(client):
    gm = user(client, "longgm")
    cid = client.post(f"{API}/campaigns", json={"name": "x" * 120}, headers=gm).json()["id"]
    r = client.post(f"{API}/campaigns/{cid}/copy", headers=gm)
    assert r.status_code == 201, r.text
    assert len(r.json()["name"]) == 120 and r.json()["name"].endswith(" (copy)")


def test_r12_13_a_finished_campaign_may_be_copied(client):
    gm, cid, _players, _places = played_campaign(client)
    assert client.post(f"{API}/campaigns/{cid}/status", json={"status": "finished"}, headers=gm).status_code == 200
    r = client.post(f"{API}/campaigns/{cid}/copy", headers=gm)
    assert r.status_code == 201 and r.json()["status"] == "setup"


def test_r12_13_a_player_or_a_stranger_may_not_copy_and_nothing_is_made(client, engine):
    gm, cid, players, _places = played_campaign(client)
    before = counts(engine)
    r = client.post(f"{API}/campaigns/{cid}/copy", headers=players[0]["headers"])
    assert r.status_code == 403 and error_code(r) == "gm_only"
    r = client.post(f"{API}/campaigns/{cid}/copy", headers=user(client, "stranger"))
    assert r.status_code == 404
    assert client.post(f"{API}/campaigns/{cid}/copy").status_code == 401
    assert counts(engine) == before

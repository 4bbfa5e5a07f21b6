"""R12.13: events are kept as a library to reuse. Every event that is over — ended by the GM,
expired, or brought along by a campaign copy — is listed for the GM, who runs one again from
the current round as a new event; an active one is refused, a player may do neither, and a
refusal changes nothing."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, select

from app.events.models import Event
from tests.builders.campaigns import running_campaign
from tests.builders.pages import flash_of, login, post
from tests.builders.responses import error_code
from tests.builders.rounds import event

API = "/api/v1"


def _count(engine) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Event)).one()


def test_r12_13_an_ended_event_is_in_the_library_and_runs_again_as_a_new_event(client, engine):
    gm, cid, players, places = running_campaign(client)
    fair = event(client, gm, cid, places[2]["id"], "Fair", duration=2, points_limit=120, reward="A Rare item", text="*Rain*")
    ongoing = event(client, gm, cid, places[2]["id"], "Siege")
    assert client.delete(f"{API}/campaigns/{cid}/events/{fair['id']}", headers=gm).status_code == 200
    library = client.get(f"{API}/campaigns/{cid}/events/library", headers=gm).json()
    assert [e["id"] for e in library] == [fair["id"]]  # the ongoing Siege is not in it

    r = client.post(f"{API}/campaigns/{cid}/events/{fair['id']}/reuse", headers=gm)
    assert r.status_code == 201, r.text
    again = r.json()
    assert again["id"] not in (fair["id"], ongoing["id"]) and again["active"] is True
    kept = ("place_id", "title", "text", "duration", "points_limit", "reward")
    assert {k: again[k] for k in kept} == {k: fair[k] for k in kept}
    listed = [e["id"] for e in client.get(f"{API}/campaigns/{cid}/events", headers=players[0]["headers"]).json()]
    assert listed == [ongoing["id"], again["id"]]
    # The old event stays as it was, in the library (it may run again another time).
    assert [e["id"] for e in client.get(f"{API}/campaigns/{cid}/events/library", headers=gm).json()] == [fair["id"]]
    kinds = [e["kind"] for e in client.get(f"{API}/campaigns/{cid}/chronicle", headers=gm).json()["items"]]
    assert kinds.count("event_added") == 3


def test_r12_13_an_active_event_or_a_player_is_refused_and_nothing_changes(client, engine):
    gm, cid, players, places = running_campaign(client)
    fair = event(client, gm, cid, places[2]["id"], "Fair")
    before = _count(engine)
    r = client.post(f"{API}/campaigns/{cid}/events/{fair['id']}/reuse", headers=gm)
    assert r.status_code == 409 and error_code(r) == "event_not_in_library"
    assert client.delete(f"{API}/campaigns/{cid}/events/{fair['id']}", headers=gm).status_code == 200
    player = players[0]["headers"]
    assert client.get(f"{API}/campaigns/{cid}/events/library", headers=player).status_code == 403
    r = client.post(f"{API}/campaigns/{cid}/events/{fair['id']}/reuse", headers=player)
    assert r.status_code == 403 and error_code(r) == "gm_only"
    assert _count(engine) == before


def test_r12_13_a_copied_campaigns_events_wait_in_its_library(client):
    gm, cid, _players, places = running_campaign(client)
    event(client, gm, cid, places[2]["id"], "Fair")
    copy = client.post(f"{API}/campaigns/{cid}/copy", headers=gm).json()["id"]
    assert client.get(f"{API}/campaigns/{copy}/events", headers=gm).json() == []
    (kept,) = client.get(f"{API}/campaigns/{copy}/events/library", headers=gm).json()
    assert kept["title"] == "Fair" and kept["active"] is False
    again = client.post(f"{API}/campaigns/{copy}/events/{kept['id']}/reuse", headers=gm).json()
    assert again["active"] is True and again["round_added"] == 1  # a draft's event counts from round 1


def test_r12_13_the_events_page_offers_the_library_to_the_gm_only(client, make_client):
    gm, cid, players, places = running_campaign(client)
    fair = event(client, gm, cid, places[2]["id"], "Fair")
    client.delete(f"{API}/campaigns/{cid}/events/{fair['id']}", headers=gm)
    master = make_client()
    login(master, "gamemaster")
    page = master.get(f"/campaigns/{cid}/events").text
    assert "Library of events" in page and f"/events/{fair['id']}/reuse" in page
    r = post(master, f"/campaigns/{cid}/events/{fair['id']}/reuse", {})
    assert r.status_code == 303 and "/events#event-" in r.headers["location"]
    assert flash_of(master.get(r.headers["location"]).text) == "Event Fair runs again from round 1."
    player = make_client()
    login(player, players[0]["nickname"])
    assert "Library of events" not in player.get(f"/campaigns/{cid}/events").text

"""Events (R5.1, R5.4, R5.5) over the API."""

from sqlmodel import Session, func, select

from app.campaigns.models import Campaign
from app.events import service as events_service
from app.events.models import Event
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.maps import add_place
from tests.builders.responses import error_code
from tests.builders.rounds import event, to_phase


def test_r5_1_r5_5_gm_adds_events_on_places_at_any_level_in_any_phase(client):
    gm, cid, players, places = running_campaign(client)
    inner = add_place(client, gm, cid, "Cellar", parent_id=places[2]["id"])
    first = event(
        client,
        gm,
        cid,
        places[2]["id"],
        "Ambush",
        duration=2,
        text="*Rain*",
        scenario="scenario.light-the-beacon",
        points_limit=120,
        reward="A Rare item",
        notes="Free for all",
        roles="none",
    )
    assert (first["round_added"], first["last_round"], first["active"]) == (1, 2, True)
    second = event(client, gm, cid, inner["id"], "Deep trouble", other_mission="Find the key")
    to_phase(client, gm, cid, "battles")
    third = event(client, gm, cid, places[2]["id"], "Late news")
    listed = client.get(f"/api/v1/campaigns/{cid}/events", headers=players[0]["headers"]).json()
    assert [e["id"] for e in listed] == [first["id"], second["id"], third["id"]]
    view = client.get(f"/api/v1/campaigns/{cid}/map", headers=players[1]["headers"]).json()
    place = next(p for p in view["places"] if p["id"] == places[2]["id"])
    assert place["events"] == [first["id"], third["id"]]
    chronicle = [e["kind"] for e in client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=gm).json()["items"]]
    assert chronicle.count("event_added") == 3


def _titles_agree(engine, cid: int) -> dict[int, str]:
    """Issue 37: the Orders and warbands pages read the active events' titles alone; they say
    what the active events' whole rows say."""
    with Session(engine) as s:
        campaign = s.get(Campaign, cid)
        titles = events_service.active_event_titles(s, campaign)
        assert titles == {e.id: e.title for e in events_service.active_events(s, campaign)}
        return titles


def test_r5_1_events_end_after_their_duration_at_end_of_round(client, engine):
    gm, cid, players, places = running_campaign(client)
    one = event(client, gm, cid, places[2]["id"], "One round")
    two = event(client, gm, cid, places[2]["id"], "Two rounds", duration=2)
    assert _titles_agree(engine, cid) == {one["id"]: "One round", two["id"]: "Two rounds"}
    to_phase(client, gm, cid, "twilight")
    client.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": 1}, headers=gm)
    assert [e["id"] for e in client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()] == [two["id"]]
    assert _titles_agree(engine, cid) == {two["id"]: "Two rounds"}
    to_phase(client, gm, cid, "twilight")
    client.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": 2}, headers=gm)
    assert client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json() == []
    assert _titles_agree(engine, cid) == {}
    assert one["last_round"] == 1


def test_r5_5_only_the_gm_creates_edits_and_ends_events(client, engine):
    gm, cid, players, places = running_campaign(client)
    anna = players[0]["headers"]
    r = client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": places[0]["id"], "title": "Mine"}, headers=anna)
    assert r.status_code == 403
    ev = event(client, gm, cid, places[0]["id"], "Festival")
    assert client.patch(f"/api/v1/campaigns/{cid}/events/{ev['id']}", json={"title": "x"}, headers=anna).status_code == 403
    assert client.delete(f"/api/v1/campaigns/{cid}/events/{ev['id']}", headers=anna).status_code == 403
    r = client.patch(f"/api/v1/campaigns/{cid}/events/{ev['id']}", json={"blockade": True, "points_limit": 90}, headers=gm)
    assert r.json()["blockade"] is True and r.json()["points_limit"] == 90
    ended = client.delete(f"/api/v1/campaigns/{cid}/events/{ev['id']}", headers=gm)
    assert ended.status_code == 200 and ended.json()["active"] is False
    again = client.delete(f"/api/v1/campaigns/{cid}/events/{ev['id']}", headers=gm)
    assert again.status_code == 409 and error_code(again) == "event_ended"
    outsider = user(client, "outsider")
    assert client.get(f"/api/v1/campaigns/{cid}/events", headers=outsider).status_code == 404
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Event)).one() == 1


def test_r5_2_r5_4_event_input_is_checked(client):
    gm, cid, players, places = running_campaign(client)
    base = {"place_id": places[0]["id"], "title": "X"}
    for extra, status, code in (
        ({"scenario": "scenario.nope"}, 422, "scenario_unknown"),
        ({"scenario": "scenario.light-the-beacon", "other_mission": "Both"}, 422, "event_scenario_or_mission"),
        ({"other_mission": "  "}, 422, "other_mission_text"),
        ({"duration": 0}, 422, "validation_error"),
        ({"points_limit": 0}, 422, "validation_error"),
        ({"roles": "bandits"}, 422, "validation_error"),
        ({"place_id": 99999}, 404, "not_found"),
    ):
        r = client.post(f"/api/v1/campaigns/{cid}/events", json={**base, **extra}, headers=gm)
        assert r.status_code == status and error_code(r) == code, extra
    assert client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json() == []


def test_r5_5_null_for_a_field_that_always_has_a_value_is_refused_and_changes_nothing(client):
    gm, cid, players, places = running_campaign(client)
    ev = event(client, gm, cid, places[2]["id"], "Fog", text="Thick")
    for key in ("title", "text", "duration", "blockade", "reward", "notes"):
        r = client.patch(f"/api/v1/campaigns/{cid}/events/{ev['id']}", json={key: None}, headers=gm)
        assert r.status_code == 422 and [d["field"] for d in r.json()["error"]["details"]] == [key], r.text
    after = client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()[0]
    assert (after["title"], after["text"], after["duration"], after["blockade"]) == ("Fog", "Thick", 1, False)
    # Where null means "none" it is taken: no points limit, no scenario.
    r = client.patch(f"/api/v1/campaigns/{cid}/events/{ev['id']}", json={"points_limit": None, "scenario": None}, headers=gm)
    assert r.status_code == 200 and r.json()["points_limit"] is None

"""Issue 29 item 7: models of one profile are told apart over the API — a number among the
profile in the company ("label") and a name the player gives (PATCH given_name), refused to
anyone but the owner, and used by battle rosters."""

from sqlmodel import Session

from app.battles import announce
from app.companies.models import CompanyModel
from app.warbands.models import Warband, WarbandMember
from tests.builders.accounts import user
from tests.builders.campaigns import join
from tests.builders.responses import error_code


def _company_with_two_krushers(client):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Names"}, headers=gm).json()["id"]
    anna, bob = join(client, gm, cid, "anna"), join(client, gm, cid, "bob")
    h = anna["headers"]
    assert client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=h).status_code == 200
    ids = [
        client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": "orcs.krusher"}, headers=h).json()["id"]
        for _ in range(2)
    ]
    return cid, anna, bob, ids


def _labels(client, cid, headers):
    return {
        m["id"]: (m["label"], m["given_name"])
        for m in client.get(f"/api/v1/campaigns/{cid}/company", headers=headers).json()["models"]
    }


def test_models_of_one_profile_are_numbered_and_a_given_name_replaces_the_number(client):
    cid, anna, _bob, (first, second) = _company_with_two_krushers(client)
    h = anna["headers"]
    assert _labels(client, cid, h) == {first: ("Krusher 1", None), second: ("Krusher 2", None)}
    r = client.patch(f"/api/v1/campaigns/{cid}/company/models/{first}", json={"given_name": "  Grim "}, headers=h)
    assert r.status_code == 200 and r.json()["label"] == "Grim" and r.json()["name"] == "Krusher"
    assert _labels(client, cid, h) == {first: ("Grim", "Grim"), second: ("Krusher 2", None)}
    r = client.patch(f"/api/v1/campaigns/{cid}/company/models/{first}", json={"given_name": ""}, headers=h)
    assert r.status_code == 200 and r.json()["given_name"] is None
    assert _labels(client, cid, h)[first] == ("Krusher 1", None)


def test_only_the_owner_names_a_model_and_a_refusal_changes_nothing(client):
    cid, anna, bob, (first, _second) = _company_with_two_krushers(client)
    h = anna["headers"]
    client.patch(f"/api/v1/campaigns/{cid}/company/models/{first}", json={"given_name": "Grim"}, headers=h)
    before = _labels(client, cid, h)
    r = client.patch(f"/api/v1/campaigns/{cid}/company/models/{first}", json={"given_name": "Bob's"}, headers=bob["headers"])
    assert r.status_code == 404 and error_code(r) == "not_found"
    for body in ({"given_name": "x" * 41}, {"given_name": "Ok", "name": "Krusher"}, {}):
        r = client.patch(f"/api/v1/campaigns/{cid}/company/models/{first}", json=body, headers=h)
        assert r.status_code == 422, body
    r = client.patch(f"/api/v1/campaigns/{cid}/company/models/999999", json={"given_name": "Ghost"}, headers=h)
    assert r.status_code == 404
    assert _labels(client, cid, h) == before


def test_a_battle_roster_names_each_model_as_its_company_does(client, engine):
    cid, anna, _bob, (first, second) = _company_with_two_krushers(client)
    client.patch(f"/api/v1/campaigns/{cid}/company/models/{second}", json={"given_name": "Grim"}, headers=anna["headers"])
    with Session(engine) as session:
        company_id = session.get(CompanyModel, first).company_id
        warband = Warband(campaign_id=cid, player_id=anna["player_id"], name="Raiders")
        session.add(warband)
        session.flush()
        session.add_all(
            [WarbandMember(warband_id=warband.id, model_id=first), WarbandMember(warband_id=warband.id, model_id=second)]
        )
        session.flush()
        roster = announce._rosters(session, [warband.id])[warband.id]
        assert company_id and [m["name"] for m in roster] == ["Krusher 1", "Grim"]

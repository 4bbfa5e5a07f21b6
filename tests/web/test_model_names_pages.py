"""Issue 29 item 7: the company, the builder and the warband list tell models of one profile
apart ("Krusher 1", "Krusher 2") and show a name the player gives; only the owner names."""

from tests.builders.accounts import user
from tests.builders.campaigns import join
from tests.builders.pages import login, post


def _setup(client, make_client):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Names"}, headers=gm).json()["id"]
    anna = join(client, gm, cid, "anna")
    join(client, gm, cid, "bob")
    browser = make_client()
    login(browser, "anna")
    post(browser, f"/campaigns/{cid}/company/faction", {"faction": "orcs"})
    for _ in range(2):
        post(browser, f"/campaigns/{cid}/shop/models", {"profile": "orcs.krusher"})
    ids = [m["id"] for m in client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()["models"]]
    return cid, browser, ids, anna


def test_company_and_builder_number_models_of_one_profile_and_show_a_given_name(client, make_client):
    cid, browser, (first, second), _anna = _setup(client, make_client)
    page = browser.get(f"/campaigns/{cid}/company").text
    assert "Krusher 1" in page and "Krusher 2" in page and "Give it a name" in page
    r = post(browser, f"/campaigns/{cid}/company/models/{second}/name", {"given_name": "Grim"})
    assert r.status_code == 303 and "The model is now called Grim." in browser.get(r.headers["location"]).text
    page = browser.get(f"/campaigns/{cid}/company").text
    assert "Grim" in page and "Krusher 1" in page and "Krusher 2" not in page
    builder = browser.get(f"/campaigns/{cid}/warbands/new").text
    assert "Krusher 1" in builder and "Grim" in builder


def test_a_too_long_name_or_another_players_model_is_refused_and_changes_nothing(client, make_client):
    cid, browser, (first, _second), _anna = _setup(client, make_client)
    r = post(browser, f"/campaigns/{cid}/company/models/{first}/name", {"given_name": "x" * 41})
    assert r.status_code == 422
    bob = make_client()
    login(bob, "bob")
    r = post(bob, f"/campaigns/{cid}/company/models/{first}/name", {"given_name": "Mine"})
    assert r.status_code == 404
    page = browser.get(f"/campaigns/{cid}/company").text
    assert "Krusher 1" in page and "Mine" not in page and "x" * 41 not in page


def test_the_naming_form_is_in_polish_too(client, make_client):
    cid, browser, _ids, anna = _setup(client, make_client)
    assert client.patch("/api/v1/me", json={"locale": "pl"}, headers=anna["headers"]).status_code == 200
    page = browser.get(f"/campaigns/{cid}/company").text
    assert "Nadaj imię" in page and "Krusher 2" in page

"""Warband, event and order pages (R4.1-R4.7, R5.1, R5.5, R11.2)."""

from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.pages import login, post
from tests.builders.rounds import event, to_phase

ORCS = ("orcs.krusher", "orcs.ax", "orcs.ax", "orcs.ax")


def world(client, make_client):
    gm, cid, players, places = running_campaign(client)
    anna = players[0]
    anna["models"] = buy(client, cid, anna, *ORCS, faction="orcs")
    browser = make_client()
    login(browser, "player0")
    return gm, cid, players, places, browser


def test_r4_2_builder_live_check_lists_problems_and_saves(client, make_client):
    gm, cid, players, places, browser = world(client, make_client)
    models = players[0]["models"]
    page = browser.get(f"/campaigns/{cid}/warbands/new").text
    assert "A warband needs a Command model." in page and "0 / 200 pts" in page
    check = post(
        browser,
        f"/campaigns/{cid}/warbands/check",
        {"name": "X", "model_ids": str(models[0]["id"]), "mercenary": "merc.kuzlo-and-madfall"},
        headers={"HX-Request": "true"},
    )
    assert check.status_code == 200 and "<html" not in check.text
    assert "1 Spellcaster model, but at most 0 allowed (Grunt/Warrior models: 0)." in check.text
    assert "A warband needs a Grunt or Warrior model." in check.text and "80 / 200 pts" in check.text
    no_js = post(browser, f"/campaigns/{cid}/warbands/check", {"name": "X", "model_ids": str(models[0]["id"])})
    assert "<html" in no_js.text and 'value="X"' in no_js.text
    bad = post(browser, f"/campaigns/{cid}/warbands/save", {"name": "Bad", "model_ids": str(models[0]["id"])})
    assert bad.status_code == 422 and "A warband needs a Grunt or Warrior model." in bad.text
    body = {"name": "Raiders", "model_ids": [str(m["id"]) for m in models], "mercenary": "merc.kuzlo-and-madfall"}
    r = post(browser, f"/campaigns/{cid}/warbands/save", body)
    assert r.status_code == 303
    listing = browser.get(f"/campaigns/{cid}/warbands").text
    assert "Raiders" in listing and "116 / 200 pts" in listing and "mercenary: Kuzlo" in listing
    builder = browser.get(f"/campaigns/{cid}/warbands/new").text
    assert builder.count("in Raiders") == 4  # taken models are shown but cannot be picked


def test_r4_5_r4_6_send_from_the_map_sheet_and_the_owner_cannot_cancel(client, make_client):
    gm, cid, players, places, browser = world(client, make_client)
    w = warband(client, cid, players[0], players[0]["models"])
    ev = event(client, gm, cid, places[2]["id"], "Ambush at the Mill")
    sheet = browser.get(f"/campaigns/{cid}/map/places/{places[2]['id']}", headers={"HX-Request": "true"}).text
    assert "Ambush at the Mill" in sheet and "Send a warband" not in sheet  # not before Orders
    to_phase(client, gm, cid, "orders")
    sheet = browser.get(f"/campaigns/{cid}/map/places/{places[2]['id']}", headers={"HX-Request": "true"}).text
    assert "Send a warband" in sheet
    hop = browser.get(f"/campaigns/{cid}/send?warband={w['id']}&event={ev['id']}", follow_redirects=False)
    assert hop.headers["location"] == f"/campaigns/{cid}/warbands/{w['id']}/send?event={ev['id']}"
    page = browser.get(hop.headers["location"]).text
    assert f'value="event:{ev["id"]}" checked' in page
    r = post(browser, f"/campaigns/{cid}/warbands/{w['id']}/send", {"target": f"event:{ev['id']}", "confirm": "1"})
    assert r.status_code == 303
    listing = browser.get(f"/campaigns/{cid}/warbands").text
    assert "Sent to Ambush at the Mill" in listing and "Cancel the order" not in listing and "ask the game master" in listing
    again = post(browser, f"/campaigns/{cid}/warbands/{w['id']}/send", {"target": f"place:{places[1]['id']}", "confirm": "1"})
    assert again.status_code == 409 and "already been sent" in again.text
    refused = post(browser, f"/campaigns/{cid}/warbands/{w['id']}/cancel")  # R4.6: only the GM undoes
    assert refused.status_code == 403 and "only the game master can undo" in refused.text
    assert "Sent to Ambush at the Mill" in browser.get(f"/campaigns/{cid}/warbands").text


def test_r4_7_r11_2_orders_page_secret_before_battles(client, make_client):
    gm, cid, players, places, browser = world(client, make_client)
    w = warband(client, cid, players[0], players[0]["models"], "Secret Raiders")
    to_phase(client, gm, cid, "orders")
    client.put(
        f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", json={"place_id": places[2]["id"]}, headers=players[0]["headers"]
    )
    other = make_client()
    login(other, "player1")
    for path in ("/orders", "/warbands", "/map", "", "/chronicle", f"/map/places/{places[2]['id']}"):
        page = other.get(f"/campaigns/{cid}{path}").text
        assert "Secret Raiders" not in page, path
    assert 'href="/campaigns/%s/orders"' % cid not in other.get(f"/campaigns/{cid}").text
    gm_browser = make_client()
    login(gm_browser, "gamemaster")
    orders = gm_browser.get(f"/campaigns/{cid}/orders").text
    assert "Secret Raiders" in orders and "Undo the order" in orders
    r = post(gm_browser, f"/campaigns/{cid}/warbands/{w['id']}/cancel", {"from": "orders"})
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}/orders"
    client.put(
        f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", json={"place_id": places[2]["id"]}, headers=players[0]["headers"]
    )
    to_phase(client, gm, cid, "battles")
    assert "Secret Raiders" in other.get(f"/campaigns/{cid}/orders").text


def test_r5_5_gm_manages_events_from_the_events_page(client, make_client):
    gm, cid, players, places, _browser = world(client, make_client)
    gm_browser = make_client()
    login(gm_browser, "gamemaster")
    r = post(
        gm_browser,
        f"/campaigns/{cid}/events",
        {
            "place_id": str(places[2]["id"]),
            "title": "Storm",
            "duration": "2",
            "scenario": "__other__",
            "other_mission": "Hold the bridge",
            "points_limit": "120",
            "blockade": "on",
            "reward": "Gold",
        },
    )
    assert r.status_code == 303
    page = gm_browser.get(f"/campaigns/{cid}/events").text
    assert "Storm" in page and "Hold the bridge" in page and "blockade" in page and "up to 120 points" in page
    bad = post(gm_browser, f"/campaigns/{cid}/events", {"place_id": str(places[2]["id"]), "title": "", "duration": "0"})
    assert bad.status_code == 422
    eid = client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()[0]["id"]
    r = post(
        gm_browser,
        f"/campaigns/{cid}/events/{eid}",
        {"title": "Great storm", "duration": "3", "scenario": "scenario.supply-grab"},
    )
    assert r.status_code == 303
    assert client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()[0]["scenario"] == "scenario.supply-grab"
    assert post(gm_browser, f"/campaigns/{cid}/events/{eid}/end", {"confirm": "1"}).status_code == 303
    assert client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json() == []
    player_page = make_client()
    login(player_page, "player1")
    assert "New event" not in player_page.get(f"/campaigns/{cid}/events").text
    assert post(player_page, f"/campaigns/{cid}/events", {"place_id": str(places[2]["id"]), "title": "Mine"}).status_code == 403


def test_r5_5_editing_an_event_with_blank_fields_keeps_them(client, make_client):
    gm, cid, players, places, _browser = world(client, make_client)
    ev = event(client, gm, cid, places[2]["id"], "Fog", duration=3)
    gm_browser = make_client()
    login(gm_browser, "gamemaster")
    r = post(gm_browser, f"/campaigns/{cid}/events/{ev['id']}", {"title": "", "duration": "", "scenario": ""})
    assert r.status_code == 303
    after = client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()[0]
    assert (after["title"], after["duration"], after["scenario"]) == ("Fog", 3, None)


def test_r4_7_r11_2_outsiders_and_anonymous_see_no_orders_pages(client, make_client):
    gm, cid, players, places, browser = world(client, make_client)
    w = warband(client, cid, players[0], players[0]["models"], "Hidden Host")
    to_phase(client, gm, cid, "orders")
    client.put(
        f"/api/v1/campaigns/{cid}/warbands/{w['id']}/order", json={"place_id": places[2]["id"]}, headers=players[0]["headers"]
    )
    outsider = make_client()
    from tests.builders.pages import register

    register(outsider, "outsider")
    for path in ("/orders", "/warbands", f"/warbands/{w['id']}/send", f"/map/places/{places[2]['id']}"):
        r = outsider.get(f"/campaigns/{cid}{path}", headers={"HX-Request": "true"} if "map/places" in path else {})
        assert r.status_code == 404 and "Hidden Host" not in r.text, path
    anonymous = make_client()
    r = anonymous.get(f"/campaigns/{cid}/orders", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login")
    other = make_client()
    login(other, "player1")
    r = other.get(f"/campaigns/{cid}/warbands/{w['id']}/send")
    assert r.status_code == 404 and "Hidden Host" not in r.text

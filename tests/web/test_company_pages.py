"""Company, shop, ledger and rewards pages (R3.1-R3.9, R11.2)."""

import re

from tests.builders.accounts import user
from tests.builders.campaigns import join, running_campaign
from tests.builders.pages import login, post, register


def setup(client, make_client):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Shop"}, headers=gm).json()["id"]
    anna = join(client, gm, cid, "anna")
    browser = make_client()
    login(browser, "anna")
    return gm, cid, anna, browser


def test_r3_1_r3_2_player_chooses_faction_and_buys_in_the_shop(client, make_client):
    gm, cid, anna, browser = setup(client, make_client)
    shop = browser.get(f"/campaigns/{cid}/shop").text
    assert "Choose your company&#39;s faction first." in shop or "Choose your company's faction first." in shop
    assert post(browser, f"/campaigns/{cid}/company/faction", {"faction": "orcs"}).status_code == 303
    shop = browser.get(f"/campaigns/{cid}/shop").text
    assert "Krusher" in shop and "Buy for" in shop and "Veteran Sergeant" not in shop
    filtered = browser.get(f"/campaigns/{cid}/shop?type=Large").text
    assert "Troll" in filtered and "Krusher" not in filtered
    searched = browser.get(f"/campaigns/{cid}/shop?q=krush").text
    assert "Krusher" in searched and "Troll" not in searched
    r = post(browser, f"/campaigns/{cid}/shop/models", {"profile": "orcs.krusher"})
    assert r.status_code == 303 and "Bought Krusher for 34 gold." in browser.get(r.headers["location"]).text
    page = browser.get(f"/campaigns/{cid}/company").text
    assert "Krusher" in page and "366 gold" in page and "Sell for 34 gold" in page
    r = post(browser, f"/campaigns/{cid}/shop/models", {"profile": "orcs.nothing"})
    assert r.status_code == 422 and "There is no model orcs.nothing" in r.text


def test_r3_5_r3_9_confirm_assign_and_sell_through_pages(client, make_client):
    gm, cid, anna, browser = setup(client, make_client)
    h = anna["headers"]
    post(browser, f"/campaigns/{cid}/company/faction", {"faction": "orcs"})
    r = post(browser, f"/campaigns/{cid}/company/confirm")
    assert r.status_code == 409 and "needs a leader" in r.text
    leader = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": "orcs.krusher"}, headers=h).json()
    item = client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": "item.bandages"}, headers=h).json()
    assert (
        post(browser, f"/campaigns/{cid}/company/items/{item['id']}/assign", {"model_id": str(leader["id"])}).status_code == 303
    )
    page = browser.get(f"/campaigns/{cid}/company").text
    assert "To stash" in page
    assert post(browser, f"/campaigns/{cid}/company/confirm", {"confirm": "1"}).status_code == 303
    page = browser.get(f"/campaigns/{cid}/company").text
    assert "Confirm the company" not in page and "Sell for 17 gold" in page  # 34 less 50%
    assert post(browser, f"/campaigns/{cid}/company/models/{leader['id']}/sell", {"confirm": "1"}).status_code == 303
    assert client.get(f"/api/v1/campaigns/{cid}/company", headers=h).json()["items"][0]["model_id"] is None


def test_r3_7_gm_grants_rewards_and_adjusts_gold_from_pages(client, make_client):
    gm, cid, anna, _browser = setup(client, make_client)
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=anna["headers"])
    gm_browser = make_client()
    login(gm_browser, "gamemaster")
    page = gm_browser.get(f"/campaigns/{cid}/companies").text
    assert "Grant a reward" in page and "anna" in page
    unique = next(i for i in client.get("/api/v1/catalog/items").json() if i["rarity"] == "Unique")
    r = post(gm_browser, f"/campaigns/{cid}/rewards", {"player_id": str(anna["player_id"]), "item": unique["key"]})
    assert r.status_code == 303
    company = gm_browser.get(r.headers["location"]).text
    assert unique["name"] in company.split("Stash")[1]
    r = post(gm_browser, f"/campaigns/{cid}/rewards", {"player_id": str(anna["player_id"]), "profile": "basileans.abbess"})
    assert r.status_code == 422 and "belongs to another faction" in r.text
    # Gold transfers are on (the default): the GM adjusts without being shown a balance (R11.2).
    r = post(
        gm_browser,
        f"/campaigns/{cid}/ledger/adjustments",
        {"player_id": str(anna["player_id"]), "amount": "-500", "reason": "Fine"},
    )
    assert r.status_code == 409 and "does not have enough gold" in r.text
    r = post(
        gm_browser,
        f"/campaigns/{cid}/ledger/adjustments",
        {"player_id": str(anna["player_id"]), "amount": "25", "reason": "Painted army"},
    )
    assert r.status_code == 303
    ledger = gm_browser.get(f"/campaigns/{cid}/ledger?player_id={anna['player_id']}").text
    assert "Painted army" in ledger and "+25" in ledger and "425 gold" not in ledger and "The balance is private" in ledger


def test_r11_2_company_and_ledger_pages_are_secret_from_other_players(client, make_client):
    gm, cid, players, _places = running_campaign(client)
    anna, borys = players
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=anna["headers"])
    browser = make_client()
    login(browser, "player1")
    for path in (
        f"/campaigns/{cid}/company?player_id={anna['player_id']}",
        f"/campaigns/{cid}/ledger?player_id={anna['player_id']}",
    ):
        r = browser.get(path)
        assert r.status_code == 404 and "Orcs" not in r.text, path
    assert browser.get(f"/campaigns/{cid}/companies").status_code == 403
    outsider = make_client()
    register(outsider, "outsider")
    assert outsider.get(f"/campaigns/{cid}/company").status_code == 404
    assert outsider.get(f"/campaigns/{cid}/ledger").status_code == 404
    gm_browser = make_client()
    login(gm_browser, "gamemaster")
    assert "Orcs" in gm_browser.get(f"/campaigns/{cid}/company?player_id={anna['player_id']}").text
    # Other players' gold is not on the players page either.
    page = browser.get(f"/campaigns/{cid}/players").text
    row = page.split("player0")[1].split("</li>")[0]
    assert not re.search(r"\d+\s*gold", row), row  # ("Send gold" is a link, not an amount)


def test_catalog_pages_are_public(client):
    assert "Basileans" in client.get("/catalog").text
    assert "Man-at-Arms" in client.get("/catalog/basileans").text
    assert client.get("/catalog/atlantis").status_code == 404


def test_r11_2_a_refused_reward_or_setting_shows_a_player_nobody_s_gold(client, make_client):
    gm, cid, players, _places = running_campaign(client)
    browser = make_client()
    login(browser, "player0")
    r = post(browser, f"/campaigns/{cid}/rewards", {"player_id": str(players[1]["player_id"]), "item": "item.bandages"})
    assert r.status_code == 403 and "Grant a reward" not in r.text and "400 gold" not in r.text
    r = post(browser, f"/campaigns/{cid}/setup/4", {"starting_gold": "1"})
    assert r.status_code == 403 and "Starting gold" not in r.text
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["settings"]["starting_gold"] == 400

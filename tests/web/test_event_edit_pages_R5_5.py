"""R5.5 on the pages: the GM is told how many sent orders an event edit or end undoes and
confirms first; the owners find the undone orders on their dashboard; after Battles the
edit is refused in place, translated."""

from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.pages import login, post
from tests.builders.rounds import event, to_phase

ORCS = ("orcs.krusher", "orcs.ax", "orcs.ax", "orcs.ax")
BASILEANS = ("basileans.veteran-sergeant", "basileans.man-at-arms")


def _world(client, make_client):
    gm, cid, players, places = running_campaign(client)
    anna, borys = players
    raiders = warband(
        client, cid, anna, buy(client, cid, anna, *ORCS, faction="orcs"), "Raiders", mercenary="merc.kuzlo-and-madfall"
    )
    guard = warband(client, cid, borys, buy(client, cid, borys, *BASILEANS, faction="basileans"), "Guard")
    fair = event(client, gm, cid, places[2]["id"], "Fair")
    to_phase(client, gm, cid, "orders")
    for player, band in ((anna, raiders), (borys, guard)):
        r = client.put(
            f"/api/v1/campaigns/{cid}/warbands/{band['id']}/order", json={"event_id": fair["id"]}, headers=player["headers"]
        )
        assert r.status_code == 200, r.text
    gm_browser = make_client()
    login(gm_browser, "gamemaster")
    return gm, cid, fair, gm_browser


def _orders(client, gm, cid) -> int:
    return len(client.get(f"/api/v1/campaigns/{cid}/orders", headers=gm).json())


def test_R5_5_the_gm_confirms_an_edit_that_undoes_orders_and_the_owner_sees_it_on_the_dashboard(client, make_client):
    gm, cid, fair, gm_browser = _world(client, make_client)
    form = {"title": "Fair", "duration": "1", "scenario": "", "blockade": "on"}
    asked = post(gm_browser, f"/campaigns/{cid}/events/{fair['id']}", form)
    assert asked.status_code == 200 and "This undoes 2 sent orders. Continue?" in asked.text
    assert 'name="confirm" value="1"' in asked.text and 'name="blockade" value="on"' in asked.text
    # Asking changed nothing: the event is open and both orders stand.
    assert client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()[0]["blockade"] is False
    assert _orders(client, gm, cid) == 2
    done = post(gm_browser, f"/campaigns/{cid}/events/{fair['id']}", {**form, "confirm": "1"})
    assert done.status_code == 303
    assert _orders(client, gm, cid) == 0
    anna = make_client()
    login(anna, "player0")
    page = anna.get(f"/campaigns/{cid}").text
    assert "Orders undone" in page and "Fair is now a blockade: the order of Raiders is undone." in page
    assert "Its mercenary fee of 46 gold is refunded." in page and "Guard" not in page
    borys = make_client()
    login(borys, "player1")
    page = borys.get(f"/campaigns/{cid}").text
    assert "the order of Guard is undone." in page and "Raiders" not in page


def test_R5_5_ending_an_event_asks_in_polish_with_the_plural_form(client, make_client):
    gm, cid, fair, gm_browser = _world(client, make_client)
    gm_browser.headers["Accept-Language"] = "pl"
    asked = post(gm_browser, f"/campaigns/{cid}/events/{fair['id']}/end")
    assert asked.status_code == 200 and "To cofnie 2 wysłane rozkazy. Kontynuować?" in asked.text
    assert _orders(client, gm, cid) == 2 and client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()
    assert post(gm_browser, f"/campaigns/{cid}/events/{fair['id']}/end", {"confirm": "1"}).status_code == 303
    assert _orders(client, gm, cid) == 0 and client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json() == []


def test_R5_5_an_edit_that_undoes_nothing_needs_no_confirmation(client, make_client):
    gm, cid, fair, gm_browser = _world(client, make_client)
    r = post(gm_browser, f"/campaigns/{cid}/events/{fair['id']}", {"title": "Great fair", "duration": "2", "points_limit": "200"})
    assert r.status_code == 303 and _orders(client, gm, cid) == 2


def test_R5_5_after_battles_the_page_refuses_the_edit_in_place(client, make_client):
    gm, cid, fair, gm_browser = _world(client, make_client)
    to_phase(client, gm, cid, "battles")
    r = post(gm_browser, f"/campaigns/{cid}/events/{fair['id']}", {"title": "Fair", "duration": "1", "blockade": "on"})
    assert r.status_code == 409 and "Battles are announced" in r.text
    r = post(gm_browser, f"/campaigns/{cid}/events/{fair['id']}/end", {"confirm": "1"})
    assert r.status_code == 409 and "Battles are announced" in r.text
    assert _orders(client, gm, cid) == 2
    assert client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()[0]["blockade"] is False

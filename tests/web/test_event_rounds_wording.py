"""Issue 29 item 8: an event of one round reads "round 1", not "rounds 1–1" (English and Polish)."""

from tests.builders.campaigns import running_campaign
from tests.builders.pages import login
from tests.builders.rounds import event


def test_an_event_of_one_round_says_round_and_a_longer_one_rounds(client, make_client):
    gm, cid, _players, places = running_campaign(client)
    event(client, gm, cid, places[0]["id"], "Short raid", duration=1)
    event(client, gm, cid, places[1]["id"], "Long siege", duration=3)
    browser = make_client()
    login(browser, "gamemaster")
    page = browser.get(f"/campaigns/{cid}/events").text
    assert "round 1\n" in page or "round 1<" in page or "round 1 " in page
    assert "rounds 1–1" not in page and "rounds 1–3" in page
    assert client.patch("/api/v1/me", json={"locale": "pl"}, headers=gm).status_code == 200
    polish = browser.get(f"/campaigns/{cid}/events").text
    assert "runda 1" in polish and "rundy 1–3" in polish and "rundy 1–1" not in polish

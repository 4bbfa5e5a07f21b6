"""R12.9 the GM's audit page: the trail with who, when and what changed, filtered by action
and by who; Undo where it is safe (asked first, then PRG with a flash), and why not where
not; players are refused."""

from __future__ import annotations

from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.pages import browser, flash_of, post


def test_r12_9_r11_5_the_audit_page_lists_filters_and_undoes(client, make_client):
    gm, cid, players, places = running_campaign(client, 2, 4)
    user(client, "cogm")
    assert client.post(f"/api/v1/campaigns/{cid}/game-masters", json={"nickname": "cogm"}, headers=gm).status_code == 201
    r = client.patch(f"/api/v1/campaigns/{cid}/places/{places[3]['id']}", json={"name": "Old Mill"}, headers=gm)
    assert r.status_code == 200
    assert client.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": "orders"}, headers=gm).status_code == 200
    url = f"/campaigns/{cid}/audit"
    g = browser(make_client, "gamemaster")
    page = g.get(url).text
    assert "Audit trail" in page and "Place edited" in page and "Phase changed" in page
    assert "Place 3 → Old Mill" in page
    assert "a phase change moves the whole round on" in page
    only = g.get(url + "?action=place_edited").text
    assert "Place edited" in only and "Phase changed</strong>" not in only
    [entry] = [e for e in client.get(f"/api/v1/campaigns/{cid}/audit?action=place_edited", headers=gm).json()["items"]]
    r = post(g, f"/campaigns/{cid}/audit/{entry['id']}/undo", token_from=url)
    assert r.status_code == 200 and "Undo this change?" in r.text
    assert client.get(f"/api/v1/campaigns/{cid}/audit?action=place_edited", headers=gm).json()["items"][0]["undone"] is False
    r = post(g, f"/campaigns/{cid}/audit/{entry['id']}/undo", {"confirm": "1"}, token_from=url)
    assert r.status_code == 303
    assert flash_of(g.get(r.headers["location"]).text) == "Undone: Place edited."
    r = post(g, f"/campaigns/{cid}/audit/{entry['id']}/undo", {"confirm": "1"}, token_from=url)
    assert r.status_code == 409 and "This change was already undone." in r.text
    co = browser(make_client, "cogm")
    assert co.get(url).status_code == 200
    assert browser(make_client, "player0").get(url).status_code == 403
    assert "/audit" in g.get(f"/campaigns/{cid}/players").text

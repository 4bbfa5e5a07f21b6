"""Issue 17: a campaign page carries an ETag of what it shows; a reload of an unchanged page
is answered 304 without being drawn, and any change to the campaign (by anyone, through any
table), another user, another language or a waiting flash message gives the page again."""
from __future__ import annotations

from tests.helpers import buy, running_campaign, warband
from tests.web.helpers import login, post


def _browser(make_client, nickname: str):
    b = make_client()
    login(b, nickname)
    b.get("/")  # shows (and clears) the login's flash message
    return b


def _revalidate(browser, url: str, etag: str, **headers):
    return browser.get(url, headers={"If-None-Match": etag, **headers})


def test_an_unchanged_page_is_304_without_drawing_it(client, make_client, count_statements):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}"
    first = anna.get(url)
    etag = first.headers["etag"]
    assert first.status_code == 200 and etag.startswith('W/"') and first.headers["cache-control"] == "private, no-cache"
    with count_statements() as c:
        again = _revalidate(anna, url, etag)
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert c.count <= 2, c.statements  # the login lookup (with the counters) and nothing of the page
    assert again.headers["x-content-type-options"] == "nosniff"


def test_any_change_to_the_campaign_gives_the_page_again(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}/players"
    etag = anna.get(url).headers["etag"]
    # Another player buys a model: rows of company_model (placed through the company) and the ledger.
    buy(client, cid, players[1], "orcs.krusher", faction="orcs")
    fresh = _revalidate(anna, url, etag)
    assert fresh.status_code == 200 and fresh.headers["etag"] != etag
    etag = fresh.headers["etag"]
    # A warband's members alone (warband_member, placed through its warband).
    models = buy(client, cid, players[0], "orcs.krusher", "orcs.ax", "orcs.ax", faction="orcs")
    etag = anna.get(url).headers["etag"]
    band = warband(client, cid, players[0], models[:2])
    assert _revalidate(anna, url, etag).status_code == 200
    etag = anna.get(url).headers["etag"]
    r = client.patch(f"/api/v1/campaigns/{cid}/warbands/{band['id']}", json={"model_ids": [m["id"] for m in models]},
                     headers=players[0]["headers"])
    assert r.status_code == 200, r.text
    assert _revalidate(anna, url, etag).status_code == 200


def test_a_change_elsewhere_keeps_the_304(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}"
    etag = anna.get(url).headers["etag"]
    other = client.post("/api/v1/campaigns", json={"name": "Elsewhere"}, headers=gm)
    assert other.status_code == 201
    assert client.patch(f"/api/v1/campaigns/{other.json()['id']}", json={"story": "Far away"}, headers=gm).status_code == 200
    assert _revalidate(anna, url, etag).status_code == 304


def test_the_etag_belongs_to_one_viewer_language_and_form(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    anna, borys = _browser(make_client, "player0"), _browser(make_client, "player1")
    url = f"/campaigns/{cid}"
    etag = anna.get(url).headers["etag"]
    assert _revalidate(borys, url, etag).status_code == 200  # another user: their own page
    assert _revalidate(anna, url, etag, **{"HX-Request": "true"}).status_code == 200  # a partial is another answer
    r = post(anna, "/language", {"locale": "pl", "next": url}, token_from=url)
    assert r.status_code == 303
    anna.get(url)  # shows the change's flash message
    polish = anna.get(url)
    assert polish.status_code == 200 and polish.headers["etag"] != etag and 'lang="pl"' in polish.text


def test_a_waiting_flash_message_is_always_shown(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}/company"
    etag = anna.get(url).headers["etag"]
    anna.cookies.set("hideout_flash", "x")  # as a form's redirect leaves it
    assert _revalidate(anna, url, etag).status_code == 200


def test_pages_outside_a_campaign_and_the_api_carry_no_etag(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    assert "etag" not in anna.get("/").headers and "etag" not in anna.get("/account").headers
    assert "etag" not in client.get(f"/api/v1/campaigns/{cid}", headers=gm).headers
    assert "etag" not in make_client().get(f"/campaigns/{cid}").headers  # anonymous: the login

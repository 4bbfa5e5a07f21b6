"""Issue 17: a campaign page carries an ETag of what it shows; a reload of an unchanged page
is answered 304 without its body, and a change the viewer can see, another user, another
language or a waiting flash message gives the page again. Issue 27 item 7 (SPEC R11.2): the
ETag is a digest of the page as drawn for its viewer, so what others do out of their sight
(another player buying) keeps the 304."""

from __future__ import annotations

from app.core.page_cache import body_etag
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.pages import login, post


def _browser(make_client, nickname: str):
    b = make_client()
    login(b, nickname)
    b.get("/")  # shows (and clears) the login's flash message
    return b


def _revalidate(browser, url: str, etag: str, **headers):
    return browser.get(url, headers={"If-None-Match": etag, **headers})


def test_an_unchanged_page_is_304_without_its_body(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}"
    first = anna.get(url)
    etag = first.headers["etag"]
    assert first.status_code == 200 and etag.startswith('W/"') and first.headers["cache-control"] == "private, no-store"
    again = _revalidate(anna, url, etag)
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert again.headers["cache-control"] == "private, no-store" and "content-type" not in again.headers
    assert again.headers["x-content-type-options"] == "nosniff"
    assert _revalidate(anna, url, f'"nothing", {etag.removeprefix("W/")}').status_code == 304  # a list, a strong form
    assert _revalidate(anna, url, 'W/"nothing"').status_code == 200


def test_a_change_the_viewer_sees_gives_the_page_again_and_one_hidden_from_them_does_not(client, make_client):
    """R11.2: another player's purchase changes nothing anna may see, so her page is the same
    (an ETag of the campaign's change counters told her that Borys bought); her own does."""
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}/company"
    etag = anna.get(url).headers["etag"]
    buy(client, cid, players[1], "orcs.krusher", faction="orcs")
    assert _revalidate(anna, url, etag).status_code == 304
    models = buy(client, cid, players[0], "orcs.krusher", "orcs.ax", "orcs.ax", faction="orcs")
    fresh = _revalidate(anna, url, etag)
    assert fresh.status_code == 200 and fresh.headers["etag"] != etag
    band = warband(client, cid, players[0], models[:2])
    url = f"/campaigns/{cid}/warbands/{band['id']}/edit"
    etag = anna.get(url).headers["etag"]
    r = client.patch(
        f"/api/v1/campaigns/{cid}/warbands/{band['id']}",
        json={"model_ids": [m["id"] for m in models]},
        headers=players[0]["headers"],
    )
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
    partial = anna.get(url, headers={"HX-Request": "true"})  # an answer is known by its own bytes
    assert partial.headers["etag"] == body_etag(partial.content)
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

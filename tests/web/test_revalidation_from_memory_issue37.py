"""Issue 37 (an unchanged page's 304 at most 1.5× the bare route), SPEC R11.2: a campaign page's
revalidation is answered from memory, without the route, while its viewer's key stands
(app/core/revalidation.py); any change the viewer may see moves the key and draws the page
again; a change hidden from them leaves the key, and so the work of their revalidation, as it
was. What the memory answers is the 304 the page would have given, header for header."""

from __future__ import annotations

import pytest

from app.accounts import revalidation
from app.core.revalidation import Unchanged
from app.core.security import SESSION_COOKIE
from app.versions import audience
from tests.builders.battles import two_player_battle
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy
from tests.builders.pages import login, post

VARYING = {"x-request-id", "date"}


def _browser(make_client, nickname: str):
    b = make_client()
    login(b, nickname)
    b.get("/")  # shows (and clears) the login's flash message
    return b


def _headers(r) -> list:
    return sorted((k, v) for k, v in r.headers.multi_items() if k.lower() not in VARYING)


def _from_memory(browser, url: str, etag: str, count_statements, drawn, **headers):
    drawn.clear()
    with count_statements() as counted:
        r = browser.get(url, headers={"If-None-Match": etag, **headers})
    return r, counted.count, list(drawn)


def test_a_second_revalidation_is_answered_from_memory_with_the_same_304(client, make_client, count_statements, drawn):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    for page in ("", "/map", "/players", "/battles", "/chronicle", "/orders"):
        url = f"/campaigns/{cid}{page}"
        etag = anna.get(url).headers["etag"]
        kept, statements, templates = _from_memory(anna, url, etag, count_statements, drawn, **{"X-Request-ID": "phone-1"})
        assert kept.status_code == 304 and kept.content == b""
        assert kept.headers.get_list("x-request-id") == ["phone-1"]  # this request's id, not the drawing's
        assert (statements, templates) == (1, []), f"{url}: {statements} statements, {templates}"
        # A header no page reads, and not in the request's key: the page is drawn, to the same 304.
        drawn_304, _, templates = _from_memory(anna, url, etag, count_statements, drawn, **{"X-Other": "1"})
        assert drawn_304.status_code == 304 and templates, url
        assert _headers(kept) == _headers(drawn_304), url
        # Another ETag, another query, an htmx request: drawn.
        assert _from_memory(anna, url, 'W/"other"', count_statements, drawn)[0].status_code == 200
        assert _from_memory(anna, f"{url}?tab=x", etag, count_statements, drawn)[2]
        assert _from_memory(anna, url, etag, count_statements, drawn, **{"HX-Request": "true"})[2]


def test_a_change_the_viewer_may_see_draws_the_page_and_one_hidden_from_them_does_not(
    client, make_client, count_statements, drawn
):
    gm, cid, players, places = running_campaign(client, 2)
    anna, borys = _browser(make_client, "player0"), _browser(make_client, "player1")
    url = f"/campaigns/{cid}/company"
    for browser in (anna, borys):
        browser.etag = browser.get(url).headers["etag"]
    buy(client, cid, players[0], "orcs.krusher", faction="orcs")  # anna's: hidden from borys
    mine, _, templates = _from_memory(anna, url, anna.etag, count_statements, drawn)
    assert mine.status_code == 200 and templates and mine.headers["etag"] != anna.etag
    theirs, statements, templates = _from_memory(borys, url, borys.etag, count_statements, drawn)
    assert (theirs.status_code, statements, templates) == (304, 1, [])
    renamed = client.patch(f"/api/v1/campaigns/{cid}", json={"name": "Renamed"}, headers=gm)
    assert renamed.status_code == 200, renamed.text
    fresh, _, templates = _from_memory(borys, url, borys.etag, count_statements, drawn)
    assert fresh.status_code == 200 and "Renamed" in fresh.text and templates


def test_an_ended_session_has_no_key_and_its_old_cookie_is_not_answered_from_memory(app, client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}"
    etag = anna.get(url).headers["etag"]
    token = anna.cookies.get(SESSION_COOKIE)
    assert revalidation.viewer_key(app, token, cid) is not None
    assert post(anna, "/logout").status_code == 303
    assert revalidation.viewer_key(app, token, cid) is None
    anna.cookies.set(SESSION_COOKIE, token)  # a copy of the cookie, kept after the logout
    gone = anna.get(url, headers={"If-None-Match": etag}, follow_redirects=False)
    assert gone.status_code != 304 and not gone.headers.get("etag"), gone.status_code


def test_the_battle_page_with_its_clock_is_always_drawn(client, make_client, count_statements, drawn):
    gm, cid, players, battle_id = two_player_battle(client)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}/battles/{battle_id}"
    etag = anna.get(url).headers["etag"]
    for _ in range(2):
        assert _from_memory(anna, url, etag, count_statements, drawn)[2]


def test_the_suites_check_fails_a_change_that_moves_no_counter(client, make_client, monkeypatch):
    """The check behind every page the suite draws: with the campaign's changes moving no
    viewer's row, a renamed campaign drawn again under the same key fails the request."""
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}"
    anna.get(url)
    monkeypatch.setattr(audience, "_seats", lambda seen: set())
    assert client.patch(f"/api/v1/campaigns/{cid}", json={"name": "Renamed"}, headers=gm).status_code == 200
    with pytest.raises(Unchanged):
        anna.get(url)


def test_a_key_that_cannot_be_read_leaves_the_page_to_its_route(client, make_client, monkeypatch):
    """The database busy or gone while the key is read: the route answers, as without memory
    (its own error page if the database is still away), never a bare error from outside it."""
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    url = f"/campaigns/{cid}"
    etag = anna.get(url).headers["etag"]

    def unreadable(*_args):
        raise RuntimeError("the database is away")

    monkeypatch.setattr(revalidation, "token_digest", unreadable)
    r = anna.get(url, headers={"If-None-Match": etag})
    assert r.status_code == 304 and r.headers["x-request-id"]


def test_a_campaign_id_of_thousands_of_digits_is_an_ordinary_not_found(client, make_client):
    """Python refuses to read an integer of more than 4,300 digits: the memory reads at most ten."""
    running_campaign(client, 2)
    anna = _browser(make_client, "player0")
    r = anna.get("/campaigns/" + "9" * 5000, headers={"If-None-Match": 'W/"x"'})
    assert r.status_code == 404, r.status_code

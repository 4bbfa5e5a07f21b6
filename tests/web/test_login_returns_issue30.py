"""Issue 30 item 5: after an accidental logout (or a lapsed session) logging in returns to the
page you were on; the return address is a path of this site only."""

from __future__ import annotations

import re

from tests.builders.pages import csrf, login, post, register

NEXT = re.compile(r'<form method="post" action="/login".*?name="next" value="([^"]*)"', re.S)


def _campaign(client) -> int:
    r = post(client, "/campaigns/new", {"name": "Winter"}, token_from="/campaigns/new")
    return int(r.headers["location"].split("/")[2])


def test_issue30_logging_in_after_a_logout_returns_to_the_page(client):
    register(client, "anna")
    cid = _campaign(client)
    page = f"/campaigns/{cid}/players?sort=name"
    menu = client.get(page).text
    assert f'name="next" value="/campaigns/{cid}/players?sort=name"' in menu  # the logout form sends it
    r = post(client, "/logout", {"next": page}, token_from=page)
    assert r.status_code == 303 and r.headers["location"] == f"/login?next=/campaigns/{cid}/players%3Fsort%3Dname"
    assert client.get("/account", follow_redirects=False).status_code == 303  # logged out indeed
    form = client.get(r.headers["location"]).text
    assert "You are logged out." in form and NEXT.search(form).group(1) == page
    r = post(client, "/login", {"nickname": "anna", "password": "correct horse battery", "next": page}, token_from="/login")
    assert r.status_code == 303 and r.headers["location"] == page


def test_issue30_a_lapsed_session_keeps_the_page_and_its_query(client, make_client):
    register(client, "anna")
    cid = _campaign(client)
    stranger = make_client()
    r = stranger.get(f"/campaigns/{cid}/players?sort=name", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/login?next=/campaigns/{cid}/players%3Fsort%3Dname"
    # A form sent after the session lapsed returns to the page it was sent from, not to its POST address.
    token = csrf(stranger, "/login")
    r = stranger.post(
        f"/campaigns/{cid}/invitations",
        data={"csrf_token": token, "nickname": "x"},
        headers={"Referer": f"http://testserver/campaigns/{cid}/players"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == f"/login?next=/campaigns/{cid}/players"
    r = stranger.post(
        f"/campaigns/{cid}/invitations",
        data={"csrf_token": token, "nickname": "x"},
        headers={"Referer": "http://evil.example/campaigns/1/players"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/login"
    # The header's Log in link carries the page too.
    assert 'href="/login?next=/catalog"' in stranger.get("/catalog").text
    assert 'href="/login"' in stranger.get("/login").text


def test_issue30_only_same_site_paths_are_returned_to(client):
    """Another site, a scheme-relative address or a backslash trick falls back to the home
    page: logging out and in still works, and nobody is sent away from Hideout."""
    register(client, "anna")
    for evil in ("//evil.example/x", "https://evil.example/x", "/\\evil.example", "javascript:alert(1)"):
        r = post(client, "/logout", {"next": evil})
        assert r.status_code == 303 and r.headers["location"] == "/", evil
        assert client.get("/account", follow_redirects=False).status_code == 303
        assert NEXT.search(client.get(f"/login?next={evil}").text).group(1) == "/"
        r = post(client, "/login", {"nickname": "anna", "password": "correct horse battery", "next": evil}, token_from="/login")
        assert r.status_code == 303 and r.headers["location"] == "/", evil
        assert client.get("/account").status_code == 200

"""The suite's client (tests/one_hop_client.py) answers as Starlette's TestClient does: the
same status, headers and body, cookies and redirects, for pages, the API, a form, HEAD and
refusals. Only the way a request reaches the app differs."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient as StarletteClient

from tests.builders.campaigns import running_campaign
from tests.builders.pages import login
from tests.one_hop_client import OneHopClient, _OneHop

# What differs between any two requests of one session: when, which request, the one-time
# form keys and tokens drawn into a page (and so its length and ETag).
_PER_REQUEST = {"date", "x-request-id", "set-cookie", "etag", "content-length", "server-timing"}
_TOKENS = re.compile(rb"[0-9a-f]{16,}|[A-Za-z0-9_-]{32,}")


def _same(a, b) -> None:
    assert a.status_code == b.status_code, (a.request.url, a.status_code, b.status_code)
    assert _TOKENS.sub(b"~", a.content) == _TOKENS.sub(b"~", b.content), a.request.url
    strip = lambda r: sorted((k, v) for k, v in r.headers.multi_items() if k not in _PER_REQUEST)  # noqa: E731
    assert strip(a) == strip(b), a.request.url
    cookies = lambda r: [h.split("=", 1)[0] for h in r.headers.get_list("set-cookie")]  # noqa: E731
    assert cookies(a) == cookies(b), a.request.url


def test_issue31_the_one_hop_client_answers_as_starlettes_does(app):
    with OneHopClient(app, base_url="http://testserver") as fast, StarletteClient(app, base_url="http://testserver") as slow:
        assert isinstance(fast._transport, _OneHop)
        gm, cid, players, _ = running_campaign(fast)
        login(fast, "gamemaster")
        slow.cookies = fast.cookies  # one browser, two ways in
        slow.headers["accept-encoding"] = fast.headers["accept-encoding"]  # the suite's: answers as drawn
        packed = {"Accept-Encoding": "gzip"}
        _same(fast.get(f"/campaigns/{cid}", headers=packed), slow.get(f"/campaigns/{cid}", headers=packed))
        pages = ("/", f"/campaigns/{cid}", f"/campaigns/{cid}/map", f"/campaigns/{cid}/rules", "/nowhere", "/campaigns/999999")
        for path in pages:
            _same(fast.get(path), slow.get(path))
        _same(fast.get(f"/campaigns/{cid}", follow_redirects=False), slow.get(f"/campaigns/{cid}", follow_redirects=False))
        for path in (f"/api/v1/campaigns/{cid}", "/api/v1/campaigns/999999", "/api/v1/catalog/factions", "/api/v1/nowhere"):
            _same(fast.get(path, headers=gm), slow.get(path, headers=gm))
        _same(fast.head("/login"), slow.head("/login"))
        bad = {"nickname": "x", "password": "?"}
        _same(fast.post("/api/v1/auth/tokens", json=bad), slow.post("/api/v1/auth/tokens", json=bad))
        _same(fast.post("/api/v1/auth/tokens", content=b"{not json"), slow.post("/api/v1/auth/tokens", content=b"{not json"))
        # A page form posted without its CSRF token: refused the same way, with nothing changed.
        _same(fast.post("/logout", follow_redirects=False), slow.post("/logout", follow_redirects=False))
        assert fast.get("/api/v1/me", headers=players[0]["headers"]).status_code == 200


def test_issue31_the_one_hop_client_raises_what_the_app_raises():
    """A test sees the app's own exception, as with Starlette's client (raise_server_exceptions)."""
    broken = FastAPI()

    @broken.get("/boom")
    async def boom():
        raise RuntimeError("the app's own error")

    with OneHopClient(broken) as client, pytest.raises(RuntimeError, match="the app's own error"):
        client.get("/boom")

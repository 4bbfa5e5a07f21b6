"""Issue 17 (compression and caching): pages, JSON and static files above a small size go out
gzipped; static files under content-hashed URLs are cached for a year, any other static
request revalidates; the live stream is never compressed."""

from __future__ import annotations

import gzip
import re

from app.core.static import file_hash
from tests.api.live_helpers import listen, stream_server
from tests.builders.campaigns import running_campaign
from tests.builders.pages import login

GZIP = {"Accept-Encoding": "gzip"}


def test_pages_and_json_are_gzipped_when_the_client_accepts_it(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    browser = make_client()
    login(browser, "player0")
    page = browser.get(f"/campaigns/{cid}", headers=GZIP)
    assert page.status_code == 200 and page.headers["content-encoding"] == "gzip"
    assert "Vary" in page.headers and "accept-encoding" in page.headers["vary"].lower()
    api = client.get("/api/v1/openapi.json", headers=GZIP)
    assert api.headers.get("content-encoding") == "gzip" and api.json()
    raw = browser.get(f"/campaigns/{cid}", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in raw.headers and raw.text.startswith("<!doctype html>")
    # httpx decodes for us; the bytes on the wire are smaller.
    assert len(gzip.compress(raw.content)) < len(raw.content) / 2


def test_small_answers_are_not_compressed(client):
    r = client.get("/api/v1/me", headers=GZIP)
    assert r.status_code == 401 and "content-encoding" not in r.headers


def test_static_files_under_their_hash_are_immutable_and_others_revalidate(client):
    page = client.get("/login").text
    url = re.search(r'<script src="(/static/app\.js\?v=([0-9a-f]{12}))" defer>', page)
    assert url and url.group(2) == file_hash("app.js")
    hashed = client.get(url.group(1), headers=GZIP)
    assert hashed.status_code == 200 and hashed.headers["cache-control"] == "public, max-age=31536000, immutable"
    plain = client.get("/static/app.js")
    assert plain.headers["cache-control"] == "no-cache" and "etag" in plain.headers
    stale = client.get("/static/app.js?v=000000000000")
    assert stale.headers["cache-control"] == "no-cache"
    again = client.get("/static/app.js", headers={"If-None-Match": plain.headers["etag"]})
    assert again.status_code == 304
    css = client.get("/static/style.css", headers=GZIP)
    assert css.headers["content-encoding"] == "gzip"


def test_a_path_outside_static_has_no_hash_and_is_not_served(client):
    assert file_hash("../app/main.py") is None
    assert client.get("/static/../app/main.py").status_code == 404


def test_the_favicon(client):
    r = client.get("/favicon.ico", follow_redirects=False)
    assert r.status_code == 301 and r.headers["location"] == f"/static/favicon.svg?v={file_hash('favicon.svg')}"
    icon = client.get(r.headers["location"])
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert 'rel="icon"' in client.get("/login").text


def test_the_live_stream_is_never_compressed(client, listen):
    gm, cid, players, places = running_campaign(client, 2)
    s = listen(cid, {**gm, "Accept-Encoding": "gzip"})
    assert s.status == 200 and s.headers.get("content-encoding") is None

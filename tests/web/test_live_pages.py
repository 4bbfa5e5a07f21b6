"""R11.4 on the pages: every campaign page of a member follows the live stream (htmx's SSE
extension) after the newest event its viewer could see when it was drawn, and marks the parts an update may change; the pages
of anyone else open no stream."""

from __future__ import annotations

import re

from app.live.service import KINDS as LIVE_KINDS
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.pages import login

SSE = re.compile(r'data-sse-connect="/api/v1/campaigns/(\d+)/stream\?after=([0-9a-f]{16}|0)"')


def _page(make_client, nickname: str, path: str):
    browser = make_client()
    login(browser, nickname)
    return browser.get(path)


def test_r11_4_member_pages_connect_to_the_stream_and_mark_their_live_parts(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    pages = {
        "/campaigns/{cid}": "phase battles result settlement letter transfer guild alliance twilight order ransom",
        "/campaigns/{cid}/battles": "phase battles result",
        "/campaigns/{cid}/company": "phase transfer",
        "/campaigns/{cid}/chronicle": "phase battles result",
        "/campaigns/{cid}/players": "phase",
    }
    for path, kinds in pages.items():
        r = _page(make_client, "player0", path.format(cid=cid))
        assert r.status_code == 200, path
        found = SSE.search(r.text)
        assert found and int(found.group(1)) == cid, path
        assert 'data-sse-close="closed"' in r.text and 'data-hx-trigger="sse:phase, sse:battles, sse:result' in r.text
        # htmx's SSE extension hears only the event names listed: every kind the stream sends.
        trigger = re.search(r'data-hx-trigger="([^"]+)"', r.text).group(1)
        assert {t.strip() for t in trigger.split(",")} == {f"sse:{k}" for k in (*LIVE_KINDS, "reload", "closed")}
        assert '<div id="live-head" data-live="phase battles letter">' in r.text
        assert f'<div id="live-body" data-live="{kinds}">' in r.text, path
        for script in ("/static/vendor/htmx-ext-sse-2.2.4.min.js", "/static/live.js"):
            assert re.search(rf'<script src="{re.escape(script)}\?v=[0-9a-f]{{12}}" defer></script>', r.text), script
        assert '<div id="toasts" class="toasts" aria-live="polite"></div>' in r.text
    r = _page(make_client, "gamemaster", f"/campaigns/{cid}")
    assert SSE.search(r.text)


def test_r11_4_r11_2_pages_of_others_open_no_stream(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    user(client, "outsider")
    r = _page(make_client, "outsider", f"/campaigns/{cid}")
    assert r.status_code == 404 and "sse-connect" not in r.text
    home = _page(make_client, "player0", "/")
    assert "sse-connect" not in home.text  # outside a campaign there is nothing to follow
    assert "sse-connect" not in make_client().get("/login").text

"""R12.6 on the map page: after a round has ended, the page holds the rounds for its slider
and time-lapse (drawn again by app/static/map_history.js); before, it has no slider."""

from __future__ import annotations

import html
import json
import re

from tests.api.test_map_history_R12_6 import _ended_round
from tests.builders.pages import browser


def _timeline(page: str) -> dict | None:
    found = re.search(r'data-timeline="([^"]*)"', page)
    return json.loads(html.unescape(found.group(1))) if found else None


def test_r12_6_the_map_page_holds_round_1_for_its_slider(client, make_client):
    rnd = _ended_round(client)
    b = browser(make_client, "player1")
    page = b.get(f"/campaigns/{rnd.cid}/map").text
    data = _timeline(page)
    assert data is not None and data["current"] == 2 and 'id="map-round"' in page and "map_history" in page
    target = str(rnd.places[1]["id"])
    css, icon, owner = data["rounds"]["1"][target]
    assert icon == "⌂" and owner == "player1"  # player 1's hideout before player 0 took it
    assert "⌂" in data["rounds"]["1"][str(rnd.places[0]["id"])][1]


def test_r12_6_no_slider_before_a_round_has_ended(client, make_client):
    from tests.builders.campaigns import running_campaign

    _gm, cid, _players, _places = running_campaign(client, 2)
    page = browser(make_client, "player0").get(f"/campaigns/{cid}/map").text
    assert _timeline(page) is None and "map_history" not in page

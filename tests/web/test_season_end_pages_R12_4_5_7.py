"""R12.4, R12.5, R12.7 on pages: the Standings tab with the season book, the member's calendar
link and the GM's club screen links (post/redirect/get, revoking asks first); the club screen
without a login (map with owners, this round's battles and results, the chronicle); the
calendar feed parsed with icalendar; a finished campaign's pages offering no action."""

from __future__ import annotations

import re

import icalendar
import pytest

from tests.api.test_map_history_R12_6 import _ended_round
from tests.builders.pages import browser, csrf, flash_of
from tests.builders.settlements import play_round
from tests.web import vnu


def _post(b, path, data=None):
    return b.post(
        path,
        data={"csrf_token": csrf(b, path.rsplit("/", 1)[0] if "revoke" in path else "/"), **(data or {})},
        follow_redirects=False,
    )


def test_r12_4_the_standings_tab_and_the_season_book(client, make_client):
    rnd = _ended_round(client)
    b = browser(make_client, "player1")
    page = b.get(f"/campaigns/{rnd.cid}/standings").text
    rows = re.findall(r'<tr data-player="(\d+)"><th scope="row">([^<]+)</th><td>(\d+)</td><td>(\d+)</td>', page)
    assert [(name, places, hideouts) for _pid, name, places, hideouts in rows] == [("player0", "2", "2"), ("player1", "0", "0")]
    assert "/season-book" in page and "Make my calendar link" in page and "Club screen" not in page  # not the GM
    book = b.get(f"/campaigns/{rnd.cid}/season-book").text
    assert "Round 1" in book and "Round 2" in book and book.count('class="mapsvg"') == 2
    assert "won by player0" in book and "archive.css" in book
    # Round 1's map shows player 1's hideout where the current map shows player 0's.
    r1 = book.split('id="round-1"')[1].split('id="round-2"')[0]
    assert f'id="r1p{rnd.places[1]["id"]}"' in r1 and "o1" in r1.split(f'id="r1p{rnd.places[1]["id"]}"')[1][:90]


def test_r12_5_the_gm_makes_and_revokes_a_club_screen_link_on_the_page(client, make_client):
    rnd = play_round(client)  # round 1 in Settlement: the battle is decided
    gm = browser(make_client, "gamemaster")
    r = gm.post(
        f"/campaigns/{rnd.cid}/screen-links",
        data={"csrf_token": csrf(gm, f"/campaigns/{rnd.cid}/standings")},
        follow_redirects=False,
    )
    assert r.status_code == 303
    page = gm.get(r.headers["location"]).text
    said = flash_of(page)
    url = re.search(r"(http://[^ ]+/screen/[A-Za-z0-9_-]+)", said).group(1)
    tv = make_client()
    screen = tv.get("/" + url.split("/", 3)[3])
    assert screen.status_code == 200 and "club-screen" in screen.text
    assert 'class="mapsvg"' in screen.text and "orcs band (player0)" in screen.text and "won by player0" in screen.text
    assert 'data-hx-trigger="every 20s"' in screen.text and "Log in" not in screen.text
    link_id = re.search(r"/screen-links/(\d+)/revoke", page).group(1)
    path = f"/campaigns/{rnd.cid}/screen-links/{link_id}/revoke"
    asked = gm.post(path, data={"csrf_token": csrf(gm, f"/campaigns/{rnd.cid}/standings")}, follow_redirects=False)
    assert asked.status_code == 200 and "Revoke this club screen link?" in asked.text
    assert tv.get("/" + url.split("/", 3)[3]).status_code == 200  # only asked: nothing changed
    done = gm.post(path, data={"csrf_token": csrf(gm, f"/campaigns/{rnd.cid}/standings"), "confirm": "1"}, follow_redirects=False)
    assert done.status_code == 303
    assert tv.get("/" + url.split("/", 3)[3]).status_code == 404


def test_r12_7_the_calendar_feed_parses_with_its_phases_deadline_and_links(client, make_client):
    rnd = _ended_round(client)
    r = client.put(f"/api/v1/campaigns/{rnd.cid}/deadline", json={"ends_at": "2027-05-01T18:00:00Z"}, headers=rnd.gm)
    assert r.status_code in (200, 201), r.text
    made = client.post(f"/api/v1/campaigns/{rnd.cid}/calendar-link", headers=rnd.h(0))
    assert made.status_code == 201
    url = made.json()["url"]
    assert url.endswith(".ics") and "/calendar/" in url
    feed = make_client().get("/" + url.split("/", 3)[3])
    assert feed.status_code == 200 and feed.headers["content-type"].startswith("text/calendar")
    cal = icalendar.Calendar.from_ical(feed.content)
    events = [e for e in cal.walk("VEVENT")]
    summaries = [str(e["SUMMARY"]) for e in events]
    assert "Round 1: Preparation" in summaries and "Round 1: Twilight" in summaries and "Round 2: Preparation" in summaries
    assert "Deadline: Preparation of round 2 ends" in summaries
    assert all(str(e["URL"]).endswith(f"/campaigns/{rnd.cid}") for e in events)
    assert len({str(e["UID"]) for e in events}) == len(events)
    # A new link revokes the old one; another member's link is their own.
    again = client.post(f"/api/v1/campaigns/{rnd.cid}/calendar-link", headers=rnd.h(0)).json()["url"]
    assert make_client().get("/" + url.split("/", 3)[3]).status_code == 404
    assert make_client().get("/" + again.split("/", 3)[3]).status_code == 200
    assert make_client().get("/calendar/forged.ics").status_code == 404


def test_r12_4_a_finished_campaign_page_offers_no_action(client, make_client):
    rnd = _ended_round(client)
    assert client.post(f"/api/v1/campaigns/{rnd.cid}/status", json={"status": "finished"}, headers=rnd.gm).status_code == 200
    found = []
    for who in ("gamemaster", "player0"):
        b = browser(make_client, who)
        for path in (
            "",
            "/standings",
            "/map",
            "/events",
            "/battles",
            "/company",
            "/shop",
            "/warbands",
            "/players",
            "/orders",
            "/ledger",
            "/chronicle",
            "/twilight",
        ):
            page = b.get(f"/campaigns/{rnd.cid}{path}")
            if page.status_code != 200:
                continue
            body = page.text.split('<main id="main"', 1)[-1]
            actions = [a for a in re.findall(r'<form[^>]*method="post"[^>]*action="([^"]+)"', body) if "/campaigns/" in a]
            allowed = ("/copy", "/letters/")
            found += [(who, path, a) for a in actions if not any(x in a for x in allowed)]
    assert not found, sorted({(w, p) for w, p, _a in found})


@pytest.mark.load
@pytest.mark.markup
def test_r12_4_r12_5_r12_6_the_screen_the_book_and_the_map_slider_pass_the_nu_html_checker(client, make_client, tmp_path):
    """The planted worlds never end a round; here one has, so the slider and past maps are drawn."""
    try:
        vnu.vnu_jar()
    except vnu.CheckerMissing as exc:
        pytest.fail(str(exc))
    rnd = _ended_round(client)
    url = client.post(f"/api/v1/campaigns/{rnd.cid}/screen-links", headers=rnd.gm).json()["url"]
    b = browser(make_client, "player1")
    pages = {
        "screen": make_client().get("/" + url.split("/", 3)[3]),
        "book": b.get(f"/campaigns/{rnd.cid}/season-book"),
        "map": b.get(f"/campaigns/{rnd.cid}/map"),
        "standings": b.get(f"/campaigns/{rnd.cid}/standings"),
    }
    files = []
    for name, r in pages.items():
        assert r.status_code == 200, name
        path = tmp_path / f"{name}.html"
        path.write_text(r.text)
        files.append(path)
    assert 'id="map-round"' in pages["map"].text
    errors = [m for m in vnu.check(files) if m.get("type") == "error"]
    assert not errors, [(e.get("url", "").rsplit("/", 1)[-1], e.get("lastLine"), e.get("message")) for e in errors]

"""Issue 35 in Chromium: a round played over the API against the live server (player0 takes
player1's hideout), then the Standings tab and the season book at 390x844, the book printed
to PDF (R12.4: one document with pages), the map's round slider and time-lapse (R12.6) and
the club screen at 1920x1080 (R12.5). Screenshots: r12_4_standings, r12_4_season_book,
r12_6_map_round_1, r12_5_club_screen."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.builders.settlements import close_all, play_round
from tests.e2e.campaign_setup import login, no_horizontal_overflow, shot


def _season(live_server):
    with httpx.Client(base_url=live_server, timeout=30) as api:
        rnd = play_round(api, place=1)
        for place, (x, y) in zip(rnd.places, ((20, 30), (55, 60), (80, 25)), strict=True):  # apart, as a map has them
            assert (
                api.patch(f"/api/v1/campaigns/{rnd.cid}/places/{place['id']}", json={"x": x, "y": y}, headers=rnd.gm).status_code
                == 200
            )
        close_all(rnd)
        assert rnd.phase("twilight").status_code == 200
        assert api.post(f"/api/v1/campaigns/{rnd.cid}/end-round", json={"round": 1}, headers=rnd.gm).status_code == 200
        link = api.post(f"/api/v1/campaigns/{rnd.cid}/screen-links", headers=rnd.gm).json()
    return rnd.cid, rnd.places, link["url"]


def test_r12_4_r12_5_r12_6_standings_book_pdf_map_through_time_and_club_screen(live_server, new_page, screenshot, browser):
    cid, places, screen_url = _season(live_server)
    page = new_page("player1")
    login(page, "player1")
    page.goto(f"/campaigns/{cid}/standings")
    expect(page.locator("table.standings tbody tr").first).to_contain_text("player0")
    no_horizontal_overflow(page, "the standings")
    shot(screenshot, page, "r12_4_standings")

    page.get_by_role("link", name="The season book").click()
    expect(page.locator("#round-1")).to_be_visible()
    assert page.locator("svg.mapsvg").count() == 2
    no_horizontal_overflow(page, "the season book")
    shot(screenshot, page, "r12_4_season_book")
    page.emulate_media(media="print")
    expect(page.locator("nav.tabs")).to_be_hidden()
    pdf = page.pdf(format="A4", print_background=True)
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages") >= 2
    page.emulate_media(media="screen")

    # R12.6: the slider shows round 1, when player1 still held places[1]; Play runs the rounds.
    page.goto(f"/campaigns/{cid}/map")
    marker = page.locator(f"#p{places[1]['id']}")
    now = marker.get_attribute("class")
    page.locator("#map-round").fill("1")
    expect(page.locator("#map-round-label")).to_have_text("Round 1")
    then = marker.get_attribute("class")
    assert then != now and "o1" in then and "o0" in now
    shot(screenshot, page, "r12_6_map_round_1")
    page.locator("#map-play").click()
    expect(page.locator("#map-round-label")).to_have_text("Round 2 (now)", timeout=5000)
    assert marker.get_attribute("class") == now

    tv = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-GB")
    try:
        screen = tv.new_page()
        screen.goto(screen_url)
        expect(screen.locator("h1")).to_have_text("Winter of the Lost Crown")
        expect(screen.locator(".screen-side")).to_contain_text("Chronicle")
        sizes = screen.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        assert sizes[0] <= 1920 and sizes[1] <= 1080 + 40, sizes
        screenshot(screen, "r12_5_club_screen", full_page=False)
    finally:
        tv.close()

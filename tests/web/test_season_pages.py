"""The season on pages (issue 19): the GM's deadline form on the dashboard (post/redirect/get,
refusals in place that change nothing), the deadline line at the head of every campaign page
as a <time> the browser localizes (with the server's words in the reader's language until it
does), the dashboard's reminders and the GM's "why it waits", and the digest's opt-in on the
Account page."""

from __future__ import annotations

import html
import re
from datetime import UTC, timedelta

from app.core import formats
from app.season import scheduler
from tests.api.test_season_deadline_api import iso, put, soon, url
from tests.builders.battles import campaign_with_warbands
from tests.builders.campaigns import running_campaign
from tests.builders.pages import browser as _browser
from tests.builders.pages import flash_of, post, prg
from tests.builders.rounds import send, to_phase
from tests.builders.settlements import play_round

TIME = re.compile(r'<time datetime="([^"]+)" data-local="datetime" data-relative>([^<]*)</time>')


def _head(page: str) -> str:
    return page.split('id="live-head"', 1)[1].split('id="live-body"', 1)[0]


def test_issue19_the_gm_sets_the_deadline_on_the_dashboard_and_every_page_shows_it(client, make_client):
    gm, cid, players, _ = running_campaign(client)
    browser = _browser(make_client, "gamemaster")
    dashboard = browser.get(f"/campaigns/{cid}").text
    assert "Set a deadline for Preparation" in dashboard and "data-utc-form" in dashboard
    ends = soon(days=2)
    # The browser sends the GM's local time and, converted by static/app.js, the same moment in UTC.
    local = (ends + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    prg(
        browser,
        f"/campaigns/{cid}/deadline",
        {"ends_at": local, "ends_at_utc": ends.isoformat(), "auto_advance": "on"},
        says="The deadline is set; the round moves on by itself then.",
        token_from=f"/campaigns/{cid}",
    )
    assert client.get(url(cid), headers=gm).json()["ends_at"] == iso(ends)
    player = _browser(make_client, "player0")
    for path in ("", "/map", "/rules", "/chronicle", "/players"):
        head = _head(player.get(f"/campaigns/{cid}{path}").text)
        [(when, fallback)] = TIME.findall(head)
        assert when == iso(ends) and fallback == formats.when(ends, "en") + " UTC", path
        assert "Preparation ends:" in head and "then the round moves on by itself" in head
    # In the reader's language until the browser says it in its own.
    post(player, "/language", {"locale": "pl", "next": "/"})
    [(when, fallback)] = TIME.findall(_head(player.get(f"/campaigns/{cid}").text))
    assert fallback == formats.when(ends, "pl") + " UTC"
    # In the account's time zone once the reader sets one (issue 34).
    post(player, "/account/time-zone", {"time_zone": "Asia/Tokyo"}, token_from="/account")
    [(when, fallback)] = TIME.findall(_head(player.get(f"/campaigns/{cid}").text))
    assert when == iso(ends) and fallback == formats.when(ends, "pl", "Asia/Tokyo") + " Asia/Tokyo"
    # The GM's form shows the deadline (in UTC, which the browser turns into local time).
    form = browser.get(f"/campaigns/{cid}").text
    assert f'data-utc="{ends.strftime("%Y-%m-%dT%H:%M")}"' in form and "Lift the deadline" in form


def test_issue19_without_javascript_the_time_is_utc_and_clearing_lifts_it(client, make_client):
    gm, cid, players, _ = running_campaign(client)
    browser = _browser(make_client, "gamemaster")
    ends = soon(days=1).replace(second=0)
    prg(
        browser,
        f"/campaigns/{cid}/deadline",
        {"ends_at": ends.strftime("%Y-%m-%dT%H:%M")},
        says="The deadline is set.",
        token_from=f"/campaigns/{cid}",
    )
    assert client.get(url(cid), headers=gm).json() == {
        "round": 1,
        "phase": "preparation",
        "ends_at": iso(ends),
        "auto_advance": False,
        "waiting": None,
    }
    prg(browser, f"/campaigns/{cid}/deadline/clear", says="The deadline is lifted.", token_from=f"/campaigns/{cid}")
    assert client.get(url(cid), headers=gm).json()["ends_at"] is None
    assert "<time" not in _head(browser.get(f"/campaigns/{cid}").text)


def test_issue19_refused_deadline_forms_say_why_in_place_and_change_nothing(client, make_client):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(days=1)
    put(client, cid, gm, ends)
    before = client.get(url(cid), headers=gm).json()
    player = _browser(make_client, "player0")
    r = post(
        player, f"/campaigns/{cid}/deadline", {"ends_at": soon(days=3).strftime("%Y-%m-%dT%H:%M")}, token_from=f"/campaigns/{cid}"
    )
    assert r.status_code == 403 and "Only the game master can do that." in r.text
    r = post(player, f"/campaigns/{cid}/deadline/clear", token_from=f"/campaigns/{cid}")
    assert r.status_code == 403
    browser = _browser(make_client, "gamemaster")
    r = post(
        browser,
        f"/campaigns/{cid}/deadline",
        {"ends_at": soon(days=-1).strftime("%Y-%m-%dT%H:%M")},
        token_from=f"/campaigns/{cid}",
    )
    assert r.status_code == 422 and "The deadline must be in the future." in r.text
    r = post(browser, f"/campaigns/{cid}/deadline", {"ends_at": "next friday"}, token_from=f"/campaigns/{cid}")
    assert r.status_code == 422 and "Ends at" in html.unescape(r.text)
    r = post(browser, f"/campaigns/{cid}/deadline", {"ends_at": ""}, token_from=f"/campaigns/{cid}")
    assert r.status_code == 422
    assert client.get(url(cid), headers=gm).json() == before


def test_issue19_the_dashboard_reminds_a_player_of_orders_not_sent_and_tells_the_gm_who(client, make_client):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    to_phase(client, gm, cid, "orders")
    player = _browser(make_client, "player0")
    assert "you have not sent any warband yet" not in player.get(f"/campaigns/{cid}").text  # no deadline: no reminder
    ends = soon(days=1)
    put(client, cid, gm, ends)
    page = html.unescape(player.get(f"/campaigns/{cid}").text)
    assert f"Orders close at {formats.when(ends, 'en')} UTC and you have not sent any warband yet." in page
    gm_page = html.unescape(_browser(make_client, "gamemaster").get(f"/campaigns/{cid}").text)
    assert "No orders sent yet:</strong> player0, player1" in gm_page
    send(client, cid, players[0], place_id=places[-1]["id"])
    assert "you have not sent any warband yet" not in player.get(f"/campaigns/{cid}").text
    other = html.unescape(_browser(make_client, "player1").get(f"/campaigns/{cid}").text)
    assert "you have not sent any warband yet" in other and "No orders sent yet" not in other  # the GM's to know


def test_issue19_the_gm_sees_on_the_dashboard_why_the_round_waits(client, app, make_client):
    rnd = play_round(client)
    ends = soon(hours=1)
    put(client, rnd.cid, rnd.gm, ends, auto=True)
    scheduler.tick(app.state.engine, app.state.settings, app.state.catalog.get, now=ends)
    gm_page = html.unescape(_browser(make_client, "gamemaster").get(f"/campaigns/{rnd.cid}").text)
    assert "The deadline has passed, but the round cannot move on by itself yet:" in gm_page
    assert "player0 (orcs band, Place 2)" in gm_page
    player_page = _browser(make_client, "player1").get(f"/campaigns/{rnd.cid}").text
    assert "cannot move on by itself" not in player_page


def test_issue19_the_digest_opt_in_on_the_account_page(client, make_client):
    running_campaign(client)
    browser = _browser(make_client, "player0")
    page = browser.get("/account").text
    assert (
        "Daily digest" in page
        and 'name="enabled"' in page
        and "checked" not in page.split('id="digest"')[1].split("</section>")[0]
    )
    r = post(browser, "/account/digest", {"email": "not an address", "enabled": "on"}, token_from="/account")
    assert r.status_code == 422 and "Enter an e-mail address like name@example.org." in html.unescape(r.text)
    r = post(browser, "/account/digest", {"email": "", "enabled": "on"}, token_from="/account")
    assert r.status_code == 422 and "Enter your e-mail address to receive the daily digest." in r.text
    prg(
        browser,
        "/account/digest",
        {"email": " anna@example.org ", "enabled": "on"},
        says="anna@example.org is saved; it will be confirmed by a link once this server sends e-mail.",
        token_from="/account",
    )  # issue 28: double opt-in (tests/security/test_mail_and_webhooks.py)
    section = browser.get("/account").text.split('id="digest"')[1].split("</section>")[0]
    assert 'value="anna@example.org"' in section and "checked" in section
    prg(browser, "/account/digest", {"email": "anna@example.org"}, says="The daily digest is off.", token_from="/account")
    section = browser.get("/account").text.split('id="digest"')[1].split("</section>")[0]
    assert "checked" not in section and 'value="anna@example.org"' in section
    assert flash_of(browser.get("/account").text) is None

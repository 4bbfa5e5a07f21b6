"""Webhooks on the Rules tab (issue 19): the GM's section lists each hook with its last
delivery, adds one with a form that redirects with a flash message, refuses bad or private
addresses in place changing nothing, and removes one only after a confirm step. Players and
outsiders neither see nor use it."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest

from app.core.db import utcnow
from app.webhooks import sender
from tests.api.test_webhooks_api import SECRET, Receiver, listed
from tests.builders.accounts import user
from tests.builders.battles import campaign_with_warbands
from tests.builders.pages import flash_of, login, post, prg
from tests.builders.rounds import to_phase


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def _gm_browser(make_client):
    b = make_client()
    login(b, "gamemaster")
    b.get("/")  # shows (and clears) the login's flash message
    return b


def _rules(cid: int) -> str:
    return f"/campaigns/{cid}/rules"


def test_issue19_the_gm_adds_a_hook_from_the_rules_tab_and_sees_its_last_delivery(
    client, make_client, engine, app, receiver, monkeypatch
):
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", True)
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    browser = _gm_browser(make_client)
    page = browser.get(_rules(cid)).text
    assert 'id="webhooks"' in page and "No webhooks yet." in page and 'name="kinds" value="battles"' in page
    assert 'name="secret"' in page
    target = prg(
        browser,
        f"/campaigns/{cid}/webhooks",
        {"url": receiver.url, "secret": SECRET, "kinds": ["phase", "battles"]},
        says=f"Webhook added: the campaign's news goes to {receiver.url}.",
        token_from=_rules(cid),
    )
    assert target == f"{_rules(cid)}#webhooks"
    page = html.unescape(browser.get(_rules(cid)).text)
    assert receiver.url in page and "Phase changes, Battles announced" in page and "Nothing sent yet." in page
    assert SECRET not in page  # the secret is never shown again
    (hook,) = listed(client, gm, cid)
    assert hook["kinds"] == ["phase", "battles"]
    discord = "https://discord.com/api/webhooks/7/abc"
    prg(browser, f"/campaigns/{cid}/webhooks", {"url": discord, "secret": ""}, says="Webhook added", token_from=_rules(cid))
    assert [(h["url"], h["discord"], h["kinds"]) for h in listed(client, gm, cid)][1] == (discord, True, [])
    assert "All news" in browser.get(_rules(cid)).text

    client.delete(f"/api/v1/campaigns/{cid}/webhooks/{listed(client, gm, cid)[1]['id']}", headers=gm)
    to_phase(client, gm, cid, "orders")
    sender.deliver_due(engine, app.state.settings)
    page = html.unescape(browser.get(_rules(cid)).text)
    assert "Last delivery: accepted (HTTP 200)" in page


def test_issue19_a_hook_that_gave_up_shows_the_error_on_the_page(client, make_client, engine, app, receiver, monkeypatch):
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", True)
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    client.post(f"/api/v1/campaigns/{cid}/webhooks", json={"url": receiver.url, "secret": SECRET}, headers=gm)
    to_phase(client, gm, cid, "orders")
    receiver.always = 500
    moment = utcnow()
    for _ in range(app.state.settings.webhook_max_attempts):
        sender.deliver_due(engine, app.state.settings, now=moment)
        moment += timedelta(hours=1)
    page = html.unescape(_gm_browser(make_client).get(_rules(cid)).text)
    assert "Last delivery failed: HTTP 500" in page and "1 given up" in page


def test_issue19_refused_hooks_stay_in_place_and_change_nothing(client, make_client, app):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    browser = _gm_browser(make_client)
    url = f"/campaigns/{cid}/webhooks"
    r = post(browser, url, {"url": "http://127.0.0.1:9/x", "secret": SECRET}, token_from=_rules(cid))
    assert r.status_code == 422 and "127.0.0.1 is a private, local or reserved address" in html.unescape(r.text)
    assert 'id="webhooks"' in r.text and flash_of(r.text) is None
    r = post(browser, url, {"url": "ftp://example.com/x", "secret": SECRET}, token_from=_rules(cid))
    assert r.status_code == 422 and "starts with http:// or https://" in r.text
    r = post(browser, url, {"url": "", "secret": "short", "kinds": ["nope"]}, token_from=_rules(cid))
    assert r.status_code == 422 and "Address" in r.text and "Secret" in r.text and "News to send" in r.text
    r = post(browser, url, {}, token_from=_rules(cid))
    assert r.status_code == 422
    assert listed(client, gm, cid) == []


def test_issue19_removing_a_hook_asks_first_then_removes_it(client, make_client, app, receiver, monkeypatch):
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", True)
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    hook = client.post(f"/api/v1/campaigns/{cid}/webhooks", json={"url": receiver.url, "secret": SECRET}, headers=gm).json()
    browser = _gm_browser(make_client)
    page = browser.get(_rules(cid)).text
    assert f'action="/campaigns/{cid}/webhooks/{hook["id"]}/delete"' in page and "data-confirm=" in page
    url = f"/campaigns/{cid}/webhooks/{hook['id']}/delete"
    r = post(browser, url, token_from=_rules(cid))
    assert r.status_code == 200 and "Remove this webhook?" in r.text and 'name="confirm" value="1"' in r.text
    assert len(listed(client, gm, cid)) == 1
    prg(browser, url, {"confirm": "1"}, says=f"Webhook removed: {receiver.url} hears no more news.", token_from=_rules(cid))
    assert listed(client, gm, cid) == []
    r = post(browser, url, {"confirm": "1"}, token_from=_rules(cid))
    assert r.status_code == 404


def test_issue19_players_and_outsiders_neither_see_nor_use_the_section(client, make_client, app, receiver, monkeypatch):
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", True)
    gm, cid, players, _places = campaign_with_warbands(client, 2)
    hook = client.post(f"/api/v1/campaigns/{cid}/webhooks", json={"url": receiver.url, "secret": SECRET}, headers=gm).json()
    anna = make_client()
    login(anna, players[0]["nickname"])
    page = anna.get(_rules(cid)).text
    assert page and 'id="webhooks"' not in page and receiver.url not in page
    user(client, "outsider")
    stranger = make_client()
    login(stranger, "outsider")
    for browser, status in ((anna, 403), (stranger, 404)):
        for path, data in (
            (f"/campaigns/{cid}/webhooks", {"url": receiver.url, "secret": SECRET}),
            (f"/campaigns/{cid}/webhooks/{hook['id']}/delete", {"confirm": "1"}),
        ):
            r = post(browser, path, data)
            assert r.status_code == status, (path, r.status_code)
            assert receiver.url not in r.text
    assert len(listed(client, gm, cid)) == 1


def test_issue19_a_finished_campaign_offers_no_new_hook(client, make_client):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=gm).status_code == 200
    page = _gm_browser(make_client).get(_rules(cid)).text
    assert 'id="webhooks"' in page and f'action="/campaigns/{cid}/webhooks"' not in page

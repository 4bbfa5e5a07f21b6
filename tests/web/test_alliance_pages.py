"""Mission-alliance pages (R8.7-R8.9, R9.3): the alliances page and its four actions
(post/redirect/get, paid and one-way steps confirmed first), the dashboard panel, the map's
event sheet and the warband pages — and secrecy on every page until Battles (R8.8)."""

from __future__ import annotations

import re

import pytest

from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.pages import browser as _browser
from tests.builders.pages import post
from tests.builders.rounds import event, to_phase

FEE = 10  # the campaign's default mission-alliance fee
# Every element the pages render for an existing alliance carries data-alliance="<id>".
MARK = 'data-alliance="'


def _running(client, n: int = 3, **settings):
    """A running campaign in round 1 Preparation with `n` players, each with a hideout, and an
    event at the first player's place."""
    gm, cid, players, places = running_campaign(client, n, max_players=max(6, n), **settings)
    ev = event(client, gm, cid, places[0]["id"], title="Siege of Rookhold")
    return gm, cid, players, places, ev


def _ledger(client, cid, player) -> dict:
    r = client.get(f"/api/v1/campaigns/{cid}/ledger", headers=player["headers"])
    assert r.status_code == 200, r.text
    return r.json()


def _alliances(client, cid, player) -> list[dict]:
    r = client.get(f"/api/v1/campaigns/{cid}/alliances", headers=player["headers"])
    assert r.status_code == 200, r.text
    return r.json()


def _state(client, cid, players, alliances: bool = True) -> list:
    """Everything a refusal must leave unchanged: each player's gold, ledger and alliances."""
    return [
        (_ledger(client, cid, p)["balance"], _ledger(client, cid, p)["total"], _alliances(client, cid, p) if alliances else None)
        for p in players
    ]


def _flash(page: str) -> str:
    found = re.search(r'<div class="flash" id="flash">\s*<p role="status">(.*?)</p>', page, re.S)
    return found.group(1) if found else ""


def _make(browser, cid, ev, *invitees, confirm=True):
    data = {"event_id": str(ev["id"]), "invite": [str(p["player_id"]) for p in invitees]}
    if confirm:
        data["confirm"] = "1"
    return post(browser, f"/campaigns/{cid}/alliances", data, token_from=f"/campaigns/{cid}/alliances")


# --- making, accepting, declining, withdrawing ---------------------------------------------------


def test_r8_7_make_asks_first_then_the_initiator_pays_and_the_invitee_accepts_from_the_dashboard(client, make_client):
    gm, cid, (anna, borys, cyra), places, ev = _running(client)
    a, b = _browser(make_client, "player0"), _browser(make_client, "player1")
    form = a.get(f"/campaigns/{cid}/alliances?event={ev['id']}").text
    assert f'name="event_id" value="{ev["id"]}" checked' in form  # preselected from the map sheet's link
    assert f"You pay {FEE} gold now" in form
    # Without confirm=1: the confirm step, nothing paid, nothing made.
    before = _state(client, cid, [anna, borys])
    asked = _make(a, cid, ev, borys, confirm=False)
    assert asked.status_code == 200 and "Make a mission alliance for Siege of Rookhold?" in asked.text
    assert 'name="invite" value="%s"' % borys["player_id"] in asked.text and 'name="confirm" value="1"' in asked.text
    assert _state(client, cid, [anna, borys]) == before
    made = _make(a, cid, ev, borys)
    assert made.status_code == 303
    page = a.get(made.headers["location"]).text
    assert "Mission alliance for Siege of Rookhold made: player1 invited; you paid 10 gold." in _flash(page)
    ledger = _ledger(client, cid, anna)
    assert ledger["balance"] == 400 - FEE
    assert ledger["items"][0]["kind"] == "alliance_fee" and ledger["items"][0]["amount"] == -FEE
    (alliance,) = _alliances(client, cid, anna)
    aid = alliance["id"]
    assert alliance["member_player_ids"] == [anna["player_id"]] and alliance["invited_player_ids"] == [borys["player_id"]]
    # Borys: one-tap accept on the dashboard, which asks first (it pays).
    dashboard = b.get(f"/campaigns/{cid}").text
    assert (
        f'id="invite-alliance-{aid}"' in dashboard
        and "player0 invites you to a mission alliance for Siege of Rookhold." in dashboard
    )
    assert f'action="/campaigns/{cid}/alliances/{aid}/accept"' in dashboard and "Accept and pay 10 gold" in dashboard
    asked = post(b, f"/campaigns/{cid}/alliances/{aid}/accept", {"next": f"/campaigns/{cid}"})
    assert asked.status_code == 200 and "Join the mission alliance for Siege of Rookhold?" in asked.text
    assert _ledger(client, cid, borys)["balance"] == 400
    done = post(b, f"/campaigns/{cid}/alliances/{aid}/accept", {"next": f"/campaigns/{cid}", "confirm": "1"})
    assert done.status_code == 303 and done.headers["location"] == f"/campaigns/{cid}"
    assert "You joined the mission alliance for Siege of Rookhold and paid 10 gold." in _flash(b.get(f"/campaigns/{cid}").text)
    ledger = _ledger(client, cid, borys)
    assert ledger["balance"] == 400 - FEE and ledger["items"][0]["kind"] == "alliance_fee"
    assert _alliances(client, cid, anna)[0]["member_player_ids"] == [anna["player_id"], borys["player_id"]]
    # Both see it on their page; the invitation is gone from the dashboard.
    assert f'id="invite-alliance-{aid}"' not in b.get(f"/campaigns/{cid}").text
    mine = b.get(f"/campaigns/{cid}/alliances").text
    assert f'id="alliance-{aid}"' in mine and "Members: player0, player1" in mine
    # Accepting again is refused in place, nothing paid twice.
    again = post(b, f"/campaigns/{cid}/alliances/{aid}/accept", {"confirm": "1"})
    assert again.status_code == 409 and "You have no invitation waiting for this mission alliance." in again.text
    assert _ledger(client, cid, borys)["balance"] == 400 - FEE


def test_r8_7_decline_then_a_member_withdraws_then_the_initiator_ends_it(client, make_client):
    gm, cid, (anna, borys, cyra), places, ev = _running(client)
    a, b, c = (_browser(make_client, f"player{i}") for i in range(3))
    assert _make(a, cid, ev, borys, cyra).status_code == 303
    aid = _alliances(client, cid, anna)[0]["id"]
    # Cyra declines (asked first: it cannot be undone); free.
    asked = post(c, f"/campaigns/{cid}/alliances/{aid}/decline")
    assert asked.status_code == 200 and "You cannot accept it later." in asked.text
    assert _alliances(client, cid, anna)[0]["invited_player_ids"] == [borys["player_id"], cyra["player_id"]]
    done = post(c, f"/campaigns/{cid}/alliances/{aid}/decline", {"confirm": "1"})
    assert done.status_code == 303
    assert "You declined the invitation to the mission alliance for Siege of Rookhold." in _flash(
        c.get(done.headers["location"]).text
    )
    assert _ledger(client, cid, cyra)["balance"] == 400 and _alliances(client, cid, cyra) == []
    assert _alliances(client, cid, anna)[0]["invited_player_ids"] == [borys["player_id"]]
    # Borys joins, then withdraws: the fee is lost, the alliance goes on.
    assert post(b, f"/campaigns/{cid}/alliances/{aid}/accept", {"confirm": "1"}).status_code == 303
    page = b.get(f"/campaigns/{cid}/alliances").text
    assert f'action="/campaigns/{cid}/alliances/{aid}/withdraw"' in page and "The fee you paid is lost." in page
    asked = post(b, f"/campaigns/{cid}/alliances/{aid}/withdraw")
    assert asked.status_code == 200 and "Withdraw from the mission alliance for Siege of Rookhold?" in asked.text
    assert _alliances(client, cid, anna)[0]["member_player_ids"] == [anna["player_id"], borys["player_id"]]
    done = post(b, f"/campaigns/{cid}/alliances/{aid}/withdraw", {"confirm": "1"})
    assert done.status_code == 303
    assert "You withdrew from the mission alliance for Siege of Rookhold." in _flash(b.get(done.headers["location"]).text)
    assert _ledger(client, cid, borys)["balance"] == 400 - FEE  # lost, not returned
    (alliance,) = _alliances(client, cid, anna)
    assert alliance["status"] == "active" and alliance["member_player_ids"] == [anna["player_id"]]
    # The initiator withdraws: it ends for everybody (asked first, said so).
    page = a.get(f"/campaigns/{cid}/alliances").text
    assert "as its initiator you end the mission alliance for everybody" in page
    done = post(a, f"/campaigns/{cid}/alliances/{aid}/withdraw", {"confirm": "1"})
    assert done.status_code == 303
    assert "You withdrew: the mission alliance for Siege of Rookhold is over for everybody." in _flash(
        a.get(done.headers["location"]).text
    )
    assert _ledger(client, cid, anna)["balance"] == 400 - FEE
    assert _alliances(client, cid, anna) == []  # gone from the initiator's view (withdrawn)


def test_r8_7_free_alliance_needs_no_confirm_and_pays_nothing(client, make_client):
    gm, cid, (anna, borys, _c), places, ev = _running(client, alliance_fee=0)
    a, b = _browser(make_client, "player0"), _browser(make_client, "player1")
    assert "data-confirm" not in a.get(f"/campaigns/{cid}/alliances").text.split('id="make"')[1]
    assert _make(a, cid, ev, borys, confirm=False).status_code == 303
    aid = _alliances(client, cid, anna)[0]["id"]
    assert post(b, f"/campaigns/{cid}/alliances/{aid}/accept").status_code == 303
    assert _ledger(client, cid, anna)["balance"] == 400 and _ledger(client, cid, borys)["balance"] == 400


# --- refusals change nothing ------------------------------------------------------------------


def test_r8_7_form_problems_are_shown_in_place_and_change_nothing(client, make_client):
    gm, cid, (anna, borys, cyra), places, ev = _running(client)
    a = _browser(make_client, "player0")
    before = _state(client, cid, [anna, borys, cyra])
    nobody = post(a, f"/campaigns/{cid}/alliances", {"event_id": str(ev["id"]), "confirm": "1"})
    assert nobody.status_code == 422 and 'id="e-invite"' in nobody.text and "Invite at least one other player." in nobody.text
    assert f'name="event_id" value="{ev["id"]}" checked' in nobody.text  # kept as chosen
    no_event = post(a, f"/campaigns/{cid}/alliances", {"invite": str(borys["player_id"]), "confirm": "1"})
    assert no_event.status_code == 422 and 'id="e-event_id"' in no_event.text
    assert re.search(r'name="invite" value="%s"\s+checked' % borys["player_id"], no_event.text)  # kept as ticked
    self_ = _make(a, cid, ev, anna)
    assert self_.status_code == 422 and "You cannot invite yourself." in self_.text
    assert _state(client, cid, [anna, borys, cyra]) == before


def test_r8_9_guild_members_are_shown_disabled_and_cannot_make_or_be_invited(client, make_client):
    gm, cid, (anna, borys, cyra), places, ev = _running(client)
    r = client.post(f"/api/v1/campaigns/{cid}/guilds", json={"name": "Black Hand"}, headers=borys["headers"])
    assert r.status_code == 201, r.text
    a, b = _browser(make_client, "player0"), _browser(make_client, "player1")
    form = a.get(f"/campaigns/{cid}/alliances").text
    assert re.search(r'name="invite" value="%s"\s+disabled' % borys["player_id"], form)
    assert 'player1<span class="small muted"> · member of a guild</span>' in form
    before = _state(client, cid, [anna, borys, cyra])
    refused = _make(a, cid, ev, borys)
    assert refused.status_code == 409 and re.search(r'id="e-invite">Players to invite: player1 [^<]*guild', refused.text)
    assert _state(client, cid, [anna, borys, cyra]) == before
    # The guild member: no form, and posting anyway is refused.
    page = b.get(f"/campaigns/{cid}/alliances").text
    assert "Members of a guild do not make mission alliances." in page and f'action="/campaigns/{cid}/alliances"' not in page
    sheet = b.get(f"/campaigns/{cid}/map/places/{places[0]['id']}", headers={"hx-request": "true"}).text
    assert "Ally with…" not in sheet
    refused = _make(b, cid, ev, cyra)
    assert refused.status_code == 409 and re.search(r'role="alert">[^<]*player1 [^<]*guild', refused.text)
    assert _state(client, cid, [anna, borys, cyra]) == before


def test_r8_7_outside_preparation_and_orders_nothing_is_made_or_answered(client, make_client):
    gm, cid, (anna, borys, cyra), places, ev = _running(client)
    a, b = _browser(make_client, "player0"), _browser(make_client, "player1")
    assert _make(a, cid, ev, borys).status_code == 303
    aid = _alliances(client, cid, anna)[0]["id"]
    to_phase(client, gm, cid, "battles")
    before = _state(client, cid, [anna, borys, cyra])
    page = a.get(f"/campaigns/{cid}/alliances").text
    assert 'id="make"' not in page and "Mission alliances are made and joined only in Preparation and Orders." in page
    assert f"/alliances/{aid}/withdraw" not in page
    refused = _make(a, cid, ev, cyra)
    assert refused.status_code == 409 and "Mission alliances are made and joined only in Preparation and Orders." in refused.text
    for action in ("accept", "decline"):
        refused = post(b, f"/campaigns/{cid}/alliances/{aid}/{action}", {"confirm": "1"})
        assert refused.status_code == 409 and "only in Preparation and Orders" in refused.text
    assert post(a, f"/campaigns/{cid}/alliances/{aid}/withdraw", {"confirm": "1"}).status_code == 409
    assert f'id="invite-alliance-{aid}"' not in b.get(f"/campaigns/{cid}").text
    assert _state(client, cid, [anna, borys, cyra]) == before


def test_r8_7_the_gm_and_strangers_cannot_act(client, make_client):
    gm, cid, (anna, borys, cyra), places, ev = _running(client)
    a = _browser(make_client, "player0")
    assert _make(a, cid, ev, borys).status_code == 303
    aid = _alliances(client, cid, anna)[0]["id"]
    g = _browser(make_client, "gamemaster")
    c = _browser(make_client, "player2")
    user(client, "stranger")
    s = _browser(make_client, "stranger")
    before = _state(client, cid, [anna, borys, cyra])
    assert _make(g, cid, ev, borys).status_code == 403
    # Cyra is not in it: told it does not exist (R8.8), for each action.
    for action in ("accept", "decline", "withdraw"):
        assert post(c, f"/campaigns/{cid}/alliances/{aid}/{action}", {"confirm": "1"}).status_code == 404
        assert post(s, f"/campaigns/{cid}/alliances/{aid}/{action}", {"confirm": "1"}).status_code == 404
    assert _make(s, cid, ev, borys).status_code == 404
    assert _state(client, cid, [anna, borys, cyra]) == before


def test_r9_3_module_off_pages_and_posts_are_409_and_links_hidden(client, make_client):
    gm, cid, (anna, borys, cyra), places, ev = _running(client, modules={"mission_alliances": False})
    a = _browser(make_client, "player0")
    page = a.get(f"/campaigns/{cid}/alliances")
    assert page.status_code == 409 and "Mission alliances" in page.text and "module" in page.text.lower()
    before = _state(client, cid, [anna, borys], alliances=False)
    refused = _make(a, cid, ev, borys)
    assert refused.status_code == 409 and "module" in refused.text.lower()
    for action in ("accept", "decline", "withdraw"):
        assert post(a, f"/campaigns/{cid}/alliances/1/{action}", {"confirm": "1"}).status_code == 409
    assert _state(client, cid, [anna, borys], alliances=False) == before
    assert client.get(f"/api/v1/campaigns/{cid}/alliances", headers=anna["headers"]).status_code == 409
    for path in ("", f"/map/places/{places[0]['id']}", "/warbands", f"/map?place={places[0]['id']}"):
        html = a.get(f"/campaigns/{cid}{path}", headers={"hx-request": "true"} if "/map/places/" in path else {}).text
        assert f"/campaigns/{cid}/alliances" not in html, path
        assert "Ally with…" not in html, path


# --- the map sheet and the warband pages ------------------------------------------------------


def test_r8_7_map_sheet_and_warband_pages_show_own_alliance_and_ally_with(client, make_client):
    gm, cid, (anna, borys, cyra), places, ev = _running(client)
    a, b = _browser(make_client, "player0"), _browser(make_client, "player1")
    sheet_url = f"/campaigns/{cid}/map/places/{places[0]['id']}"
    hx = {"hx-request": "true"}
    sheet = a.get(sheet_url, headers=hx).text
    assert f'href="/campaigns/{cid}/alliances?event={ev["id"]}#make"' in sheet and "Ally with…" in sheet
    warbands = a.get(f"/campaigns/{cid}/warbands").text
    assert f'href="/campaigns/{cid}/alliances#make"' in warbands
    assert _make(a, cid, ev, borys).status_code == 303
    aid = _alliances(client, cid, anna)[0]["id"]
    sheet = a.get(sheet_url, headers=hx).text
    assert f'{MARK}{aid}"' in sheet and "Your mission alliance:" in sheet and "invited: player1" in sheet
    assert "Ally with…" not in sheet  # already allied at this event
    invited = b.get(sheet_url, headers=hx).text
    assert f'{MARK}{aid}"' in invited and "player0 invites you to a mission alliance for Siege of Rookhold." in invited
    assert f'href="/campaigns/{cid}/alliances#invite-alliance-{aid}"' in invited
    # The warband page (where orders are given) has the invitation with its one-tap answers.
    to_phase(client, gm, cid, "orders")
    warbands = b.get(f"/campaigns/{cid}/warbands").text
    assert f'id="invite-alliance-{aid}"' in warbands and f'action="/campaigns/{cid}/alliances/{aid}/accept"' in warbands
    assert f'name="next" value="/campaigns/{cid}/warbands"' in warbands
    done = post(b, f"/campaigns/{cid}/alliances/{aid}/accept", {"confirm": "1", "next": f"/campaigns/{cid}/warbands"})
    assert done.status_code == 303 and done.headers["location"] == f"/campaigns/{cid}/warbands"
    warbands = b.get(f"/campaigns/{cid}/warbands").text
    assert f'{MARK}{aid}"' in warbands and "player0, player1" in warbands
    # One alliance per event for a member; a `next` that leaves the site is not followed.
    assert _make(a, cid, ev, cyra).status_code == 409
    second = event(client, gm, cid, places[1]["id"], title="Night raid")
    assert _make(a, cid, second, cyra).status_code == 303
    aid2 = next(x["id"] for x in _alliances(client, cid, anna) if x["event_id"] == second["id"])
    c = _browser(make_client, "player2")
    done = post(c, f"/campaigns/{cid}/alliances/{aid2}/decline", {"confirm": "1", "next": "//evil.example/"})
    assert done.status_code == 303 and done.headers["location"] == f"/campaigns/{cid}/alliances"


# --- secrecy (R8.8) ---------------------------------------------------------------------------


def _pages(cid, places, ev, anna):
    return [
        f"/campaigns/{cid}",
        f"/campaigns/{cid}/map",
        f"/campaigns/{cid}/map?place={places[0]['id']}",
        f"/campaigns/{cid}/map/places/{places[0]['id']}",
        f"/campaigns/{cid}/orders",
        f"/campaigns/{cid}/warbands",
        f"/campaigns/{cid}/alliances",
        f"/campaigns/{cid}/alliances?event={ev['id']}",
        f"/campaigns/{cid}/chronicle",
        f"/campaigns/{cid}/events",
        f"/campaigns/{cid}/players",
        f"/campaigns/{cid}/ledger?player_id={anna['player_id']}",
    ]


def _secret_on(browser, pages, aid) -> list[str]:
    """The pages on which this browser learns of alliance `aid`."""
    leaks = []
    for path in pages:
        r = browser.get(path, headers={"hx-request": "true"} if "/map/places/" in path else {})
        text = r.text
        if (
            MARK in text
            or f"alliance-{aid}" in text
            or "invites you to a" in text
            or "Members: player0" in text
            or "Mission alliance fee" in text
            or f"-{FEE}<" in text
            or f"−{FEE}" in text
            or "A mission alliance for" in text
        ):
            leaks.append(path)
    return leaks


def test_r8_8_before_battles_nobody_but_members_sees_the_alliance_on_any_page(client, make_client):
    gm, cid, (anna, borys, cyra), places, ev = _running(client)
    a, b = _browser(make_client, "player0"), _browser(make_client, "player1")
    assert _make(a, cid, ev, borys).status_code == 303
    aid = _alliances(client, cid, anna)[0]["id"]
    assert post(b, f"/campaigns/{cid}/alliances/{aid}/accept", {"confirm": "1"}).status_code == 303
    g, c = _browser(make_client, "gamemaster"), _browser(make_client, "player2")
    user(client, "stranger")
    s = _browser(make_client, "stranger")
    for phase in ("preparation", "orders"):
        if phase == "orders":
            to_phase(client, gm, cid, "orders")
        pages = _pages(cid, places, ev, anna)
        assert _secret_on(g, pages, aid) == [], phase
        assert _secret_on(c, pages[:-1], aid) == [], phase
        for path in pages:
            assert s.get(path).status_code == 404, path
        # The members do see it (the markers are real).
        assert f'{MARK}{aid}"' in a.get(f"/campaigns/{cid}/alliances").text
        assert "Mission alliance fee" in a.get(f"/campaigns/{cid}/ledger").text
    anonymous = make_client()
    for path in _pages(cid, places, ev, anna):
        r = anonymous.get(path, follow_redirects=False)
        assert r.status_code in (303, 401) and MARK not in r.text, path
    # GM's ledger of anna: no fee entry, no -10.
    gm_ledger = g.get(f"/campaigns/{cid}/ledger?player_id={anna['player_id']}").text
    assert "Mission alliance fee" not in gm_ledger and "-10" not in gm_ledger
    # The GM's alliances page says nothing exists, the same as with no alliance at all.
    assert "No mission alliances to show." in g.get(f"/campaigns/{cid}/alliances").text
    # From Battles on it is public: on the alliances page and in the chronicle, for everybody.
    to_phase(client, gm, cid, "battles")
    for browser in (g, c):
        page = browser.get(f"/campaigns/{cid}/alliances").text
        assert f'id="alliance-{aid}"' in page and "Revealed mission alliances" in page
        assert "Initiator: player0" in page and "Members: player0, player1" in page
        assert (
            "A mission alliance for Siege of Rookhold: player0 with player1." in browser.get(f"/campaigns/{cid}/chronicle").text
        )
    assert s.get(f"/campaigns/{cid}/alliances").status_code == 404


def test_r8_8_a_lone_initiator_stays_secret_after_battles(client, make_client):
    """Nobody accepted: not an alliance, never revealed."""
    gm, cid, (anna, borys, cyra), places, ev = _running(client)
    a = _browser(make_client, "player0")
    assert _make(a, cid, ev, borys).status_code == 303
    aid = _alliances(client, cid, anna)[0]["id"]
    to_phase(client, gm, cid, "battles")
    g, c = _browser(make_client, "gamemaster"), _browser(make_client, "player2")
    assert _secret_on(g, [f"/campaigns/{cid}/alliances", f"/campaigns/{cid}/chronicle"], aid) == []
    assert _secret_on(c, [f"/campaigns/{cid}/alliances", f"/campaigns/{cid}/chronicle"], aid) == []


def test_r8_2_pact_words_on_the_alliances_pages(client, make_client):
    gm, cid, (anna, borys, _c), places, ev = _running(client, guild={"term": "alliance"})
    a, b = _browser(make_client, "player0"), _browser(make_client, "player1")
    page = a.get(f"/campaigns/{cid}/alliances").text
    assert "Pacts · round 1" in page and "Make a pact" in page and "mission alliance" not in page.lower()
    made = _make(a, cid, ev, borys)
    assert "Pact for Siege of Rookhold made" in _flash(a.get(made.headers["location"]).text)
    assert "player0 invites you to a pact for Siege of Rookhold." in b.get(f"/campaigns/{cid}").text
    assert post(b, "/language", {"locale": "pl"}).status_code == 303
    page = b.get(f"/campaigns/{cid}/alliances").text
    assert "Pakty" in page and "sojusz na misję" not in page


# --- statements (no N+1) ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/alliances", "", "/warbands"])
def test_r8_7_alliances_page_runs_the_same_statements_with_more_players(client, make_client, count_statements, path):
    counts = []
    for size in (3, 12):
        client.cookies.clear()
        gm, cid, players, places, ev = _running_named(client, size)
        others = players[1:]
        a = _browser(make_client, players[0]["nickname"])
        assert _make(a, cid, ev, *others).status_code == 303
        aid = _alliances(client, cid, players[0])[0]["id"]
        for p in others[: len(others) // 2]:
            assert client.post(f"/api/v1/campaigns/{cid}/alliances/{aid}/accept", headers=p["headers"]).status_code == 200
        second = event(client, gm, cid, places[1]["id"], title="Night raid")
        r = client.post(
            f"/api/v1/campaigns/{cid}/alliances",
            json={"event_id": second["id"], "invite_player_ids": [players[0]["player_id"]]},
            headers=players[-1]["headers"],
        )
        assert r.status_code == 201, r.text
        with count_statements() as counter:
            r = a.get(f"/campaigns/{cid}{path}")
        assert r.status_code == 200 and 'data-alliance="' in r.text
        counts.append(counter.count)
    assert counts[0] == counts[1] and counts[0] <= 22, counts


_RUN = [0]


def _running_named(client, n):
    """Like _running, with nicknames of its own so that two campaigns live in one database."""
    _RUN[0] += 1
    tag = f"r{_RUN[0]}"
    names = [f"{tag}p{i}" for i in range(n)]
    gm, cid, players, places = running_campaign(client, n, gm_name=f"gm{tag}", names=names, max_players=max(6, n))
    ev = event(client, gm, cid, places[0]["id"], title="Siege of Rookhold")
    return gm, cid, players, places, ev

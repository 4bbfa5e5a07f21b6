"""The Players page's parts for people who come and go (issue 36): the game masters' section
(R12.8: add, remove asked first) and away rounds (R12.11: the player's own form, the GM's for
them, the badge everyone sees). The seat's forms are on the seat's own page, linked from the
players page for whoever may use them. Every form answers post/redirect/get with a flash; a
refusal shows the page again with its reason and changes nothing."""

from __future__ import annotations

import re

from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Player
from app.people.models import Away, GameMaster
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.pages import browser, flash_of, post


def _gms(engine):
    with Session(engine) as s:
        return [g.user_id for g in s.exec(select(GameMaster)).all()]


def _away(engine):
    with Session(engine) as s:
        return [(a.player_id, a.from_round, a.to_round) for a in s.exec(select(Away)).all()]


def _done(b, r, says: str) -> str:
    assert r.status_code == 303, r.text[:300]
    page = b.get(r.headers["location"]).text
    assert flash_of(page) == says
    return page


def test_r12_8_r11_5_the_gm_adds_and_removes_a_game_master_on_the_players_page(client, make_client, engine):
    gm, cid, players, _ = running_campaign(client, 2)
    user(client, "cogm")
    g = browser(make_client, "gamemaster")
    url = f"/campaigns/{cid}/players"
    page = g.get(url).text
    assert 'id="game-masters"' in page and "Add a game master" in page
    # A player is refused: the page again with the reason by the field; nothing changes.
    r = post(g, f"/campaigns/{cid}/game-masters", {"nickname": "player0"}, token_from=url)
    assert r.status_code == 409 and "a game master cannot be a player" in r.text
    assert _gms(engine) == []
    page = _done(g, post(g, f"/campaigns/{cid}/game-masters", {"nickname": "cogm"}, token_from=url), "cogm is now a game master.")
    [co_id] = _gms(engine)
    assert f"/game-masters/{co_id}/remove" in page
    # The co-GM sees the section too, and the GM's controls.
    co = browser(make_client, "cogm")
    assert 'id="game-masters"' in co.get(url).text
    assert f'href="/campaigns/{cid}"' in co.get("/").text  # among the co-GM's campaigns
    # A player does not see the section.
    p0 = browser(make_client, "player0")
    assert 'id="game-masters"' not in p0.get(url).text
    # Removing asks first; the question changes nothing.
    r = post(g, f"/campaigns/{cid}/game-masters/{co_id}/remove", token_from=url)
    assert r.status_code == 200 and "Remove cogm as game master?" in r.text
    assert _gms(engine) == [co_id]
    r = post(g, f"/campaigns/{cid}/game-masters/{co_id}/remove", {"confirm": "1"}, token_from=url)
    _done(g, r, "cogm is no longer a game master.")
    assert _gms(engine) == []
    assert co.get(url).status_code == 404


def test_r12_11_r11_5_a_player_marks_away_and_everyone_sees_the_badge(client, make_client, engine):
    gm, cid, players, _ = running_campaign(client, 2)
    url = f"/campaigns/{cid}/players"
    p0, p1 = browser(make_client, "player0"), browser(make_client, "player1")
    pid0 = players[0]["player_id"]
    seat = f"/campaigns/{cid}/players/{pid0}"
    assert f'<a href="{seat}">I will be away</a>' in p0.get(url).text
    assert f"/players/{pid0}/away" in p0.get(seat).text
    # Another player sees the seat (its hideouts, a letter to write) but neither its link nor its form.
    assert p1.get(url).text.count(f'href="{seat}"') == 1  # its nickname, no way to its forms
    other = p1.get(seat)
    assert other.status_code == 200 and "player0" in other.text and f"/players/{pid0}/away" not in other.text
    # Its form is not on their page, so a refusal of what they post anyway is said above the page.
    r = post(p1, f"/campaigns/{cid}/players/{pid0}/away", {"from_round": "x", "to_round": "1"}, token_from=seat)
    assert r.status_code == 422 and _away(engine) == []
    assert re.search(r'class="alert error" role="alert">[^<]+<', r.text)
    r = post(p0, f"/campaigns/{cid}/players/{pid0}/away", {"from_round": "2", "to_round": "1"}, token_from=seat)
    assert r.status_code == 422 and _away(engine) == []
    # The seat's page again: its reason by the form, the rounds as typed (not the saved ones).
    assert re.search(r'class="field-error" role="alert">[^<]+<', r.text) and f"/players/{pid0}/away" in r.text
    assert re.search(rf'id="away-from-{pid0}"[^>]* value="2"', r.text) and re.search(
        rf'id="away-to-{pid0}"[^>]* value="1"', r.text
    )
    r = post(p0, f"/campaigns/{cid}/players/{pid0}/away", {"from_round": "1", "to_round": "2"}, token_from=url)
    _done(p0, r, "player0: away from round 1 to round 2.")
    assert _away(engine) == [(pid0, 1, 2)]
    for b in (p1, browser(make_client, "gamemaster")):
        assert re.search(r'class="badge accent">away rounds 1–2<', b.get(url).text)
    # Another player may not clear it; the GM may.
    r = post(p1, f"/campaigns/{cid}/players/{pid0}/away/clear", token_from=url)
    assert r.status_code == 403 and _away(engine) == [(pid0, 1, 2)]
    g = browser(make_client, "gamemaster")
    _done(g, post(g, f"/campaigns/{cid}/players/{pid0}/away/clear", token_from=url), "player0: no longer away.")
    assert _away(engine) == []
    # The GM marks another seat away for one round: the flash names whose, and the one round.
    pid1 = players[1]["player_id"]
    r = post(g, f"/campaigns/{cid}/players/{pid1}/away", {"from_round": "1", "to_round": "1"}, token_from=url)
    _done(g, r, "player1: away in round 1.")
    assert _away(engine) == [(pid1, 1, 1)]


def test_r12_12_r11_5_a_late_joiner_claims_a_place_on_the_dashboard(client, make_client):
    gm, cid, players, places = running_campaign(client, 2, 4)
    dora = user(client, "dora")
    g = browser(make_client, "gamemaster")
    page = g.get(f"/campaigns/{cid}/players").text
    assert "A new player joins now, during Preparation" in page
    _done(
        g,
        post(g, f"/campaigns/{cid}/invitations", {"nickname": "dora"}, token_from=f"/campaigns/{cid}/players"),
        "dora is invited.",
    )
    assert client.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=dora).status_code == 200
    d = browser(make_client, "dora")
    page = d.get(f"/campaigns/{cid}").text
    assert f'name="place_id" value="{places[2]["id"]}"' in page
    r = post(d, f"/campaigns/{cid}/hideouts", {"place_id": str(places[2]["id"])}, token_from=f"/campaigns/{cid}")
    _done(d, r, "Your hideout is at Place 2.")


def test_r12_10_r11_5_the_gm_hands_a_seat_over_asked_first(client, make_client, engine):
    gm, cid, players, _ = running_campaign(client, 2)
    user(client, "hana")
    url = f"/campaigns/{cid}/players"
    g = browser(make_client, "gamemaster")
    pid0 = players[0]["player_id"]
    seat = f"/campaigns/{cid}/players/{pid0}"
    assert f'<a href="{seat}">Away rounds and hand-over</a>' in g.get(url).text
    assert f"/players/{pid0}/handover" in g.get(seat).text
    assert f"/players/{pid0}/handover" not in browser(make_client, "player1").get(seat).text
    assert f"/players/{pid0}/handover" not in browser(make_client, "player0").get(seat).text  # nor the seat's own player
    r = post(g, f"/campaigns/{cid}/players/{pid0}/handover", {"nickname": ""}, token_from=seat)
    assert r.status_code == 422 and re.search(r'class="field-error" role="alert">[^<]+<', r.text)  # by its form
    assert f"/players/{pid0}/handover" in r.text
    r = post(g, f"/campaigns/{cid}/players/{pid0}/handover", {"nickname": "hana"}, token_from=url)
    assert r.status_code == 200 and "Hand player0&#39;s seat to hana?" in r.text
    assert re.search(rf'<a [^>]*href="{seat}"[^>]*>', r.text)  # its Cancel goes back to the seat
    with Session(engine) as s:
        assert s.get(Player, pid0).user_id != s.exec(select(User.id).where(User.nickname == "hana")).one()
    r = post(g, f"/campaigns/{cid}/players/{pid0}/handover", {"nickname": "hana", "confirm": "1"}, token_from=url)
    _done(g, r, "hana now holds player0's seat.")
    r = post(g, f"/campaigns/{cid}/players/{pid0}/handover", {"nickname": "player1"}, token_from=url)
    assert r.status_code == 409 and "player1 is already in this campaign." in r.text


def test_r12_10_r12_11_a_seat_page_is_the_campaigns_members_only(client, make_client):
    """A seat's page is there for the campaign's members, for a seat of this campaign only:
    an outsider, or a seat of another campaign, is a 404 (R11.2: not a 403 that says it exists)."""
    gm, cid, players, _ = running_campaign(client, 2)
    _, _, other_players, _ = running_campaign(client, 2, names=("zora", "zyg"), gm_name="othergm")
    pid0 = players[0]["player_id"]
    user(client, "stranger")
    assert browser(make_client, "stranger").get(f"/campaigns/{cid}/players/{pid0}").status_code == 404
    g = browser(make_client, "gamemaster")
    assert g.get(f"/campaigns/{cid}/players/{other_players[0]['player_id']}").status_code == 404
    assert g.get(f"/campaigns/{cid}/players/{pid0}").status_code == 200

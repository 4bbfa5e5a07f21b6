"""Issue 29 item 7, R9.8 (places, owners and hideouts are public): the send page says who holds
each place — you, a player, or nobody — and whose hideout it is, and lists your hideouts."""

import re

from sqlmodel import Session

from app.maps.models import Place
from app.maps.rules import holding
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.pages import login
from tests.builders.rounds import event, to_phase


def _row(page: str, label: str) -> str:
    """The send page's radio row of one place (its label up to the end of the row)."""
    match = re.search(re.escape(label) + r"(.*?)</label>", page, re.S)
    assert match, label
    return match.group(1)


def test_R9_8_holding_is_said_to_each_player_from_their_side():
    assert holding(None, None, 1) == ("free", None)
    assert holding(1, 1, 1) == ("mine", "mine")
    assert holding(2, None, 1) == ("player", None)
    assert holding(None, 2, 1) == ("free", "player")


def test_R9_8_the_send_page_shows_owners_hideouts_and_free_places(client, make_client, engine):
    gm, cid, players, places = running_campaign(client, n_players=2)
    anna = players[0]
    w = warband(client, cid, anna, buy(client, cid, anna, "orcs.krusher", "orcs.ax", faction="orcs"))
    extra = client.post(f"/api/v1/campaigns/{cid}/places", json={"name": "Quarry", "income": 1}, headers=gm).json()
    market = client.post(f"/api/v1/campaigns/{cid}/places", json={"name": "Market", "income": 1}, headers=gm).json()
    with Session(engine) as s:  # the Quarry is anna's, the Market player1's, neither a hideout
        for pid, owner in ((extra["id"], anna["player_id"]), (market["id"], players[1]["player_id"])):
            place = s.get(Place, pid)
            place.owner_player_id = owner
            s.add(place)
        s.commit()
    event(client, gm, cid, market["id"], "Brawl at the Market")
    to_phase(client, gm, cid, "orders")
    browser = make_client()
    login(browser, "player0")
    page = browser.get(f"/campaigns/{cid}/warbands/{w['id']}/send").text
    assert "Your hideout: Place 0" in page
    assert "your hideout" in _row(page, ">Place 0<") and "hideout of player1" in _row(page, ">Place 1<")
    assert "free" in _row(page, ">Place 2<") and "hideout" not in _row(page, ">Place 2<")
    assert "yours" in _row(page, ">Quarry<")
    assert "held by player1" in _row(page, "Brawl at the Market")
    assert client.patch("/api/v1/me", json={"locale": "pl"}, headers=anna["headers"]).status_code == 200
    polish = browser.get(f"/campaigns/{cid}/warbands/{w['id']}/send").text
    assert "Twoja kryjówka: Place 0" in polish and "kryjówka: player1" in polish and "wolne" in polish

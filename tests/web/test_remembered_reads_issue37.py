"""Issue 37 (every page at most 3× the bare route), SPEC R11.2: the reads a viewer's campaign
pages share (the roster and its places, the round's battles, the orders page's, the
chronicle's) are remembered while nothing that viewer may see has changed
(app/versions/remembered.py). A change the viewer may see is read anew and shown; a change
hidden from them leaves their reads, and so their pages' work, as it was; a request that wrote
reads anew; and the suite's check fails where a change moved no counter."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlmodel import select

from app.accounts.models import User
from app.core.db import unit_of_work
from app.maps import reading
from app.versions import remembered
from app.visibility import viewer_for
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy
from tests.builders.pages import login

PAGES = ("", "/players", "/battles", "/orders", "/chronicle")


@pytest.fixture
def remembering():
    """The memory as a server keeps it: the suite's check (a fresh read on every hit) off."""
    remembered.memory.check = False
    yield remembered.memory
    remembered.memory.check = True


def _browser(make_client, nickname: str, cid: int):
    """Logged in, and past a first campaign page: a page's head then comes with its login
    (app/core/page_head.py), and only a read whose counters came so is kept."""
    b = make_client()
    login(b, nickname)
    b.get("/")  # shows (and clears) the login's flash message
    assert b.get(f"/campaigns/{cid}/map").status_code == 200
    return b


def _statements(browser, url: str, count_statements) -> tuple[int, str]:
    with count_statements() as counted:
        r = browser.get(url)
    assert r.status_code == 200, (url, r.status_code)
    return counted.count, r.text


def test_a_page_drawn_again_reads_less_and_shows_the_same(client, make_client, count_statements, remembering):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0", cid)
    for page in PAGES:
        url = f"/campaigns/{cid}{page}"
        remembering.forget()  # pages share reads (the dashboard's roster is the players list's)
        first, drawn = _statements(anna, url, count_statements)
        again, drawn_again = _statements(anna, url, count_statements)
        assert again < first, f"{url}: {again} statements drawn again, {first} the first time"
        assert drawn_again == drawn, url


def test_a_change_the_viewer_may_see_is_read_and_one_hidden_from_them_is_not(client, make_client, count_statements, remembering):
    gm, cid, players, places = running_campaign(client, 2)
    anna, borys = _browser(make_client, "player0", cid), _browser(make_client, "player1", cid)
    url = f"/campaigns/{cid}/orders"  # kept for each viewer: what a player sees of orders is theirs
    remembering.forget()
    for browser in (anna, borys):
        browser.get(url)  # kept
        browser.remembered, _ = _statements(browser, url, count_statements)  # answered from memory
    buy(client, cid, players[0], "orcs.krusher", faction="orcs")  # anna's gold: hidden from borys
    assert _statements(borys, url, count_statements)[0] == borys.remembered  # R11.2: the same work
    assert _statements(anna, url, count_statements)[0] > anna.remembered  # her own seat moved
    renamed = client.patch(f"/api/v1/campaigns/{cid}/places/{places[0]['id']}", json={"name": "Renamed Keep"}, headers=gm)
    assert renamed.status_code == 200, renamed.text
    assert "Renamed Keep" in _statements(borys, f"/campaigns/{cid}", count_statements)[1]


def test_a_request_that_wrote_reads_anew(app, client, make_client, remembering):
    gm, cid, players, places = running_campaign(client, 2)
    _browser(make_client, "player0", cid).get(f"/campaigns/{cid}/players")  # kept
    # Changed behind every counter, so that only a read made anew can show it.
    with app.state.engine.begin() as connection:
        connection.execute(text("UPDATE place SET name = 'Quietly Renamed' WHERE id = :id"), {"id": places[0]["id"]})
    assert "Quietly Renamed" not in _roster_read(app, cid)  # remembered: nothing counted moved
    with unit_of_work(app.state.engine, write=True) as session:
        viewer = viewer_for(session, session.exec(select(User).where(User.nickname == "player0")).one(), cid)
        assert "Quietly Renamed" in {p.name for p in reading.roster_and_places_seen(session, viewer)[1]}


def _roster_read(app, cid: int) -> set[str]:
    with unit_of_work(app.state.engine, write=False) as session:
        viewer = viewer_for(session, session.exec(select(User).where(User.nickname == "player0")).one(), cid)
        return {p.name for p in reading.roster_and_places_seen(session, viewer)[1]}


def test_the_suites_check_fails_where_a_change_moved_no_counter(app, client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    anna = _browser(make_client, "player0", cid)
    assert anna.get(f"/campaigns/{cid}/players").status_code == 200  # kept
    assert "Place 0" in _roster_read(app, cid)
    with app.state.engine.begin() as connection:  # behind every counter, as a forgotten listener would be
        connection.execute(text("UPDATE place SET name = 'Quietly Renamed' WHERE id = :id"), {"id": places[0]["id"]})
    with pytest.raises(remembered.Stale):
        _roster_read(app, cid)
    # A page asking for it fails as loudly: the suite's page tests see a 500, not a stale page.
    assert anna.get(f"/campaigns/{cid}/players").status_code == 500


def test_a_read_every_member_makes_alike_is_kept_once_for_all(client, make_client, count_statements, remembering):
    gm, cid, players, places = running_campaign(client, 2)
    anna, borys = _browser(make_client, "player0", cid), _browser(make_client, "player1", cid)
    url = f"/campaigns/{cid}/chronicle"
    remembering.forget()
    first = _statements(anna, url, count_statements)[0]
    assert _statements(borys, url, count_statements)[0] < first  # anna's read, kept for borys too
    buy(client, cid, players[0], "orcs.krusher", faction="orcs")  # seen by anna and the GMs alone
    assert _statements(borys, f"{url}?again=1", count_statements)[0] < first


@pytest.mark.parametrize("secret", [False, True])
def test_a_full_memory_drops_the_same_slot_whatever_others_did_in_secret(
    client, make_client, count_statements, monkeypatch, remembering, secret
):
    """R11.2: a hidden act moves its owner's counters, which replaces their slot rather than
    adding one, so which slot a full memory drops is the same either way."""
    gm, cid, players, places = running_campaign(client, 2)
    anna, borys = _browser(make_client, "player0", cid), _browser(make_client, "player1", cid)
    url = f"/campaigns/{cid}/orders"
    remembering.forget()
    borys.get(url)
    warm = _statements(borys, url, count_statements)[0]
    anna.get(url)  # anna's slot kept after borys's: his is the oldest
    monkeypatch.setattr(remembered, "SIZE", len(remembering.slots))  # full
    if secret:
        buy(client, cid, players[0], "orcs.krusher", faction="orcs")  # hidden from borys
    anna.get(url)  # read anew after her purchase: her slot replaced, none added
    assert _statements(borys, url, count_statements)[0] == warm

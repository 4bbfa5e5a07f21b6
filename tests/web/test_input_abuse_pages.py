"""Hostile input on the pages (issue 10, R11.5): ids beyond the database in paths, queries and
forms answer 404 or a form error, never a 500; return-to addresses stay on this site."""

import re

import pytest

from app.accounts import pages as accounts_pages
from app.battles import pages as battles_pages
from app.campaigns import pages as campaigns_pages
from app.chronicle import pages as chronicle_pages
from app.companies import pages as companies_pages
from app.events import pages as events_pages
from app.maps import map_pages
from app.maps import pages as maps_pages
from app.warbands import pages as warbands_pages
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, running_campaign
from tests.builders.maps import add_place
from tests.builders.pages import login, post

MODULES = (
    accounts_pages,
    battles_pages,
    campaigns_pages,
    chronicle_pages,
    companies_pages,
    events_pages,
    map_pages,
    maps_pages,
    warbands_pages,
)
HUGE = ("100000000000000000000", str(2**31), "0", "-1")


def _routes():
    for module in MODULES:
        for route in module.router.routes:
            if re.search(r"{\w+}", route.path):
                yield route.path, sorted(route.methods)


@pytest.mark.load
def test_r11_5_every_page_with_an_impossible_id_in_its_path_is_404(client, make_client):
    gm, cid, _players, _places = running_campaign(client, 2)
    browser = make_client()
    login(browser, "gamemaster")
    checked = 0
    for path, methods in _routes():
        for target in re.findall(r"{(\w+)}", path):
            for huge in HUGE:
                url = re.sub(
                    r"{(\w+)}", lambda m: huge if m.group(1) == target else str(cid) if m.group(1) == "cid" else "1", path
                )
                for method in methods:
                    r = post(browser, url) if method == "POST" else browser.request(method, url, follow_redirects=False)
                    assert r.status_code in (303, 403, 404, 405, 409, 422), (method, url, r.status_code)
                    assert r.status_code != 500
                    checked += 1
    assert checked > 150


@pytest.mark.parametrize(
    "query",
    [
        "/battles?round=1e20",
        "/battles?round=100000000000000000000",
        "/map?of=100000000000000000000",
        "/company?player_id=100000000000000000000",
        "/ledger?player_id=99999999999",
        "/chronicle?page=100000000000000000000",
        "/send?warband=100000000000000000000",
    ],
)
def test_r11_5_page_queries_beyond_the_database_are_refused(client, make_client, query):
    gm, cid, _players, _places = running_campaign(client, 2)
    browser = make_client()
    login(browser, "gamemaster")
    r = browser.get(f"/campaigns/{cid}{query}", follow_redirects=False)
    assert r.status_code in (404, 422), (query, r.status_code)


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/rewards", {"player_id": "100000000000000000000", "item": "item.bandages"}),
        ("/ledger/adjustments", {"player_id": "1", "amount": "100000000000000000000", "reason": "x"}),
        ("/ledger/adjustments", {"player_id": "100000000000000000000", "amount": "5", "reason": "x"}),
        ("/places", {"name": "X", "parent_id": "100000000000000000000"}),
        ("/events", {"place_id": "100000000000000000000", "title": "Ambush", "duration": "1"}),
        ("/hideouts", {"place_id": "100000000000000000000"}),
        ("/end-round", {"round": "100000000000000000000"}),
    ],
)
def test_r11_5_page_forms_with_huge_numbers_are_refused_without_a_500(client, make_client, path, data):
    gm, cid, _players, _places = running_campaign(client, 2)
    browser = make_client()
    login(browser, "gamemaster")
    r = post(browser, f"/campaigns/{cid}{path}", data)
    assert 400 <= r.status_code < 500 or r.status_code == 200, (path, r.status_code)


def test_r11_5_return_to_addresses_stay_on_this_site(client, make_client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    place = add_place(client, gm, cid, "Keep")
    browser = make_client()
    login(browser, "gamemaster")
    for evil in ("/\\evil.example", "//evil.example", "https://evil.example", "/%5Cevil.example", "javascript:alert(1)"):
        page = browser.get(f"/campaigns/{cid}/places/{place['id']}/edit", params={"next": evil}).text
        for href in re.findall(r'href="([^"]*)"', page):
            assert href.startswith(("/", "#", "?")) and not href.startswith(("//", "/\\", "/%5C")), (evil, href)
    from app.core.forms import safe_next

    for evil in ("/\\evil.example", "//evil.example", "/x\nLocation: /y", "/a:b"):
        assert safe_next(evil, "/home") == "/home", evil
    assert safe_next("/campaigns/1/map?of=2", "/") == "/campaigns/1/map?of=2"


def test_r11_5_round_forms_validate_with_the_api_schemas(client, make_client):
    """Phase change, End round and the Twilight choice: bad values are refused on the page
    (R2.2, R2.3, R7.3) with the field named, and nothing changes."""
    gm, cid, _players, _places = running_campaign(client, 2)
    browser = make_client()
    login(browser, "gamemaster")
    r = post(browser, f"/campaigns/{cid}/phase", {"phase": ""})
    assert r.status_code == 422 and "Phase is required." in r.text
    r = post(browser, f"/campaigns/{cid}/end-round", {"round": "-5"})
    assert r.status_code == 422 and "Round: This number must be at least 0." in r.text
    r = post(browser, f"/campaigns/{cid}/twilight/choices", {"place_id": "x", "player_id": "100000000000000000000"})
    assert r.status_code == 422 and "Place: Enter a whole number." in r.text
    campaign = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()
    assert (campaign["round"], campaign["phase"]) == (1, "preparation")

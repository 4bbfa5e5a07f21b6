"""Warband movement on pages (R9.8 with R9.7 paths): where a new warband gathers in the builder,
where each warband stands on the warbands page, rosters that change only in a hideout, the send
page offering only the moves allowed, positions on the map (a count per place, the sheet's list,
orders kept secret), the GM placing a scattered warband from the dashboard and the map sheet,
the module off showing none of it, and the map's statements bounded with the module on."""

from __future__ import annotations

import html
import re

from sqlmodel import Session, select

from app.warbands.models import Warband, WarbandMember
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.maps import give_hideout
from tests.builders.movement import movement_campaign
from tests.builders.pages import browser as browser_of
from tests.builders.pages import post
from tests.builders.rounds import to_phase

FLASH = re.compile(r'<div class="flash" id="flash">\s*<p role="status">(.*?)</p>', re.S)
BADGE = re.compile(r'<a id="p(\d+)"[^>]*>.*?</a>', re.S)


def scatter(engine, wid: int) -> None:
    """Setup only: the warband is scattered (in play: beaten with no hideout left, R9.8)."""
    with Session(engine) as s:
        warband = s.get(Warband, wid)
        warband.location_place_id = None
        s.add(warband)
        s.commit()


def take_hideout(engine, place_id: int) -> None:
    """Setup only: the place is nobody's hideout any more (in play: captured, R7.3)."""
    from app.maps.models import Hideout, Place

    with Session(engine) as s:
        for hideout in s.exec(select(Hideout).where(Hideout.place_id == place_id)).all():
            s.delete(hideout)
        place = s.get(Place, place_id)
        place.owner_player_id = None
        s.add(place)
        s.commit()


def members(engine, wid: int) -> list[int]:
    with Session(engine) as s:
        return sorted(s.exec(select(WarbandMember.model_id).where(WarbandMember.warband_id == wid)).all())


def radios(page: str) -> set[str]:
    """The send page's choices that may be picked (a blockade's radio is disabled)."""
    return {m.group(1) for m in re.finditer(r'<input type="radio" name="target" value="([a-z]+:\d+)"(?![^>]*disabled)', page)}


def wb_badges(page: str) -> dict[int, int]:
    """Place id -> the warband count drawn on its marker."""
    found = {}
    for m in BADGE.finditer(page):
        count = re.search(r'<g class="wb"><title>[^<]*</title><circle/><text dy=".35em">(\d+)</text></g>', m.group(0))
        if count:
            found[int(m.group(1))] = int(count.group(1))
    return found


def flash_after(browser, url: str) -> str:
    page = browser.get(url).text
    found = FLASH.search(page)
    return html.unescape(found.group(1)) if found else ""


# --- the builder -------------------------------------------------------------------------------


def test_r9_8_builder_a_player_with_several_hideouts_picks_where_the_warband_gathers(client, make_client, engine):
    m = movement_campaign(client, 3, hideouts=["Ash", "Bree", "Crag"])
    ash, bree, crag, ford = (m.places[n] for n in ("Ash", "Bree", "Crag", "Ford"))
    take_hideout(engine, crag)  # player2 holds no hideout any more
    give_hideout(engine, crag, m.pid(0))  # player0 holds Ash and Crag
    models = m.buy(0, "orcs.krusher", "orcs.ax")
    anna = browser_of(make_client, "player0")
    page = anna.get(f"/campaigns/{m.cid}/warbands/new").text
    assert '<label for="w-gather">Gathers at</label>' in page
    assert f'<option value="{ash}" selected>⌂ Ash</option>' in page and f'<option value="{crag}" >⌂ Crag</option>' in page
    assert "⌂ Ford" not in page and "⌂ Bree" not in page  # only her own hideouts
    body = {"name": "Raiders", "model_ids": [str(x["id"]) for x in models]}
    # A place that is not her hideout: refused, the choice and the form kept, nothing created.
    refused = post(anna, f"/campaigns/{m.cid}/warbands/save", {**body, "location_place_id": str(ford)})
    assert refused.status_code == 422 and "A new warband gathers in one of your hideouts: choose one of them." in refused.text
    assert 'value="Raiders"' in refused.text
    assert m.warbands(0) == {}
    r = post(anna, f"/campaigns/{m.cid}/warbands/save", {**body, "location_place_id": str(crag)})
    assert r.status_code == 303, r.text[:500]
    [saved] = m.warbands(0).values()
    assert saved["location_place_id"] == crag
    # One hideout: the builder says where it gathers; none: it is scattered until the GM places it.
    m.buy(1, "basileans.veteran-sergeant")
    bella = browser_of(make_client, "player1")
    page = bella.get(f"/campaigns/{m.cid}/warbands/new").text
    assert "It gathers at your hideout Bree and sets out from there." in page and 'name="location_place_id"' not in page
    m.buy(2, "undead.crypt-gouger")
    cara = browser_of(make_client, "player2")
    page = cara.get(f"/campaigns/{m.cid}/warbands/new").text
    assert "You have no hideout: the warband is scattered until the game master places it." in page
    # Editing says where it stands.
    assert "At Crag" in anna.get(f"/campaigns/{m.cid}/warbands/{saved['id']}/edit").text


# --- the warbands page ----------------------------------------------------------------------------


def test_r9_8_warbands_page_says_where_each_warband_stands(client, make_client, engine):
    m = movement_campaign(client)
    raiders = m.band(0, "Raiders")
    lost = m.band(0, "Lost Boys")
    scatter(engine, lost["id"])
    anna = browser_of(make_client, "player0")
    page = anna.get(f"/campaigns/{m.cid}/warbands").text
    card = page.split(f'id="w{raiders["id"]}"')[1].split("</article>")[0]
    assert '<p class="small where">At Ash</p>' in card and "roster changes only in a hideout" not in card
    assert f'href="/campaigns/{m.cid}/warbands/{raiders["id"]}/edit"' in card
    card = page.split(f'id="w{lost["id"]}"')[1].split("</article>")[0]
    assert "Scattered — the game master places it" in card
    assert "Away from your hideouts: its roster changes only in a hideout." in card
    assert f'/warbands/{lost["id"]}/edit"' not in card and f'/warbands/{lost["id"]}/disband"' not in card
    assert card.count(f'disabled aria-describedby="away-{lost["id"]}"') == 2  # Edit and Disband, with the reason
    m.phase("orders")
    card = anna.get(f"/campaigns/{m.cid}/warbands").text.split(f'id="w{lost["id"]}"')[1].split("</article>")[0]
    assert f'/warbands/{lost["id"]}/send"' not in card  # a scattered warband cannot be sent


def test_r9_8_roster_edit_and_disband_away_from_a_hideout_are_refused_with_the_message(client, make_client, engine):
    m = movement_campaign(client)
    raiders = m.band(0, "Raiders")
    ford = m.places["Ford"]
    m.placed(raiders["id"], ford)  # the GM puts it away from Ash
    anna = browser_of(make_client, "player0")
    page = anna.get(f"/campaigns/{m.cid}/warbands").text
    assert "At Ford" in page and "Away from your hideouts: its roster changes only in a hideout." in page
    assert f'/warbands/{raiders["id"]}/disband"' not in page
    builder = anna.get(f"/campaigns/{m.cid}/warbands/{raiders['id']}/edit").text
    assert "At Ford" in builder and "Away from your hideouts: its roster changes only in a hideout." in builder
    before = members(engine, raiders["id"])
    r = post(
        anna,
        f"/campaigns/{m.cid}/warbands/save",
        {"warband_id": str(raiders["id"]), "name": "Raiders", "model_ids": [str(before[0])]},
    )
    assert r.status_code == 409, r.status_code
    assert html.escape("Raiders stands at Ford, away from your hideouts: its roster changes only in a hideout.") in r.text
    assert members(engine, raiders["id"]) == before  # nothing changed
    r = post(anna, f"/campaigns/{m.cid}/warbands/{raiders['id']}/disband")
    assert r.status_code == 409 and "its roster changes only in a hideout" in r.text
    assert raiders["id"] in m.warbands(0) and members(engine, raiders["id"]) == before


# --- the send page -----------------------------------------------------------------------------------


def test_r9_8_send_page_without_paths_offers_every_place_but_staying_is_not_sending(client, make_client):
    m = movement_campaign(client)
    raiders = m.band(0, "Raiders")
    ash, bree, crag, ford, glen = (m.places[n] for n in ("Ash", "Bree", "Crag", "Ford", "Glen"))
    at_home = m.event("Ash", "Trouble at home")
    far = m.event("Bree", "Far away")
    m.phase("orders")
    anna = browser_of(make_client, "player0")
    page = anna.get(f"/campaigns/{m.cid}/warbands/{raiders['id']}/send").text
    assert "Raiders sets out from Ash." in page
    assert "To stay, send nothing: a warband without an order defends the place where it stands." in page
    assert radios(page) == {f"event:{at_home}", f"event:{far}", f"place:{crag}", f"place:{ford}", f"place:{glen}"}


def test_r9_8_send_page_with_paths_offers_only_one_path_step_in_the_paths_direction(client, make_client, engine):
    links = [("Ash", "Ford", False), ("Glen", "Ash", True)]  # Ash–Ford both ways; Glen → Ash one way
    m = movement_campaign(client, paths=True, links=links)
    raiders = m.band(0, "Raiders")
    lost = m.band(0, "Lost Boys")
    scatter(engine, lost["id"])
    ash, bree, crag, ford, glen = (m.places[n] for n in ("Ash", "Bree", "Crag", "Ford", "Glen"))
    at_ford = m.event("Ford", "Ambush at the Ford")
    m.event("Glen", "Glen raid")  # no path from Ash to Glen: not offered
    m.phase("orders")
    anna = browser_of(make_client, "player0")
    page = anna.get(f"/campaigns/{m.cid}/warbands/{raiders['id']}/send").text
    assert "Raiders sets out from Ash." in page
    assert radios(page) == {f"event:{at_ford}"}  # Ford has an event: the event is the way there
    assert "Glen raid" not in page and "Bree" not in page and "Crag" not in page
    # Sent along the path; the order is the service's (and stays where the send page put it).
    r = post(anna, f"/campaigns/{m.cid}/warbands/{raiders['id']}/send", {"target": f"event:{at_ford}", "confirm": "1"})
    assert r.status_code == 303, r.text[:800]
    # A place off the paths is refused with the message, not a 500, and nothing is sent.
    guard = m.band(1, "Guard")
    bella = browser_of(make_client, "player1")
    page = bella.get(f"/campaigns/{m.cid}/warbands/{guard['id']}/send").text
    assert "Guard sets out from Bree." in page and radios(page) == set()
    assert "No such places you can reach." in page
    r = post(bella, f"/campaigns/{m.cid}/warbands/{guard['id']}/send", {"target": f"place:{crag}"})
    assert r.status_code == 409 and "Guard cannot reach Crag from where it stands." in r.text
    assert [o["warband_id"] for o in m.get("gm", "/orders").json()] == [raiders["id"]]
    # A scattered warband goes nowhere until the GM places it.
    page = anna.get(f"/campaigns/{m.cid}/warbands/{lost['id']}/send").text
    assert "Lost Boys is scattered: it can be sent once the game master places it." in page and radios(page) == set()
    # The map sheet offers to send only the warbands that may go there.
    sheet = anna.get(f"/campaigns/{m.cid}/map/places/{glen}", headers={"HX-Request": "true"}).text
    assert "Send a warband" not in sheet
    sheet = bella.get(f"/campaigns/{m.cid}/map/places/{bree}", headers={"HX-Request": "true"}).text
    assert "Send a warband here" not in sheet  # staying is not sending


# --- the map ------------------------------------------------------------------------------------------


def test_r9_8_map_shows_a_count_per_place_and_the_sheet_lists_whose_warbands_stand_there(client, make_client):
    m = movement_campaign(client)
    ash, bree, ford = m.places["Ash"], m.places["Bree"], m.places["Ford"]
    raiders, _second = m.band(0, "Raiders"), m.band(0, "Second")
    m.band(1, "Guard")
    bella = browser_of(make_client, "player1")
    page = bella.get(f"/campaigns/{m.cid}/map").text
    assert wb_badges(page) == {ash: 2, bree: 1}
    assert "2 warbands stand here" in page and '<span class="badge wb">2 warbands</span>' in page
    sheet = bella.get(f"/campaigns/{m.cid}/map/places/{ash}", headers={"HX-Request": "true"}).text
    assert "Warbands here" in sheet and "<strong>Raiders</strong>" in sheet and "<strong>Second</strong>" in sheet
    assert "player0" in sheet and "Guard" not in sheet
    assert 'action="/campaigns/%s/warbands/%s/position"' % (m.cid, raiders["id"]) not in sheet  # only the GM moves them
    assert "No warband stands here." in bella.get(f"/campaigns/{m.cid}/map/places/{ford}", headers={"HX-Request": "true"}).text
    # The page without JavaScript: the sheet opened on the map page.
    assert "<strong>Guard</strong>" in bella.get(f"/campaigns/{m.cid}/map?place={bree}").text
    # Orders stay secret: Raiders sent to Ford still stands at Ash for everybody until the round ends.
    m.phase("orders")
    m.sent(0, raiders["id"], place_id=ford)
    for who in ("player1", "gamemaster", "player0"):
        viewer = browser_of(make_client, who)
        assert wb_badges(viewer.get(f"/campaigns/{m.cid}/map").text) == {ash: 2, bree: 1}, who
        sheet = viewer.get(f"/campaigns/{m.cid}/map/places/{ford}", headers={"HX-Request": "true"}).text
        assert "Raiders" not in sheet, who
    m.phase("battles")  # now the orders are public, but the positions change only at End round
    assert wb_badges(bella.get(f"/campaigns/{m.cid}/map").text) == {ash: 2, bree: 1}


# --- the GM places a scattered warband ---------------------------------------------------------------


def test_r9_8_gm_places_a_scattered_warband_from_the_dashboard(client, make_client, engine):
    m = movement_campaign(client)
    ford = m.places["Ford"]
    raiders = m.band(0, "Raiders")
    scatter(engine, raiders["id"])
    gm = browser_of(make_client, "gamemaster")
    anna = browser_of(make_client, "player0")
    page = gm.get(f"/campaigns/{m.cid}").text
    assert "Scattered warbands" in page and "Raiders · player0" in page
    assert f'action="/campaigns/{m.cid}/warbands/{raiders["id"]}/position"' in page
    assert "Raiders is scattered: the game master places it." in anna.get(f"/campaigns/{m.cid}").text
    # A player may not place it: refused, nothing changed.
    r = post(anna, f"/campaigns/{m.cid}/warbands/{raiders['id']}/position", {"place_id": str(ford)})
    assert r.status_code == 403
    assert m.location(0, raiders["id"]) is None
    # A place that is not a number is a form problem.
    r = post(gm, f"/campaigns/{m.cid}/warbands/{raiders['id']}/position", {"place_id": "abc"})
    assert r.status_code == 422 and "Place: Enter a whole number." in r.text
    r = post(gm, f"/campaigns/{m.cid}/warbands/{raiders['id']}/position", {"place_id": str(ford)})
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{m.cid}"
    assert flash_after(gm, r.headers["location"]) == "Raiders placed at Ford."
    assert m.location(0, raiders["id"]) == ford
    assert "Scattered warbands" not in gm.get(f"/campaigns/{m.cid}").text
    assert "At Ford" in anna.get(f"/campaigns/{m.cid}/warbands").text


def test_r9_8_gm_corrects_a_position_and_places_a_scattered_warband_from_the_map_sheet(client, make_client, engine):
    m = movement_campaign(client)
    ash, ford, glen = m.places["Ash"], m.places["Ford"], m.places["Glen"]
    raiders, lost = m.band(0, "Raiders"), m.band(0, "Lost Boys")
    scatter(engine, lost["id"])
    gm = browser_of(make_client, "gamemaster")
    sheet = gm.get(f"/campaigns/{m.cid}/map/places/{ash}", headers={"HX-Request": "true"}).text
    assert f'action="/campaigns/{m.cid}/warbands/{raiders["id"]}/position"' in sheet
    assert f'<option value="{ash}" selected>Ash</option>' in sheet
    r = post(gm, f"/campaigns/{m.cid}/warbands/{raiders['id']}/position", {"place_id": str(glen), "from": "map"})
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{m.cid}/map?place={glen}#sheet"
    assert flash_after(gm, r.headers["location"]) == "Raiders placed at Glen."
    assert m.location(0, raiders["id"]) == glen
    sheet = gm.get(f"/campaigns/{m.cid}/map/places/{ford}", headers={"HX-Request": "true"}).text
    assert "Scattered warbands" in sheet and "Place here" in sheet
    r = post(gm, f"/campaigns/{m.cid}/warbands/{lost['id']}/position", {"place_id": str(ford), "from": "map"})
    assert r.status_code == 303 and m.location(0, lost["id"]) == ford
    # An unknown place: refused on the map, nothing changed.
    r = post(gm, f"/campaigns/{m.cid}/warbands/{lost['id']}/position", {"place_id": "999999", "from": "map"})
    assert r.status_code == 404 and 'role="alert"' in r.text
    assert m.location(0, lost["id"]) == ford


def test_r9_8_a_beaten_defender_with_no_hideout_left_is_scattered_and_the_gm_places_it(client, make_client):
    """Played through a round: Bree's Guard defends its own hideout, loses, and player1 holds
    no other hideout (the winner takes Bree in Twilight)."""
    m = movement_campaign(client)
    bree, ford = m.places["Bree"], m.places["Ford"]
    raiders, guard = m.band(0, "Raiders"), m.band(1, "Guard")
    m.phase("orders")
    m.sent(0, raiders["id"], place_id=bree)
    m.play({bree: [0]})
    assert m.location(1, guard["id"]) is None
    assert m.chronicle("warband_scattered")
    gm = browser_of(make_client, "gamemaster")
    page = gm.get(f"/campaigns/{m.cid}").text
    assert "Scattered warbands" in page and "Guard · player1" in page
    r = post(gm, f"/campaigns/{m.cid}/warbands/{guard['id']}/position", {"place_id": str(ford)})
    assert r.status_code == 303 and m.location(1, guard["id"]) == ford


# --- the module off ------------------------------------------------------------------------------------


def test_r9_8_module_off_shows_no_positions_anywhere(client, make_client):
    gm_h, cid, players, places = running_campaign(client)
    models = buy(client, cid, players[0], "orcs.krusher", "orcs.ax", faction="orcs")
    w = warband(client, cid, players[0], models)
    anna = browser_of(make_client, "player0")
    gm = browser_of(make_client, "gamemaster")
    assert 'name="location_place_id"' not in anna.get(f"/campaigns/{cid}/warbands/new").text
    assert "gathers" not in anna.get(f"/campaigns/{cid}/warbands/new").text
    listing = anna.get(f"/campaigns/{cid}/warbands").text
    assert 'class="small where"' not in listing and "hideout" not in listing.split('id="w')[1]
    for browser in (anna, gm):
        page = browser.get(f"/campaigns/{cid}/map").text
        assert 'class="wb"' not in page and "badge wb" not in page
        sheet = browser.get(f"/campaigns/{cid}/map/places/{places[0]['id']}", headers={"HX-Request": "true"}).text
        assert "Warbands here" not in sheet
        assert "Scattered warbands" not in browser.get(f"/campaigns/{cid}").text
    to_phase(client, gm_h, cid, "orders")
    send = anna.get(f"/campaigns/{cid}/warbands/{w['id']}/send").text
    assert "sets out from" not in send and "defends the place" not in send
    r = post(gm, f"/campaigns/{cid}/warbands/{w['id']}/position", {"place_id": str(places[1]["id"])})
    assert r.status_code == 409 and 'role="alert"' in r.text
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=players[0]["headers"]).json()[0]["location_place_id"] is None


# --- statements ----------------------------------------------------------------------------------------


def test_r9_8_map_with_positions_runs_the_same_statements_with_10x_warbands(client, make_client, engine, count_statements):
    m = movement_campaign(client)
    ash, bree, ford = m.places["Ash"], m.places["Bree"], m.places["Ford"]
    m.band(0, "Raiders")
    gm = browser_of(make_client, "gamemaster")
    anna = browser_of(make_client, "player0")

    def add(n: int) -> None:
        with Session(engine) as s:
            for i in range(n):
                s.add(
                    Warband(
                        campaign_id=m.cid,
                        player_id=m.pid(i % 2),
                        name=f"Extra {i}",
                        location_place_id=(ash, bree, ford, None)[i % 4],
                    )
                )
            s.commit()

    def counts() -> list[int]:
        found = []
        for browser, path in ((gm, "/map"), (anna, "/map"), (gm, f"/map?place={ash}"), (anna, f"/map?place={ash}"), (gm, "")):
            with count_statements() as counter:
                assert browser.get(f"/campaigns/{m.cid}{path}").status_code == 200
            found.append(counter.count)
        return found

    add(4)  # with a scattered one: the GM's dashboard panel lists it
    for browser in (gm, anna):  # a first visit reads the page head on its own; later ones with the login (issue 37)
        assert browser.get(f"/campaigns/{m.cid}/players").status_code == 200
    small = counts()
    add(36)  # ten times the warbands
    large = counts()
    assert small == large, (small, large)
    assert max(small) <= 18, small  # the map with a sheet open reads the sheet too

"""The map editor (R1.3, R9.7, R1.1): the „Mapa miejsca” button, three levels at most, the
Add place mode kept after adding, the path hint and the way back to the wizard."""

from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, running_campaign
from tests.builders.maps import add_place
from tests.builders.pages import login, post


def _sheet(client, cid: int, pid: int) -> str:
    r = client.get(f"/campaigns/{cid}/map/places/{pid}", headers={"HX-Request": "true"})
    assert r.status_code == 200, r.text
    return r.text


def test_r1_3_place_map_button_creates_the_map_and_enters_it_three_levels_at_most(client, make_client):
    gm = user(client, "mapgm")
    cid = create_campaign(client, gm)["id"]
    login(client, "mapgm")
    city = add_place(client, gm, cid, "City")
    action = f'action="/campaigns/{cid}/places/{city["id"]}/map"'
    sheet = _sheet(client, cid, city["id"])
    assert action in sheet and ">Place map</button>" in sheet and "Enter inside" not in sheet

    r = post(client, f"/campaigns/{cid}/places/{city['id']}/map")
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}/map?of={city['id']}"
    inner = client.get(r.headers["location"]).text
    assert '<rect class="bg"' in inner  # no image needed: the built-in background
    assert ">City</a>" in inner.split('class="crumbs"')[1].split("</nav>")[0]
    assert client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json()[0]["has_map"] is True
    sheet = _sheet(client, cid, city["id"])
    assert action not in sheet and "Enter inside" in sheet
    # Pressing it again (a second tap) just enters the map.
    assert post(client, f"/campaigns/{cid}/places/{city['id']}/map").headers["location"].endswith(f"?of={city['id']}")

    docks = add_place(client, gm, cid, "Docks", parent_id=city["id"])
    assert ">Place map</button>" in _sheet(client, cid, docks["id"])
    post(client, f"/campaigns/{cid}/places/{docks['id']}/map")
    pier = add_place(client, gm, cid, "Pier", parent_id=docks["id"])
    sheet = _sheet(client, cid, pier["id"])
    assert "Place map" not in sheet and "Maps go three levels deep at most" in sheet
    refused = post(client, f"/campaigns/{cid}/places/{pier['id']}/map")
    assert refused.status_code == 422 and 'class="alert error"' in refused.text
    assert "Maps go three levels deep at most (land, city, district)." in refused.text
    assert f'href="/campaigns/{cid}/map?of={docks["id"]}" aria-current="page"' in refused.text

    # Players get no button and cannot make one.
    gm2, cid2, players, places = running_campaign(make_client())
    player = make_client()
    login(player, "player0")
    assert "Place map" not in _sheet(player, cid2, places[2]["id"])
    assert post(player, f"/campaigns/{cid2}/places/{places[2]['id']}/map").status_code == 403


def test_r1_3_polish_button_is_mapa_miejsca(client):
    gm = user(client, "plgm", locale="pl")
    cid = create_campaign(client, gm)["id"]
    login(client, "plgm")
    city = add_place(client, gm, cid, "Miasto")
    sheet = _sheet(client, cid, city["id"])
    assert ">Mapa miejsca</button>" in sheet


def test_r1_2_add_mode_survives_adding_a_place(client):
    gm = user(client, "addgm")
    cid = create_campaign(client, gm)["id"]
    login(client, "addgm")
    sheet = client.get(f"/campaigns/{cid}/map/new-place?x=10&y=20&mode=add", headers={"HX-Request": "true"}).text
    assert f'name="next" value="/campaigns/{cid}/map?mode=add"' in sheet
    r = post(
        client, f"/campaigns/{cid}/places", {"name": "Tower", "x": "10", "y": "20", "next": f"/campaigns/{cid}/map?mode=add"}
    )
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}/map?mode=add"
    page = client.get(r.headers["location"]).text
    assert 'value="add" checked' in page and 'value="view" checked' not in page
    assert 'value="view" checked' in client.get(f"/campaigns/{cid}/map").text
    # Without the Add place mode (the no-JS "Add a place" link) the form goes back to the plain map.
    plain = client.get(f"/campaigns/{cid}/map/new-place?x=50&y=50", headers={"HX-Request": "true"}).text
    assert f'name="next" value="/campaigns/{cid}/map"' in plain
    tower = client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json()[0]
    inner = client.get(f"/campaigns/{cid}/map/new-place?of={tower['id']}&x=5&y=5&mode=add", headers={"HX-Request": "true"}).text
    assert f'name="next" value="/campaigns/{cid}/map?of={tower["id"]}&amp;mode=add"' in inner


def test_r9_7_r1_1_path_hint_with_the_module_and_back_to_setup_while_in_setup(client):
    gm = user(client, "hintgm")
    with_paths = create_campaign(client, gm, modules={"paths": True})["id"]
    without = create_campaign(client, gm, name="No paths")["id"]
    login(client, "hintgm")
    page = client.get(f"/campaigns/{with_paths}/map").text
    assert "To draw a path, choose Draw path" in page
    assert f'href="/campaigns/{with_paths}/setup/3"' in page and "Back to setup" in page
    assert "To draw a path" not in client.get(f"/campaigns/{without}/map").text


def test_r1_1_no_back_to_setup_once_running(client):
    gm, cid, players, places = running_campaign(client)
    login(client, "gamemaster")
    page = client.get(f"/campaigns/{cid}/map").text
    assert "Back to setup" not in page and 'name="mode"' in page

"""R12.14 on the pages: the map editor, the wizard's Map step and the Places tab take a pasted
list, one place a line (`name; income; ⚑`, the format said under the field in English and
Polish); a refusal lists each line's problem ("line 3: …"), keeps the text and saves nothing."""

from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign
from tests.builders.maps import add_place
from tests.builders.pages import login, post

LIST = "Ravenhold; 3; ⚑\n\nEmber Docks;2\nOld Mill; !\nWolf Tor; x; 5\nGrey Ford"


def _places(client, gm, cid):
    return client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json()


def test_r12_14_a_pasted_list_adds_every_line_on_the_map_it_was_pasted_on(client):
    gm = user(client, "pastegm")
    cid = create_campaign(client, gm)["id"]
    login(client, "pastegm")
    page = client.get(f"/campaigns/{cid}/map").text
    assert f'action="/campaigns/{cid}/places/bulk"' in page and "One place a line: name; income; ⚑" in page
    r = post(client, f"/campaigns/{cid}/places/bulk", {"lines": LIST, "next": f"/campaigns/{cid}/map"})
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}/map"
    assert "Places added: 5." in client.get(r.headers["location"]).text
    assert [(p["name"], p["income"], p["hideout_slot"]) for p in _places(client, gm, cid)] == [
        ("Ravenhold", 3, True),
        ("Ember Docks", 2, False),
        ("Old Mill", 0, True),
        ("Wolf Tor", 5, True),
        ("Grey Ford", 0, False),
    ]
    # Inside a place: its own map (`of`), and the form goes back there.
    city = _places(client, gm, cid)[0]["id"]
    back = f"/campaigns/{cid}/map?of={city}"
    r = post(client, f"/campaigns/{cid}/places/bulk", {"lines": "Docks; 1\nMarket", "of": str(city), "next": back})
    assert r.status_code == 303 and r.headers["location"] == back
    assert [p["name"] for p in _places(client, gm, cid) if p["parent_id"] == city] == ["Docks", "Market"]


def test_r12_14_a_refused_list_names_each_line_keeps_the_text_and_saves_nothing(client):
    gm = user(client, "pastegm2")
    cid = create_campaign(client, gm)["id"]
    add_place(client, gm, cid, "Ivory Keep")
    login(client, "pastegm2")
    text = "Fine; 1\nIvory Keep; 2\nBad; lots\nFine\n" + "x" * 81 + "\nHuge; 100001"
    r = post(client, f"/campaigns/{cid}/places/bulk", {"lines": text, "next": f"/campaigns/{cid}/setup/3"})
    assert r.status_code == 422 and "Step 3 of 6: Map" in r.text
    assert "line 3: lots is neither an income nor a hideout mark (⚑, ! or x)." in r.text
    assert "line 5: Name: " in r.text and "line 6: Income per round: " in r.text
    assert "Nothing was added: some places in the list cannot be added." in r.text
    assert "Huge; 100001</textarea>" in r.text  # the text stays, to be corrected
    assert [p["name"] for p in _places(client, gm, cid)] == ["Ivory Keep"]
    # The parsed lines are fine; the service refuses the names: still per line.
    r = post(
        client, f"/campaigns/{cid}/places/bulk", {"lines": "Fine; 1\nivory keep; 2\n\nFine", "next": f"/campaigns/{cid}/map"}
    )
    assert r.status_code == 422 and 'id="map"' in r.text
    assert "line 2: A place named ivory keep is already on this map." in r.text
    assert "line 4: Fine is in the list more than once." in r.text
    assert [p["name"] for p in _places(client, gm, cid)] == ["Ivory Keep"]
    r = post(client, f"/campaigns/{cid}/places/bulk", {"lines": "\n \n", "next": f"/campaigns/{cid}/places"})
    assert r.status_code == 422 and "Add from 1 to 200 places at once." in r.text


def test_r12_14_polish_says_the_format_and_the_line(client):
    gm = user(client, "pastepl", locale="pl")
    cid = create_campaign(client, gm)["id"]
    login(client, "pastepl")
    page = client.get(f"/campaigns/{cid}/setup/3").text
    assert "Jedno miejsce w wierszu: nazwa; dochód; ⚑" in page
    r = post(client, f"/campaigns/{cid}/places/bulk", {"lines": "A; 1\nB; ?", "next": f"/campaigns/{cid}/setup/3"})
    assert r.status_code == 422 and "wiersz 2: " in r.text


def test_r12_14_players_cannot_paste_places(client, make_client):
    gm = user(client, "pastegm3")
    cid = create_campaign(client, gm)["id"]
    other = make_client()
    user(other, "pasteother")
    login(other, "pasteother")
    assert post(other, f"/campaigns/{cid}/places/bulk", {"lines": "Mine"}).status_code in (403, 404)
    assert _places(client, gm, cid) == []

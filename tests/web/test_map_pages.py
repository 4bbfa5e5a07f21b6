"""The map page (R1.2, R1.3, R9.7): SVG, sheet, editor actions through forms, no-JS list."""

import io

from PIL import Image

from bench import large_campaign
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, running_campaign
from tests.builders.maps import add_place
from tests.builders.pages import login, post, register, shown


def test_r1_2_map_page_draws_places_owners_and_flags(client, make_client):
    gm, cid, players, places = running_campaign(client)
    browser = make_client()
    login(browser, "player0")
    page = browser.get(f"/campaigns/{cid}/map").text
    svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert svg.count('<a id="p') == 3
    marker = svg.split(f'id="p{places[0]["id"]}"')[1].split("</a>")[0]
    assert ' class="pl o0' in svg and "⌂" in marker and "Place 0 · 5" in marker
    free = svg.split(f'id="p{places[2]["id"]}"')[1].split("</a>")[0]
    assert "⚑" in free and 'class="pl u' in svg
    assert "player0" in page.split("Places on this map")[1]  # the no-JS list names owners
    assert 'name="mode"' not in page  # players get no editor


def test_r1_3_nested_map_breadcrumbs_dashed_outline_and_enter_inside(client):
    register(client, "gamemaster")
    gm = user(client, "api_gm")
    cid = create_campaign(client, gm)["id"]
    # The page user is another account; give the campaign to it through the API owner instead.
    login(client, "api_gm")
    city = add_place(client, gm, cid, "City")
    district = add_place(client, gm, cid, "Docks", parent_id=city["id"])
    top = client.get(f"/campaigns/{cid}/map").text
    assert 'class="pl u m"' in top and f'href="/campaigns/{cid}/map?of={city["id"]}">Enter inside' in top
    inner = client.get(f"/campaigns/{cid}/map?of={city['id']}").text
    assert "Campaign map</a>" in inner and ">City</a>" in inner and "Docks · 5" in inner
    assert client.get(f"/campaigns/{cid}/map?of={district['id']}").status_code == 404


def test_r1_2_sheet_is_a_partial_with_htmx_and_a_page_without(client):
    gm, cid, players, places = running_campaign(client)
    login(client, "player1")
    pid = places[1]["id"]
    partial = client.get(f"/campaigns/{cid}/map/places/{pid}", headers={"HX-Request": "true"})
    assert partial.status_code == 200 and "<html" not in partial.text and "held by player1" in partial.text
    assert "Edit Place 1" not in partial.text  # no GM controls for players
    plain = client.get(f"/campaigns/{cid}/map/places/{pid}", follow_redirects=False)
    assert plain.status_code == 303 and plain.headers["location"].endswith(f"place={pid}#sheet")
    page = client.get(plain.headers["location"].split("#")[0]).text
    assert 'id="sheet"' in page and "held by player1" in page
    assert client.get(f"/campaigns/{cid}/map/places/99999", headers={"HX-Request": "true"}).status_code == 404


def test_r1_2_gm_adds_moves_and_edits_places_from_the_map(client):
    gm, cid, players, places = running_campaign(client)
    login(client, "gamemaster")
    sheet = client.get(f"/campaigns/{cid}/map/new-place?x=33.3&y=66.6", headers={"HX-Request": "true"}).text
    assert 'value="33.3"' in sheet and 'value="66.6"' in sheet
    r = post(
        client,
        f"/campaigns/{cid}/places",
        {"name": "Watchtower", "income": "3", "x": "33.3", "y": "66.6", "next": f"/campaigns/{cid}/map"},
    )
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}/map"
    new = next(p for p in client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json() if p["name"] == "Watchtower")
    r = client.post(
        f"/campaigns/{cid}/places/{new['id']}/move",
        data={"x": "70", "y": "10"},
        headers={"X-CSRF-Token": client.get("/").text.split('name="csrf_token" value="')[1].split('"')[0]},
    )
    assert r.status_code == 204
    moved = next(p for p in client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json() if p["id"] == new["id"])
    assert (moved["x"], moved["y"]) == (70, 10)
    bad = post(client, f"/campaigns/{cid}/places/{new['id']}/move", {"x": "700", "y": "10"})
    assert bad.status_code == 422
    r = post(client, f"/campaigns/{cid}/places", {"name": "", "next": f"/campaigns/{cid}/map"})
    assert r.status_code == 422 and 'class="alert error"' in r.text and "<svg" in r.text
    login_player = post(client, f"/campaigns/{cid}/places/{new['id']}/move", {"x": "1", "y": "1"})
    assert login_player.status_code == 204


def test_r9_7_gm_draws_paths_from_the_sheet_and_players_cannot(client, make_client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, modules={"paths": True})["id"]
    a, b = add_place(client, gm, cid, "Alpha"), add_place(client, gm, cid, "Beta")
    login(client, "gamemaster")
    sheet = client.get(f"/campaigns/{cid}/map/places/{a['id']}", headers={"HX-Request": "true"}).text
    assert "New path to" in sheet and "Beta" in sheet
    r = post(client, f"/campaigns/{cid}/paths", {"from_id": str(a["id"]), "to_id": str(b["id"]), "one_way": "on"})
    assert r.status_code == 303
    page = client.get(f"/campaigns/{cid}/map").text
    assert page.count('class="w o"') == 1
    path_id = client.get(f"/api/v1/campaigns/{cid}/paths", headers=gm).json()[0]["id"]
    again = post(
        client, f"/campaigns/{cid}/paths", {"from_id": str(b["id"]), "to_id": str(a["id"])}, headers={"HX-Request": "true"}
    )
    assert again.status_code == 409 and again.text == "These two places are already joined by a path."
    assert post(client, f"/campaigns/{cid}/paths/{path_id}", {"action": "two_way"}).status_code == 303
    assert 'class="w"' in client.get(f"/campaigns/{cid}/map").text
    assert post(client, f"/campaigns/{cid}/paths/{path_id}/delete", {}).status_code == 303
    assert "<line" not in client.get(f"/campaigns/{cid}/map").text


def test_r9_6_no_path_tools_with_the_module_off(client):
    gm, cid, _players, places = running_campaign(client)
    login(client, "gamemaster")
    page = client.get(f"/campaigns/{cid}/map").text
    assert 'value="path"' not in page
    sheet = client.get(f"/campaigns/{cid}/map/places/{places[0]['id']}", headers={"HX-Request": "true"}).text
    assert "New path to" not in sheet
    r = post(client, f"/campaigns/{cid}/paths", {"from_id": str(places[0]["id"]), "to_id": str(places[1]["id"])})
    assert r.status_code == 409 and "module is off" in r.text


def test_map_image_upload_from_the_page(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    login(client, "gamemaster")
    token = client.get(f"/campaigns/{cid}/map").text.split('name="csrf_token" value="')[1].split('"')[0]
    bad = shown(
        client,
        client.post(
            f"/campaigns/{cid}/map/image",
            data={"csrf_token": token},
            files={"file": ("x.png", b"nope", "image/png")},
            follow_redirects=False,
        ),
    )
    assert bad.status_code == 422 and "not a PNG, JPEG or WebP" in bad.text
    buf = io.BytesIO()
    Image.new("RGB", (800, 400), "white").save(buf, "PNG")
    good = client.post(
        f"/campaigns/{cid}/map/image",
        data={"csrf_token": token},
        files={"file": ("m.png", buf.getvalue(), "image/png")},
        follow_redirects=False,
    )
    assert good.status_code == 303
    page = client.get(f"/campaigns/{cid}/map").text
    assert 'viewBox="0 0 1000 500"' in page and '<image href="/media/' in page


def test_map_page_with_300_places_and_600_paths_is_bounded_and_small(client, engine, count_statements):
    register(client, "gamemaster")
    small = large_campaign.build_map(engine, gm_nickname="gamemaster", places=30, paths=60, players=5)
    large = large_campaign.build_map(engine, gm_nickname="gamemaster", places=300, paths=600, players=20)
    counts, sizes = [], []
    for cid in (small, large):
        with count_statements() as counter:
            r = client.get(f"/campaigns/{cid}/map")
        assert r.status_code == 200
        counts.append(counter.count)
        sizes.append(len(r.text.split("<svg", 1)[1].split("</svg>", 1)[0].encode()))
    assert counts[0] == counts[1] and counts[0] <= 12, counts
    svg = client.get(f"/campaigns/{large}/map").text.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert svg.count('<a id="p') == 300 and svg.count("<line") == 600
    assert sizes[1] < 150_000, sizes


def test_drawn_map_is_kept_until_anything_in_the_campaign_changes(client, make_client, count_statements):
    """Issue 17: an unchanged map is not drawn again (fewer statements, the same SVG); a
    change to the campaign, to another campaign's language or to the viewer's language is."""
    gm, cid, players, places = running_campaign(client)
    browser = make_client()
    login(browser, "player0")
    counts, drawn = [], []
    for _ in range(2):
        with count_statements() as counter:
            page = browser.get(f"/campaigns/{cid}/map").text
        counts.append(counter.count)
        drawn.append(page.split("<svg", 1)[1].split("</svg>", 1)[0] + page.split("Places on this map")[1].split("</ul>")[0])
    assert drawn[0] == drawn[1] and counts[1] <= counts[0] - 4, counts
    r = client.patch(f"/api/v1/campaigns/{cid}/places/{places[2]['id']}", json={"name": "Harbour"}, headers=gm)
    assert r.status_code == 200, r.text
    page = browser.get(f"/campaigns/{cid}/map").text
    assert "Harbour · 5" in page and "Place 2 · 5" not in page
    browser.cookies.set("hideout_lang", "pl")
    polish = browser.get(f"/campaigns/{cid}/map").text
    assert "przychód 5" in polish and "income 5" not in polish

"""One way to handle a form (issue 11, R11.5): page forms are checked by the API's pydantic
schemas with the columns' limits. An invalid value (too long, out of range, not a number, an
id beyond the database) shows the form again with the problem next to its field, named by
its label, keeps what was typed and changes nothing — never a 500."""

from tests.builders.accounts import user
from tests.builders.battles import two_player_battle
from tests.builders.campaigns import campaign_with_players, create_campaign, running_campaign
from tests.builders.companies import buy
from tests.builders.maps import add_place
from tests.builders.pages import login, post, register

HUGE = "100000000000000000000"
TOO_BIG = str(2**31)


# --- warbands -------------------------------------------------------------------------


def _warband_world(client, make_client):
    gm, cid, players, places = running_campaign(client)
    models = buy(client, cid, players[0], "orcs.krusher", "orcs.ax", faction="orcs")
    browser = make_client()
    login(browser, "player0")
    return gm, cid, players, places, models, browser


def test_issue11_a_warband_name_longer_than_its_column_is_refused_next_to_the_name(client, make_client):
    gm, cid, players, _places, models, browser = _warband_world(client, make_client)
    long_name = "W" * 200
    body = {"name": long_name, "model_ids": [str(models[0]["id"]), str(models[1]["id"])], "mercenary": ""}
    r = post(browser, f"/campaigns/{cid}/warbands/save", body)
    assert r.status_code == 422, r.text[:500]
    assert '<p class="field-error" id="w-name-e">Name: This value is too long (at most 80).</p>' in r.text
    assert f'value="{long_name}"' in r.text  # what was typed stays
    assert r.text.count("checked") >= 2  # and the ticked models too
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=players[0]["headers"]).json() == []
    # The edit form too: an existing warband keeps its name.
    saved = post(browser, f"/campaigns/{cid}/warbands/save", {**body, "name": "Raiders"})
    assert saved.status_code == 303
    wid = client.get(f"/api/v1/campaigns/{cid}/warbands", headers=players[0]["headers"]).json()[0]["id"]
    r = post(browser, f"/campaigns/{cid}/warbands/save", {**body, "warband_id": str(wid)})
    assert r.status_code == 422 and "Name: This value is too long (at most 80)." in r.text
    assert f'name="warband_id" value="{wid}"' in r.text
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=players[0]["headers"]).json()[0]["name"] == "Raiders"


def test_issue11_warband_builder_ids_beyond_the_database_are_form_errors(client, make_client):
    gm, cid, players, _places, models, browser = _warband_world(client, make_client)
    for path in ("save", "check"):
        r = post(browser, f"/campaigns/{cid}/warbands/{path}", {"name": "Raiders", "model_ids": [str(models[0]["id"]), HUGE]})
        assert r.status_code == 422, (path, r.status_code)
        assert '<p class="field-error" id="w-models-e">Models: This number must be at most 2147483647.</p>' in r.text
        assert 'value="Raiders"' in r.text
        r = post(browser, f"/campaigns/{cid}/warbands/{path}", {"name": "Raiders", "model_ids": "abc"})
        assert r.status_code == 422 and "Models: Enter a whole number." in r.text
        r = post(browser, f"/campaigns/{cid}/warbands/{path}", {"name": "Raiders", "warband_id": "-1"})
        assert r.status_code == 422 and "Warband: This number must be at least 1." in r.text
    r = post(browser, f"/campaigns/{cid}/warbands/save", {"name": "Raiders", "mercenary": "m" * 121})
    assert r.status_code == 422 and "Mercenary: This value is too long (at most 120)." in r.text
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=players[0]["headers"]).json() == []


def test_issue11_send_target_is_checked_by_a_schema(client, make_client):
    gm, cid, players, places, models, browser = _warband_world(client, make_client)
    r = post(browser, f"/campaigns/{cid}/warbands/save", {"name": "Raiders", "model_ids": [str(m["id"]) for m in models]})
    assert r.status_code == 303
    wid = client.get(f"/api/v1/campaigns/{cid}/warbands", headers=players[0]["headers"]).json()[0]["id"]
    url = f"/campaigns/{cid}/warbands/{wid}/send"
    for target, message in (
        (f"place:{HUGE}", "Destination: This number must be at most 2147483647."),
        ("place:-4", "Destination: This number must be at least 1."),
        ("place:abc", "Destination: Enter a whole number."),
        ("castle:1", "Destination: Choose one of: event or place."),
        ("", "Destination is required."),
    ):
        r = post(browser, url, {"target": target})
        assert r.status_code == 422, (target, r.status_code)
        assert f'<div class="alert error" role="alert">{message}' in r.text, (target, r.text[:2000])
    r = post(browser, url, {})
    assert r.status_code == 422 and "Destination is required." in r.text
    assert client.get(f"/api/v1/campaigns/{cid}/orders", headers=players[0]["headers"]).json() == []


# --- battles --------------------------------------------------------------------------


def test_issue11_battle_forms_refuse_huge_winners_and_a_too_long_reason(client, make_client):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    a = make_client()
    login(a, "player0")
    url = f"/campaigns/{cid}/battles/{bid}"
    for data, message in (
        ({"winner_one": HUGE}, "Winners: This number must be at most 2147483647."),
        ({"winner": ["-1"]}, "Winners: This number must be at least 1."),
        ({"winner": "x"}, "Winners: Enter a whole number."),
        ({"draw": "yes"}, "Draw: Choose one of: 1."),
    ):
        r = post(a, f"{url}/result", {**data, "confirm": "1"})
        assert r.status_code == 422, (data, r.status_code)
        assert f'<div class="alert error" role="alert">{message}</div>' in r.text, data
    reason = "R" * 2001
    r = post(a, f"{url}/dispute", {"reason": reason})
    assert r.status_code == 422
    assert '<p class="field-error" id="e-reason">Reason: This value is too long (at most 2000).</p>' in r.text
    assert f'value="{reason}"' in r.text and "<details open>" in r.text
    r = post(a, f"{url}/dispute", {"reason": "   "})
    assert r.status_code == 422 and '<p class="field-error" id="e-reason">Reason is required.</p>' in r.text
    battle = client.get(f"/api/v1/campaigns/{cid}/battles/{bid}", headers=anna["headers"]).json()
    assert battle["status"] == "announced" and battle["winners"] == [] and battle["dispute_reason"] == ""


# --- accounts -------------------------------------------------------------------------


def test_issue11_account_forms_keep_the_api_limits(client, make_client):
    r = post(client, "/register", {"nickname": "n" * 65, "password": "long enough"}, token_from="/register")
    assert r.status_code == 422
    assert '<p class="field-error" id="e-nickname">Nickname: This value is too long (at most 64).</p>' in r.text
    assert f'value="{"n" * 65}"' in r.text
    r = post(client, "/login", {"nickname": "n" * 65, "password": "x"}, token_from="/login")
    assert r.status_code == 422 and "Nickname: This value is too long (at most 64)." in r.text
    r = post(client, "/login", {"nickname": "anna", "password": "p" * 1025}, token_from="/login")
    assert r.status_code == 422 and "Password: This value is too long (at most 1024)." in r.text and 'value="anna"' in r.text

    register(client, "anna")
    r = post(client, "/account/tokens", {"name": "t" * 81}, token_from="/account")
    assert r.status_code == 422
    assert '<p class="field-error" id="e-name">Token name: This value is too long (at most 80).</p>' in r.text
    assert f'value="{"t" * 81}"' in r.text
    assert "club-bot" in r.text and "Revoke" not in r.text  # no token was made
    r = post(client, "/account/password", {"current": "c" * 1025, "new": "n" * 1025}, token_from="/account")
    assert r.status_code == 422
    assert "Current password: This value is too long (at most 1024)." in r.text
    assert "New password: This value is too long (at most 1024)." in r.text
    # The language switch is a row of buttons: an unknown language changes nothing.
    r = post(client, "/language", {"locale": "xx", "next": "/account"}, token_from="/account")
    assert r.status_code == 303 and r.headers["location"] == "/account" and "hideout_lang" not in r.headers.get("set-cookie", "")


# --- campaigns: the wizard, the dashboard and the players page -------------------------


def test_issue11_wizard_steps_show_each_problem_next_to_its_field_and_keep_what_was_typed(client, make_client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    g = make_client()
    login(g, "gamemaster")
    before = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()
    r = post(g, "/campaigns/new", {"name": "C" * 121, "story": ""}, token_from="/campaigns/new")
    assert (
        r.status_code == 422
        and "Campaign name: This value is too long (at most 120)." in r.text
        and f'value="{"C" * 121}"' in r.text
    )
    step6 = f"/campaigns/{cid}/setup/6"
    r = post(
        g,
        step6,
        {
            "modules_form": "1",
            "module_guilds": "on",
            "battle_size_limit": "x",
            "guild_max_level": "99",
            "guild_entry_fee": HUGE,
            "guild_term": "club",
            "alliance_fee": "-5",
        },
        token_from=step6,
    )
    assert r.status_code == 422
    for message in (
        "Warbands per battle at most: Enter a whole number.",
        "Highest level: This number must be at most 20.",
        "Entry fee: This number must be at most 1000000.",
        "Mission alliance fee: This number must be at least 0.",
    ):  # the campaign's word (R8.2)
        assert f">{message}</p>" in r.text, message
    assert "guild_term" in r.text and "Choose one of:" in r.text
    for kept in (
        'name="battle_size_limit" type="number" value="x"',
        'name="guild_max_level" type="number" value="99"',
        f'name="guild_entry_fee" type="number" value="{HUGE}"',
        'name="alliance_fee" type="number" value="-5"',
        'name="module_guilds" value="on" checked',
    ):
        assert kept in r.text, kept
    step5 = f"/campaigns/{cid}/setup/5"
    r = post(
        g,
        step5,
        {
            "settlement_form": "1",
            "warband_points": "200",
            "die": "50",
            "xp_win": "abc",
            "ranks": "5/x/9",
            "retinue_role_cost": "101",
        },
        token_from=step5,
    )
    assert r.status_code == 422
    for message in (
        "Sides of the casualty die: This number must be at most 20.",
        "Experience for the winning side: Enter a whole number.",
        "Experience for each rank: Enter a whole number.",
        "Points per further role: This number must be at most 100.",
    ):
        assert f">{message}</p>" in r.text, message
    for kept in (
        'name="die" type="number" value="50"',
        'name="xp_win" type="number" value="abc"',
        'name="ranks" type="text" value="5/x/9"',
    ):
        assert kept in r.text, kept
    r = post(g, step5, {"settlement_form": "1", "die": "6", "face_2": "eaten"}, token_from=step5)
    assert r.status_code == 422 and ">Casualty table: Choose one of:" in r.text and "<details open>" in r.text
    r = post(g, f"/campaigns/{cid}/setup/2", {"max_players": TOO_BIG}, token_from=step5)
    assert r.status_code == 422 and ">Number of players: This number must be at most 40.</p>" in r.text
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json() == before


def test_issue11_dashboard_and_players_forms_are_checked_by_the_api_schemas(client, make_client):
    gm, cid, players, places = campaign_with_players(client, 2)
    g = make_client()
    login(g, "gamemaster")
    long_nickname = "n" * 65
    r = post(g, f"/campaigns/{cid}/invitations", {"nickname": long_nickname})
    assert (
        r.status_code == 422
        and "Nickname: This value is too long (at most 64)." in r.text
        and f'value="{long_nickname}"' in r.text
    )
    r = post(g, f"/campaigns/{cid}/invitations", {"nickname": "   "})
    assert r.status_code == 422 and "Nickname is required." in r.text
    r = post(g, f"/campaigns/{cid}/status", {"status": "paused"})
    assert r.status_code == 422 and "Status: Choose one of: hideouts, running or finished." in r.text
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["status"] == "setup"
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm).status_code == 200
    p = make_client()
    login(p, "player0")
    for value, message in (
        (HUGE, "Place: This number must be at most 2147483647."),
        ("abc", "Place: Enter a whole number."),
        ("0", "Place: This number must be at least 1."),
    ):
        r = post(p, f"/campaigns/{cid}/hideouts", {"place_id": value})
        assert r.status_code == 422 and message in r.text, (value, r.status_code)
    assert all(not pl["hideouts"] for pl in client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["players"])


# --- companies and the shop -----------------------------------------------------------


def test_issue11_company_shop_and_reward_forms_refuse_bad_values_in_place(client, make_client):
    gm, cid, players, _places = running_campaign(client)
    anna = players[0]
    models = buy(client, cid, anna, "orcs.krusher", faction="orcs")
    a, g = make_client(), make_client()
    login(a, "player0")
    login(g, "gamemaster")
    gold = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()["gold"]
    r = post(a, f"/campaigns/{cid}/company/faction", {"faction": "f" * 121})
    assert r.status_code == 422 and "Faction: This value is too long (at most 120)." in r.text
    r = post(a, f"/campaigns/{cid}/shop/models", {"profile": "p" * 121, "type": "", "q": "ax"})
    assert r.status_code == 422 and "Model: This value is too long (at most 120)." in r.text and 'value="ax"' in r.text
    r = post(a, f"/campaigns/{cid}/shop/items", {"item": "item.bandages", "q": "q" * 81})
    assert r.status_code == 422 and "Name: This value is too long (at most 80)." in r.text
    item = client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": "item.bandages"}, headers=anna["headers"])
    assert item.status_code == 201, item.text
    iid = item.json()["id"]
    gold = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()["gold"]
    r = post(a, f"/campaigns/{cid}/company/items/{iid}/assign", {"model_id": HUGE})
    assert r.status_code == 422 and "Give to: This number must be at most 2147483647." in r.text
    company = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()
    assert company["gold"] == gold and company["items"][0]["model_id"] is None and len(company["models"]) == len(models)

    r = post(g, f"/campaigns/{cid}/rewards", {"player_id": "abc", "item": "i" * 121, "profile": ""})
    assert r.status_code == 422
    assert '<p class="field-error" id="e-r-player">Player: Enter a whole number.</p>' in r.text
    assert '<p class="field-error" id="e-r-item">Item: This value is too long (at most 120).</p>' in r.text
    r = post(g, f"/campaigns/{cid}/rewards", {"player_id": HUGE, "item": "item.bandages"})
    assert r.status_code == 422 and "Player: This number must be at most 2147483647." in r.text
    assert 'value="item.bandages" selected' in r.text  # the choice made stays chosen
    assert len(client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()["items"]) == 1


# --- events and places ----------------------------------------------------------------


def test_issue11_event_and_place_forms_keep_what_was_typed(client, make_client):
    gm, cid, players, places = running_campaign(client)
    g = make_client()
    login(g, "gamemaster")
    title = "T" * 121
    r = post(g, f"/campaigns/{cid}/events", {"place_id": HUGE, "title": title, "duration": "abc"})
    assert r.status_code == 422
    for message in (
        "Place: This number must be at most 2147483647.",
        "Title: This value is too long (at most 120).",
        "Duration (rounds): Enter a whole number.",
    ):
        assert f">{message}</p>" in r.text, message
    assert f'value="{title}"' in r.text
    r = post(g, f"/campaigns/{cid}/events", {"place_id": str(places[2]["id"]), "title": ""})
    assert r.status_code == 422 and f'<option value="{places[2]["id"]}" selected>' in r.text
    assert client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json() == []

    name = "N" * 81
    r = post(
        g,
        f"/campaigns/{cid}/places",
        {"name": name, "parent_id": "abc", "description": "d" * 20_001, "next": f"/campaigns/{cid}/places"},
    )
    assert r.status_code == 422
    for message in (
        "Name: This value is too long (at most 80).",
        "Lies inside: Enter a whole number.",
        "Description: This value is too long (at most 20000).",
    ):
        assert f">{message}</p>" in r.text, message
    assert f'value="{name}"' in r.text
    r = post(
        g,
        f"/campaigns/{cid}/places/{places[0]['id']}",
        {"name": "Keep", "parent_id": str(places[1]["id"]), "x": "abc", "next": f"/campaigns/{cid}/places"},
    )
    assert r.status_code == 422 and ">Position x (%): Enter a number.</p>" in r.text
    assert f'<option value="{places[1]["id"]}" selected>' in r.text and 'value="Keep"' in r.text
    after = client.get(f"/api/v1/campaigns/{cid}/places", headers=gm).json()
    assert [p["name"] for p in after] == [p["name"] for p in places] and all(p["parent_id"] is None for p in after)


def test_issue11_map_editor_forms_refuse_bad_numbers_without_a_500(client, make_client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, modules={"paths": True})["id"]
    a, b = add_place(client, gm, cid, "A"), add_place(client, gm, cid, "B")
    g = make_client()
    login(g, "gamemaster")
    for data in ({"x": "abc", "y": "5"}, {"x": "500", "y": "5"}, {"x": "nan", "y": "5"}, {"y": "5"}):
        r = post(g, f"/campaigns/{cid}/places/{a['id']}/move", data)
        assert r.status_code == 422 and "Position x (%)" in r.text, (data, r.text)
    for data, message in (
        ({"from_id": str(a["id"]), "to_id": HUGE}, "New path to: This number must be at most 2147483647."),
        ({"from_id": "x", "to_id": str(b["id"])}, "Path: Enter a whole number."),
        ({"from_id": str(a["id"]), "to_id": str(b["id"]), "of": HUGE}, "Map: This number must be at most 2147483647."),
    ):
        r = post(g, f"/campaigns/{cid}/paths", data)
        assert r.status_code == 422 and message in r.text, (data, r.status_code)
    assert client.get(f"/api/v1/campaigns/{cid}/paths", headers=gm).json() == []
    assert post(g, f"/campaigns/{cid}/paths", {"from_id": str(a["id"]), "to_id": str(b["id"])}).status_code == 303
    path_id = client.get(f"/api/v1/campaigns/{cid}/paths", headers=gm).json()[0]["id"]
    r = post(g, f"/campaigns/{cid}/paths/{path_id}", {"action": "sideways"})
    assert r.status_code == 422 and "Path: Choose one of: one_way, two_way or reverse." in r.text
    r = post(g, f"/campaigns/{cid}/paths/{path_id}/delete", {"of": "-3"})
    assert r.status_code == 422 and "Map: This number must be at least 1." in r.text
    assert client.get(f"/api/v1/campaigns/{cid}/paths", headers=gm).json()[0]["one_way"] is False
    # A place form sent from a map that cannot exist comes back on the campaign map.
    r = post(g, f"/campaigns/{cid}/places", {"name": "", "next": f"/campaigns/{cid}/map?of={HUGE}"})
    assert r.status_code == 422 and "Name is required." in r.text

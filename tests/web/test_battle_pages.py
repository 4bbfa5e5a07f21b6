"""Battle pages (R6.5, R6.8, V10): rosters for everyone, results in a few taps."""

from tests.builders.battles import two_player_battle
from tests.builders.companies import buy, warband
from tests.builders.guilds import guild_battle, guild_campaign, make_guild, orders
from tests.builders.pages import login, post


def test_r6_5_r6_8_result_from_the_dashboard_in_two_taps_then_confirmed(client, make_client):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    a, b, g = make_client(), make_client(), make_client()
    login(a, "player0")
    login(b, "player1")
    login(g, "gamemaster")
    dashboard = a.get(f"/campaigns/{cid}").text
    assert f'href="/campaigns/{cid}/battles/{bid}#result"' in dashboard and "Enter the result" in dashboard
    page = a.get(f"/campaigns/{cid}/battles/{bid}").text
    assert "Krusher" in page and "Veteran Sergeant" in page and "player0 won" in page and "Draw" in page
    assert (
        post(a, f"/campaigns/{cid}/battles/{bid}/result", {"winner_one": str(anna["player_id"]), "confirm": "1"}).status_code
        == 303
    )
    assert "Confirm the result" in b.get(f"/campaigns/{cid}").text
    assert "Confirm the result" not in a.get(f"/campaigns/{cid}").text
    assert post(b, f"/campaigns/{cid}/battles/{bid}/confirm").status_code == 303
    page = g.get(f"/campaigns/{cid}/battles/{bid}").text
    assert "Winners: player0" in page and ">confirmed<" in page
    again = post(b, f"/campaigns/{cid}/battles/{bid}/confirm")
    assert again.status_code == 409 and "There is no entered result to confirm." in again.text
    listing = b.get(f"/campaigns/{cid}/battles").text
    assert "orcs band" in listing and "basileans band" in listing


def test_r6_8_dispute_and_gm_decision_through_pages(client, make_client):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    a, g = make_client(), make_client()
    login(a, "player0")
    login(g, "gamemaster")
    assert post(a, f"/campaigns/{cid}/battles/{bid}/result", {"draw": "1", "confirm": "1"}).status_code == 303
    bad = post(a, f"/campaigns/{cid}/battles/{bid}/dispute", {"reason": ""})
    assert bad.status_code == 422
    assert post(a, f"/campaigns/{cid}/battles/{bid}/dispute", {"reason": "Wrong table"}).status_code == 303
    assert "Decide a disputed result" in g.get(f"/campaigns/{cid}").text
    r = post(g, f"/campaigns/{cid}/battles/{bid}/resolve", {"winner": str(borys["player_id"])})
    assert r.status_code == 303
    assert "decided by the game master" in g.get(f"/campaigns/{cid}/battles/{bid}").text
    refused = post(a, f"/campaigns/{cid}/battles/{bid}/resolve", {"winner": str(anna["player_id"])})
    assert refused.status_code == 403


def test_R6_8_confirm_is_offered_only_to_the_other_side_of_an_allied_battle(client, make_client):
    """R6.8 with a guild, 2 v 1: the battle page and the dashboard offer Confirm to the lone
    opponent only, never to the reporter or the reporter's ally; the ally's confirm through the
    page is refused with the reason (English and Polish) and changes nothing."""
    g, battle = guild_battle(client)
    url = f"/campaigns/{g.cid}/battles/{battle['id']}"
    assert g.post(1, f"/battles/{battle['id']}/result", {"winner_player_ids": [g.pid(2)]}).status_code == 200
    browsers = {}
    for i in (1, 2, 3):
        browsers[i] = make_client()
        login(browsers[i], f"player{i}")
    confirm_form = f'action="{url}/confirm"'
    assert confirm_form in browsers[2].get(url).text
    for i in (1, 3):
        page = browsers[i].get(url).text
        assert confirm_form not in page and "Waiting for the other side to confirm." in page
        assert "Confirm the result" not in browsers[i].get(f"/campaigns/{g.cid}").text
    assert "Confirm the result" in browsers[2].get(f"/campaigns/{g.cid}").text
    before = g.get("gm", f"/battles/{battle['id']}").json()
    refused = post(browsers[3], f"{url}/confirm")
    assert refused.status_code == 409 and "Your side entered this result: a player of another side confirms it." in refused.text
    browsers[3].headers["Accept-Language"] = "pl"
    refused = post(browsers[3], f"{url}/confirm")
    assert refused.status_code == 409 and "Ten wynik wpisała twoja strona: potwierdza go gracz innej strony." in refused.text
    assert g.get("gm", f"/battles/{battle['id']}").json() == before
    assert post(browsers[2], f"{url}/confirm").status_code == 303
    assert g.get("gm", f"/battles/{battle['id']}").json()["status"] == "confirmed"


def test_R6_8_with_three_sides_the_page_waits_for_the_other_sides_in_the_readers_language(client, make_client):
    """R6.8 with three sides (a guild of two, two lone players): after the guild's report the
    reporter's ally waits for the other sides, named as sides, not players; Polish too."""
    g, battle = guild_battle(client, 5)
    url = f"/campaigns/{g.cid}/battles/{battle['id']}"
    assert g.post(1, f"/battles/{battle['id']}/result", {"winner_player_ids": [g.pid(1), g.pid(3)]}).status_code == 200
    ally = make_client()
    login(ally, "player3")
    assert "Waiting for the other sides to confirm." in ally.get(url).text
    ally.headers["Accept-Language"] = "pl"
    assert "Czekamy na potwierdzenie pozostałych stron." in ally.get(url).text


def test_V10_the_battle_page_tells_underdog_once_per_side(client, make_client):
    """V10: the side's total and its Underdog are told once for a side of allies, not per
    warband. Allies of 46 + 46 = 92 face a 97-point warband: the allies' side gets 5 points,
    the lone warband nothing."""
    g = guild_campaign(client, 4)
    make_guild(g, 0, 1, 3)
    for i in (1, 3):
        g.band(i)
    models = buy(
        client,
        g.cid,
        g.players[2],
        "undead.crypt-gouger",
        *["undead.skeleton"] * 3,
        *["undead.armoured-zombie-orc"] * 4,
        faction="undead",
    )
    g.players[2]["band"] = warband(client, g.cid, g.players[2], models, "big band")
    orders(g, p1=("place", 4), p2=("place", 4), p3=("place", 4))
    g.phase("battles")
    [battle] = g.battles()
    sides = {tuple(s["player_ids"]): (s["points"], s["bonus_points"], s["underdog_dice"]) for s in battle["sides"]}
    assert sides == {tuple(sorted([g.pid(1), g.pid(3)])): (92, 5, 0), (g.pid(2),): (97, 0, 0)}
    browser = make_client()
    login(browser, "player2")
    page = browser.get(f"/campaigns/{g.cid}/battles/{battle['id']}").text
    assert page.count('class="small underdog"') == 1
    # No dice below a die's worth of points: the line says only what the side gets.
    assert "Underdog: 5 points for a bonus model. The side's players share them as they agree." in page
    assert "0 dice" not in page
    assert "92 pts" in page

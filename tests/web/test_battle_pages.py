"""Battle pages (R6.5, R6.8): rosters for everyone, results in a few taps."""
from tests.api.test_battles_api import two_player_battle
from tests.web.helpers import login, post


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
    assert post(a, f"/campaigns/{cid}/battles/{bid}/result", {"winner_one": str(anna["player_id"]), "confirm": "1"}).status_code == 303
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

"""The battle clock's pages (issue 18): the card on the battle page, taps as forms that
redirect (and refuse a double tap), the end asked first, read-only for those not playing, and
the settings on the Rules tab."""

from __future__ import annotations

import html
import re

from tests.builders.battles import battles, campaign_with_warbands
from tests.builders.pages import flash_of, login, post, prg
from tests.builders.rounds import event, send, to_phase


def _battle(client, with_onlooker: bool = False):
    """Two players' warbands meet; with `with_onlooker`, a third player stays at home."""
    gm, cid, players, places = campaign_with_warbands(client, 3 if with_onlooker else 2)
    to_phase(client, gm, cid, "orders")
    for p in players[:2]:
        send(client, cid, p, place_id=places[-1]["id"])
    to_phase(client, gm, cid, "battles")
    return gm, cid, players, battles(client, cid, gm)[0]


def _clock(client, cid, battle, headers) -> dict:
    return client.get(f"/api/v1/campaigns/{cid}/battles/{battle['id']}/clock", headers=headers).json()


def _version(page: str) -> str:
    return re.search(r'id="clock"[^>]*data-version="(\d+)"', page).group(1)


def test_issue18_players_start_and_pass_the_clock_with_forms_and_a_double_tap_passes_once(client, make_client):
    gm, cid, players, b = _battle(client)
    url = f"/campaigns/{cid}/battles/{b['id']}"
    a = make_client()
    login(a, "player0")
    page = a.get(url).text
    assert "Battle clock" in page and "Who plays first?" in page and "orcs band starts" in page
    second = str(b["sides"][1]["side"])
    prg(a, f"{url}/clock", {"action": "start", "side": second, "version": _version(page)}, says="The clock runs.")
    running = _clock(client, cid, b, gm)
    assert running["status"] == "running" and running["running_side"] == b["sides"][1]["side"]
    page = a.get(url).text
    # One phone lying on the table serves both players: either may tap the running side's clock.
    assert "basileans band is done: pass the clock" in page and "playing — tap when done" in page
    bo = make_client()
    login(bo, "player1")
    page = bo.get(url).text
    stale = _version(page)
    assert 'class="clock-tap"' in page
    prg(bo, f"{url}/clock", {"action": "switch", "version": stale}, says="Passed to the next side.")
    # The same tap again (a double tap, or a refresh that re-posts): refused, nothing changes.
    before = _clock(client, cid, b, gm)
    again = post(bo, f"{url}/clock", {"action": "switch", "version": stale})
    assert again.status_code == 409 and "The clock changed meanwhile" in again.text
    assert _clock(client, cid, b, gm) == {**before, "sides": again_sides(client, cid, b, gm, before)}
    assert before["running_side"] == b["sides"][0]["side"]


def again_sides(client, cid, b, gm, before):
    """The running side's remaining time moves on by itself; everything else must not change."""
    now = _clock(client, cid, b, gm)
    assert [s["side"] for s in now["sides"]] == [s["side"] for s in before["sides"]]
    return now["sides"]


def test_issue18_ending_the_game_asks_first_and_is_kept_in_the_chronicle(client, make_client):
    gm, cid, players, b = _battle(client)
    url = f"/campaigns/{cid}/battles/{b['id']}"
    a = make_client()
    login(a, "player0")
    prg(a, f"{url}/clock", {"action": "start"}, says="The clock runs.")
    ask = post(a, f"{url}/clock", {"action": "end"})
    assert ask.status_code == 200 and "End the game now?" in ask.text
    assert _clock(client, cid, b, gm)["status"] == "running"
    prg(a, f"{url}/clock", {"action": "end", "confirm": "1"}, says="The game is over; the clock has stopped.")
    page = a.get(url).text
    assert "game over" in page and "ended at the table" in page and "Pause" not in page
    chronicle = a.get(f"/campaigns/{cid}/chronicle").text
    assert "the game ended in turn 1: ended at the table" in chronicle


def test_issue18_a_player_not_in_the_battle_sees_the_clock_but_cannot_run_it(client, make_client):
    gm, cid, players, b = _battle(client, with_onlooker=True)
    url = f"/campaigns/{cid}/battles/{b['id']}"
    a = make_client()
    login(a, "player0")
    prg(a, f"{url}/clock", {"action": "start"}, says="The clock runs.")
    c = make_client()
    login(c, "player2")
    page = c.get(url).text
    assert "Battle clock" in page and f'action="{url}/clock"' not in page
    before = _clock(client, cid, b, gm)
    refused = post(c, f"{url}/clock", {"action": "pause"})
    assert refused.status_code == 403 and "Only the battle's players and the game master" in html.unescape(refused.text)
    assert _clock(client, cid, b, gm)["status"] == before["status"] == "running"


def test_issue18_bad_taps_get_a_clear_error_in_the_users_language(client, make_client):
    gm, cid, players, b = _battle(client)
    url = f"/campaigns/{cid}/battles/{b['id']}"
    a = make_client()
    login(a, "player0")
    bad = post(a, f"{url}/clock", {"action": "explode"})
    assert bad.status_code == 422 and 'class="alert error"' in bad.text
    early = post(a, f"{url}/clock", {"action": "pause"})
    assert early.status_code == 409 and "Start the clock first." in early.text
    a.cookies.set("hideout_lang", "pl")
    polish = post(a, f"{url}/clock", {"action": "pause"})
    assert polish.status_code == 409 and "Start the clock first." not in polish.text
    assert _clock(client, cid, b, gm)["status"] == "ready"


def test_issue18_gm_sets_the_clock_on_the_rules_tab_and_an_event_overrides_it(client, make_client):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    ev = event(client, gm, cid, places[0]["id"], "Night raid")
    g = make_client()
    login(g, "gamemaster")
    rules = g.get(f"/campaigns/{cid}/rules").text
    assert "Battle clock" in rules and "no time limit · 6 turns · one more on 4+" in rules
    prg(
        g,
        f"/campaigns/{cid}/clock-settings",
        {"minutes_per_side": "45", "max_turns": "5", "extra_turn_on": "none"},
        says="The battle clock is set.",
        token_from=f"/campaigns/{cid}/rules",
    )
    assert client.get(f"/api/v1/campaigns/{cid}/clock-settings", headers=gm).json() == {
        "minutes_per_side": 45,
        "max_turns": 5,
        "extra_turn_on": None,
    }
    bad = post(g, f"/campaigns/{cid}/clock-settings", {"minutes_per_side": "0", "max_turns": "5"})
    assert bad.status_code == 422 and "Minutes per side" in bad.text
    assert client.get(f"/api/v1/campaigns/{cid}/clock-settings", headers=gm).json()["minutes_per_side"] == 45
    prg(
        g,
        f"/campaigns/{cid}/events/{ev['id']}/clock-settings",
        {"own": "on", "minutes_per_side": "20", "max_turns": "4", "extra_turn_on": "5"},
        says="Night raid has its own battle clock.",
    )
    assert "20 minutes per side · 4 turns · one more on 5+" in g.get(f"/campaigns/{cid}/rules").text
    prg(g, f"/campaigns/{cid}/events/{ev['id']}/clock-settings", {}, says="Night raid uses the campaign's battle clock.")
    p = make_client()
    login(p, "player0")
    shown = p.get(f"/campaigns/{cid}/rules").text
    assert "45 minutes per side · 5 turns · no extra turn" in shown and "Change the battle clock" not in shown
    refused = post(p, f"/campaigns/{cid}/clock-settings", {"minutes_per_side": "5", "max_turns": "5"})
    assert refused.status_code == 403 and flash_of(refused.text) is None
    assert client.get(f"/api/v1/campaigns/{cid}/clock-settings", headers=gm).json()["minutes_per_side"] == 45

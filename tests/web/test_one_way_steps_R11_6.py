"""Issue 29 items 3 and 5 (SPEC R11.6, R1.6, R2.1, R4.6, R5.5, R7.1): one-way steps ask first and
say what they do — with JavaScript a dialog (the button's data-confirm texts), without it the
server's own confirm page, which a post without confirm=1 answers having changed nothing; Log
out sits in the account menu, out of the sticky header's tap zone; and "What to do now" is
worked out from the state when the page is drawn, so a step done is never still asked for."""

from __future__ import annotations

import html
import re

from app.campaigns import rules
from tests.builders.accounts import user
from tests.builders.battles import two_fight_one_watches
from tests.builders.campaigns import campaign_with_players, create_campaign, join, running_campaign
from tests.builders.companies import buy, warband
from tests.builders.pages import login, post
from tests.builders.rounds import event, to_phase
from tests.builders.settlements import play_round


def _confirm_form(page: str) -> dict[str, str]:
    """The server's confirm step: its action and hidden fields (confirm=1 among them)."""
    form = page.split('class="card confirm-step"', 1)[1].split("</form>", 1)[0]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    for kept_by_the_session in ("csrf_token", "once"):
        fields.pop(kept_by_the_session, None)
    fields["action"] = re.search(r'action="([^"]+)"', form).group(1)
    return fields


def _browser(make_client, nickname: str, language: str | None = None):
    b = make_client()
    login(b, nickname)
    if language:
        b.headers["Accept-Language"] = language
    return b


# --- item 3: the confirm steps -----------------------------------------------------------------


def test_R11_6_R1_6_start_the_campaign_asks_first(client, make_client):
    gm, cid, players, places = campaign_with_players(client, 2)
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm).status_code == 200
    for p, place in zip(players, places):
        assert (
            client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": place["id"]}, headers=p["headers"]).status_code
            == 201
        )
    b = _browser(make_client, "gamemaster")
    assert 'data-confirm="Start the campaign?"' in b.get(f"/campaigns/{cid}").text  # the dialog's question
    polish = _browser(make_client, "gamemaster", "pl")
    assert 'data-confirm="Rozpocząć kampanię?"' in polish.get(f"/campaigns/{cid}").text
    ask = post(b, f"/campaigns/{cid}/status", {"status": "running"})
    assert ask.status_code == 200 and "Start the campaign?" in ask.text
    assert "Round 1 begins with Preparation and hideout selection closes. This cannot be undone." in ask.text
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["status"] == "hideouts"  # nothing changed
    form = _confirm_form(ask.text)
    assert form == {"action": f"/campaigns/{cid}/status", "status": "running", "confirm": "1"}
    assert post(b, form.pop("action"), form).status_code == 303
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["status"] == "running"
    assert 'data-confirm="Start the campaign?"' not in b.get(f"/campaigns/{cid}").text  # started: no longer offered


def test_R11_6_R2_2_open_settlement_asks_first_in_english_and_polish(client, make_client):
    gm, cid, players, battle = two_fight_one_watches(client)
    b = _browser(make_client, "gamemaster")
    assert 'data-confirm="Open Settlement?"' in b.get(f"/campaigns/{cid}").text
    ask = post(b, f"/campaigns/{cid}/phase", {"phase": "settlement"})
    assert ask.status_code == 200 and "Open Settlement?" in ask.text and "There is no way back to Battles." in ask.text
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["phase"] == "battles"
    pl = _browser(make_client, "gamemaster", "pl")
    assert "Otworzyć fazę Rozliczenie?" in post(pl, f"/campaigns/{cid}/phase", {"phase": "settlement"}).text
    form = _confirm_form(ask.text)
    assert form == {"action": f"/campaigns/{cid}/phase", "phase": "settlement", "confirm": "1"}
    assert post(b, form.pop("action"), form).status_code == 303
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["phase"] == "settlement"
    # A refused step is refused at once, without asking (R11.5).
    assert post(_browser(make_client, "player0"), f"/campaigns/{cid}/phase", {"phase": "twilight"}).status_code == 403


def _orders(client, gm, cid) -> list[dict]:
    return client.get(f"/api/v1/campaigns/{cid}/orders", headers=gm).json()


def test_R11_6_R4_6_send_the_warband_asks_and_says_only_the_gm_can_undo_it(client, make_client):
    gm, cid, players, places = running_campaign(client)
    anna = players[0]
    band = warband(client, cid, anna, buy(client, cid, anna, "orcs.krusher", "orcs.ax", faction="orcs"))
    ev = event(client, gm, cid, places[2]["id"], "Ambush")
    to_phase(client, gm, cid, "orders")
    b = _browser(make_client, "player0")
    url = f"/campaigns/{cid}/warbands/{band['id']}/send"
    page = b.get(url).text
    assert 'data-confirm="Send Raiders?"' in page
    assert 'data-confirm-detail="The warband is final for this round: only the game master can undo the order."' in page
    ask = post(b, url, {"target": f"event:{ev['id']}"})
    assert ask.status_code == 200 and "Send Raiders to Ambush · Place 2?" in html.unescape(ask.text)
    assert "only the game master can undo the order" in ask.text
    assert _orders(client, gm, cid) == []  # only rehearsed
    form = _confirm_form(ask.text)
    assert form == {"action": url, "target": f"event:{ev['id']}", "confirm": "1"}
    assert post(b, form.pop("action"), form).status_code == 303
    assert [o["warband_id"] for o in _orders(client, gm, cid)] == [band["id"]]
    # A refused send says why at once, without asking; nothing changes.
    again = post(b, url, {"target": f"place:{places[1]['id']}"})
    assert again.status_code == 409 and "confirm-step" not in again.text and len(_orders(client, gm, cid)) == 1
    pl = _browser(make_client, "player1", "pl")
    other = buy(client, cid, players[1], "basileans.veteran-sergeant", "basileans.man-at-arms", faction="basileans")
    theirs = warband(client, cid, players[1], other, "Guard")
    asked = post(pl, f"/campaigns/{cid}/warbands/{theirs['id']}/send", {"target": f"place:{places[0]['id']}"}).text
    assert "Wysłać bandę Guard do: Place 0?" in asked and "rozkaz może cofnąć tylko prowadzący" in asked


def test_R11_6_R5_5_end_the_event_asks_with_and_without_javascript_and_counts_the_orders(client, make_client):
    gm, cid, players, places = running_campaign(client)
    anna = players[0]
    band = warband(client, cid, anna, buy(client, cid, anna, "orcs.krusher", "orcs.ax", faction="orcs"))
    quiet, busy = (event(client, gm, cid, places[2]["id"], t) for t in ("Storm", "Fair"))
    to_phase(client, gm, cid, "orders")
    g = _browser(make_client, "gamemaster")
    end = f"/campaigns/{cid}/events/{{}}/end"
    # No order at it: the dialog and the confirm page still ask (it cannot be undone).
    page = g.get(f"/campaigns/{cid}/events").text
    assert 'data-confirm="End the event Storm?"' in page and 'name="undoes" value="0"' in page
    ask = post(g, end.format(quiet["id"]), {"undoes": "0"})
    assert ask.status_code == 200 and "End the event Storm?" in ask.text and "No sent order is undone." in ask.text
    assert len(client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()) == 2
    form = _confirm_form(ask.text)
    assert form == {"action": end.format(quiet["id"]), "confirm": "1"}
    assert post(g, form.pop("action"), form).status_code == 303
    assert [e["title"] for e in client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()] == ["Fair"]
    # The GM's page drawn before an order came: the dialog said 0; the server asks again with 1.
    stale = g.get(f"/campaigns/{cid}/events").text
    assert 'data-confirm="End the event Fair?"' in stale
    r = client.put(f"/api/v1/campaigns/{cid}/warbands/{band['id']}/order", json={"event_id": busy["id"]}, headers=anna["headers"])
    assert r.status_code == 200, r.text
    asked = post(g, end.format(busy["id"]), {"undoes": "0", "confirm": "1"})
    assert asked.status_code == 200 and "This undoes 1 sent order. Continue?" in asked.text
    assert len(_orders(client, gm, cid)) == 1 and len(client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()) == 1
    # Drawn now, the dialog says the count; with it confirmed (JavaScript), the event ends at once.
    page = g.get(f"/campaigns/{cid}/events").text
    assert 'data-confirm="This undoes 1 sent order. Continue?"' in page and 'name="undoes" value="1"' in page
    assert post(g, end.format(busy["id"]), {"undoes": "1", "confirm": "1"}).status_code == 303
    assert _orders(client, gm, cid) == [] and client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json() == []


def test_R11_6_log_out_sits_in_the_account_menu_not_in_the_header(client, make_client):
    user(client, "anna")
    b = _browser(make_client, "anna")
    page = b.get("/").text
    header = page.split('<header class="top">', 1)[1].split("</header>", 1)[0]
    menu = header.split('<details class="account-menu">', 1)[1].split("</details>", 1)[0]
    outside = header.replace(menu, "")
    assert 'action="/logout"' in menu and 'action="/logout"' not in outside
    assert (
        'href="/account"' in menu
        and 'action="/language"' in menu
        and "<summary" in menu
        and '<summary>anna<span class="sr-only"> · Account menu</span></summary>' in menu
    )
    assert "Log out" in menu and "Account" in menu
    polish = _browser(make_client, "anna", "pl").get("/").text
    assert '<span class="sr-only"> · Menu konta</span></summary>' in polish
    # Without an account there is no menu: Log in, Register and the language stay in the header.
    anonymous = make_client().get("/login").text.split('<header class="top">', 1)[1].split("</header>", 1)[0]
    assert "account-menu" not in anonymous and 'href="/login"' in anonymous and 'action="/language"' in anonymous


# --- item 5: "What to do now" from the state at render time ---------------------------------------


def _todo(browser, cid: int) -> str:
    page = browser.get(f"/campaigns/{cid}").text
    return html.unescape(page.split('id="todo-h"', 1)[1].split("</ul>", 1)[0])


def test_R1_6_R3_1_what_to_do_now_stops_asking_for_a_faction_once_the_company_is_confirmed(client, make_client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    anna = join(client, gm, cid, "anna")
    b = _browser(make_client, "anna")
    assert "choose your faction" in _todo(b, cid)
    buy(client, cid, anna, "orcs.krusher", "orcs.ax", faction="orcs")
    todo = _todo(b, cid)
    assert "choose your faction" not in todo and "confirm your company when it is ready" in todo
    assert client.post(f"/api/v1/campaigns/{cid}/company/confirm", headers=anna["headers"]).status_code == 200
    todo = _todo(b, cid)
    assert "faction" not in todo and "confirm your company" not in todo
    assert "The game master is preparing the campaign." in todo
    assert "zatwierdź kompanię" not in _todo(_browser(make_client, "anna", "pl"), cid)


def test_R2_1_what_to_do_now_in_orders_once_every_warband_is_sent(client, make_client):
    gm, cid, players, places = running_campaign(client)
    anna = players[0]
    band = warband(client, cid, anna, buy(client, cid, anna, "orcs.krusher", "orcs.ax", faction="orcs"))
    to_phase(client, gm, cid, "orders")
    b = _browser(make_client, "player0")
    assert "Send your warbands" in _todo(b, cid)
    assert (
        client.put(
            f"/api/v1/campaigns/{cid}/warbands/{band['id']}/order", json={"place_id": places[2]["id"]}, headers=anna["headers"]
        ).status_code
        == 200
    )
    todo = _todo(b, cid)
    assert "Send your warbands" not in todo and "Every warband of yours is sent." in todo
    # The GM undoes it: asked again.
    assert client.delete(f"/api/v1/campaigns/{cid}/warbands/{band['id']}/order", headers=gm).status_code == 204
    assert "Send your warbands" in _todo(b, cid)


def test_R6_8_what_to_do_now_in_battles_once_the_results_are_in(client, make_client):
    gm, cid, players, battle = two_fight_one_watches(client)
    p0, g = _browser(make_client, "player0"), _browser(make_client, "gamemaster")
    assert "enter the results" in _todo(p0, cid) and "Open Settlement when the results are in." in _todo(g, cid)
    url = f"/api/v1/campaigns/{cid}/battles/{battle['id']}"
    client.post(f"{url}/result", json={"winner_player_ids": [players[0]["player_id"]]}, headers=players[0]["headers"])
    assert "Nothing waits for you in Battles now." in _todo(p0, cid)  # the reporter waits; nothing to do
    assert "Open Settlement when the results are in." in _todo(g, cid)  # not confirmed yet
    assert client.post(f"{url}/confirm", headers=players[1]["headers"]).status_code == 200
    assert "Every result is in: open Settlement." in _todo(g, cid)
    assert "Wszystkie wyniki są wpisane" in _todo(_browser(make_client, "gamemaster", "pl"), cid)


def test_R7_1_what_to_do_now_stops_saying_settle_once_the_settlement_is_closed(client, make_client):
    rnd = play_round(client)
    p0, g = _browser(make_client, "player0"), _browser(make_client, "gamemaster")
    assert "Settle injuries" in _todo(p0, rnd.cid) and "Players settle their battles." in _todo(g, rnd.cid)
    assert rnd.close(0).status_code == 200
    todo = _todo(p0, rnd.cid)
    assert "Settle injuries" not in todo and "Nothing is left for you to settle." in todo
    assert "Players settle their battles." in _todo(g, rnd.cid)  # player1 has not closed yet
    assert rnd.close(1).status_code == 200
    assert "Every settlement is closed: open Twilight." in _todo(g, rnd.cid)
    # The GM reopens it: the player is asked again.
    assert client.post(rnd.url(0) + "/reopen", headers=rnd.gm).status_code == 200
    assert "Settle injuries" in _todo(p0, rnd.cid) and "Players settle their battles." in _todo(g, rnd.cid)


def test_issue29_the_advice_rules_turn_a_done_step_into_its_done_line():
    """R2.1: the pure rule, for every phase line that has a done form."""
    common = dict(setup_complete=True, wizard_step=6, players=2, flagged_places=3, has_hideout=False, all_have_hideouts=False)
    for key, step in rules.STEPS_DONE.items():
        is_gm, phase = key.startswith("gm_"), key.split("_", 1)[1]
        assert rules.advice(status="running", phase=phase, is_gm=is_gm, **common) == [(key, {})]
        assert rules.advice(status="running", phase=phase, is_gm=is_gm, done=frozenset({step}), **common) == [(key + "_done", {})]
        assert key + "_done" in rules.ADVICE_TEXTS
    shop = dict(common, is_player=True)
    assert ("player_shop_open", {}) in rules.advice(status="setup", phase=None, is_gm=False, **shop)
    assert ("player_confirm_company", {}) in rules.advice(
        status="setup", phase=None, is_gm=False, done=frozenset({"faction_chosen"}), **shop
    )
    assert rules.advice(
        status="setup", phase=None, is_gm=False, done=frozenset({"faction_chosen", "company_confirmed"}), **shop
    ) == [("player_wait_setup", {})]

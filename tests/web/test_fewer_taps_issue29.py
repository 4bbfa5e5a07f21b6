"""Issue 29's tap bounds, on the server's side: a result is entered from the dashboard's
to-do entry (R6.8: its winner buttons post to the battle's result route and ask first), a
live toast offers the players asked to confirm a Confirm form and a link (R6.8, R11.4), and
the builder has one tick for every model that can fight (R4.7: never one that cannot)."""

from __future__ import annotations

import re

from sqlmodel import Session

from app.companies.models import CompanyModel
from tests.api.live_helpers import listen, stream_server
from tests.builders.battles import two_fight_one_watches
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.pages import login, post


def _todo(page: str) -> str:
    """The dashboard's battle to-do list ('' when there is none)."""
    found = re.search(r'<ul class="plain battle-todo">(.*?)</ul>', page, re.S)
    return found.group(1) if found else ""


def test_R6_8_issue29_the_dashboard_offers_the_winner_buttons_of_a_battle_waiting_for_my_result(client, make_client):
    """R6.8, issue 29 (enter a result in 2 taps from the dashboard): each player of the battle
    gets, in its to-do entry, one button per side and Draw, posting to the battle's result
    route with the battle page's confirm step; an onlooker gets none. Without confirm=1 the
    post only asks and changes nothing; once entered, the buttons are gone and a second
    entry is refused and changes nothing."""
    gm, cid, players, battle = two_fight_one_watches(client)
    bid, url = battle["id"], f"/campaigns/{cid}/battles/{battle['id']}"
    browsers = {}
    for i in range(3):
        browsers[i] = make_client()
        login(browsers[i], f"player{i}")
    for i in (0, 1):
        todo = _todo(browsers[i].get(f"/campaigns/{cid}").text)
        assert todo.count(f'action="{url}/result"') == 3, todo  # two sides and a draw
        for j in (0, 1):
            assert f'<input type="hidden" name="winner" value="{players[j]["player_id"]}">' in todo
            assert f">player{j} won</button>" in todo and f'data-confirm="player{j} won?"' in todo
        assert 'name="draw" value="1"' in todo and 'data-confirm="A draw?"' in todo
        assert 'name="csrf_token"' in todo and 'name="once"' in todo
        assert f'href="{url}#result"' in todo  # the battle page is still one tap away
    browsers[0].headers["Accept-Language"] = "pl"
    polish = _todo(browsers[0].get(f"/campaigns/{cid}").text)
    assert ">Wygrywa player0</button>" in polish and ">Remis</button>" in polish, polish
    browsers[0].headers["Accept-Language"] = "en"
    assert f'action="{url}/result"' not in browsers[2].get(f"/campaigns/{cid}").text
    before = client.get(f"/api/v1/campaigns/{cid}/battles/{bid}", headers=gm).json()
    asked = post(browsers[0], f"{url}/result", {"winner": str(players[0]["player_id"])})
    assert asked.status_code == 200 and "player0 won?" in asked.text  # the server's confirm page
    assert client.get(f"/api/v1/campaigns/{cid}/battles/{bid}", headers=gm).json() == before
    done = post(browsers[0], f"{url}/result", {"winner": str(players[0]["player_id"]), "confirm": "1"})
    assert done.status_code == 303 and done.headers["location"] == f"{url}#result"
    after = client.get(f"/api/v1/campaigns/{cid}/battles/{bid}", headers=gm).json()
    assert (after["status"], after["winners"]) == ("reported", [players[0]["player_id"]])
    for i in (0, 1):
        assert f'action="{url}/result"' not in browsers[i].get(f"/campaigns/{cid}").text
    refused = post(browsers[1], f"{url}/result", {"draw": "1", "confirm": "1"})
    assert refused.status_code == 409
    assert client.get(f"/api/v1/campaigns/{cid}/battles/{bid}", headers=gm).json() == after


def test_R6_8_R11_4_issue29_the_toast_offers_confirm_to_the_players_asked_only(client, make_client, listen):
    """R6.8, R11.4, issue 29 (confirm in 1 tap from a live toast): the event telling the
    opponent that a result waits carries what the toast offers — the battle's confirm route
    and its page, in the reader's words; the reporter, an onlooker and the GM get no offer.
    The reporter posting the offered form is refused and nothing changes; the opponent's
    post confirms."""
    gm, cid, players, battle = two_fight_one_watches(client)
    url = f"/campaigns/{cid}/battles/{battle['id']}"
    opponent = listen(cid, players[1]["headers"])
    polish = listen(cid, {**players[1]["headers"], "Accept-Language": "pl"})
    others = [listen(cid, h) for h in (players[0]["headers"], players[2]["headers"], gm)]
    r = client.post(f"/api/v1{url}/result", json={"winner_player_ids": [players[0]["player_id"]]}, headers=players[0]["headers"])
    assert r.status_code == 200, r.text
    ask = opponent.next().data["ask"]
    assert ask == {"post": f"{url}/confirm", "post_label": "Confirm", "open": f"{url}#result", "open_label": "Open"}
    told = polish.next().data
    assert told["message"].startswith("Wynik czeka na twoje potwierdzenie")  # the reader's language
    assert (told["ask"]["post_label"], told["ask"]["open_label"]) == ("Potwierdź", "Otwórz")
    for stream in others:
        ev = stream.next()
        assert (ev.kind, ev.data["status"]) == ("result", "reported") and "ask" not in ev.data, ev
    reporter, confirmer = make_client(), make_client()
    login(reporter, "player0")
    login(confirmer, "player1")
    before = client.get(f"/api/v1{url}", headers=gm).json()
    assert post(reporter, ask["post"]).status_code == 409
    assert client.get(f"/api/v1{url}", headers=gm).json() == before
    done = post(confirmer, ask["post"])
    assert done.status_code == 303 and done.headers["location"] == f"{url}#result"
    assert client.get(f"/api/v1{url}", headers=gm).json()["status"] == "confirmed"


def test_R4_7_issue29_the_builder_ticks_every_model_that_can_fight_in_one_tap(client, make_client, engine):
    """R4.7, issue 29 (build and send 9 models in 12 taps): the builder has one tick for the
    whole company (shown by its script); a model that cannot fight is marked so the tick
    leaves it, and one in another warband stays disabled. Saving a model that is in another
    warband is still refused and saves nothing."""
    gm, cid, players, places = running_campaign(client, 2)
    p = players[0]
    models = buy(client, cid, p, "orcs.krusher", "orcs.ax", "orcs.ax", "orcs.ax", "orcs.ax", faction="orcs")
    band = warband(client, cid, p, models[:2], name="Elsewhere")
    with Session(engine) as s:
        hurt = s.get(CompanyModel, models[2]["id"])
        hurt.status = "miss_next"
        s.add(hurt)
        s.commit()
    browser = make_client()
    login(browser, "player0")
    page = browser.get(f"/campaigns/{cid}/warbands/new").text
    assert re.search(r'<label class="pick-model pick-all" data-pick-all hidden><input type="checkbox">', page)
    assert "Every model that can fight" in page
    boxes = dict(re.findall(r'<input type="checkbox" name="model_ids" value="(\d+)"([^>]*)>', page))
    assert "disabled" in boxes[str(models[0]["id"])] and "disabled" in boxes[str(models[1]["id"])]
    assert "data-unfit" in boxes[str(models[2]["id"])]
    assert all("data-unfit" not in boxes[str(m["id"])] and "disabled" not in boxes[str(m["id"])] for m in models[3:])
    browser.headers["Accept-Language"] = "pl"
    assert "Wszystkie modele zdolne do walki" in browser.get(f"/campaigns/{cid}/warbands/new").text
    before = client.get(f"/api/v1/campaigns/{cid}/warbands", headers=p["headers"]).json()
    refused = post(browser, f"/campaigns/{cid}/warbands/save", {"name": "All in", "model_ids": [str(m["id"]) for m in models]})
    assert refused.status_code >= 400
    assert client.get(f"/api/v1/campaigns/{cid}/warbands", headers=p["headers"]).json() == before
    assert band["id"] in [w["id"] for w in (before["items"] if isinstance(before, dict) else before)]

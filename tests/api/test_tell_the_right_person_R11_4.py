"""Issue 29 item 4 (R11.4, R6.8, R4.6, R7.1, V12): each live message reaches the one it
concerns, and says what happened. The reporter is never asked to confirm their own result; a
result the GM decided says so; a player hears at once when the GM undoes their order or
reopens their settlement; the captor hears that a prisoner waits for their price; reopening a
settlement keeps a refused ransom refused. Silence is checked in order: after the secret, the
GM sets a deadline (a public "phase" event), and an onlooker's next event must be that one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import Session, select

from app.companies.models import CompanyModel
from app.settlement.models import Ransom
from tests.api.live_helpers import listen, stream_server
from tests.builders.battles import two_fight_one_watches
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.pages import login
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase
from tests.builders.settlements import close_all, play_round


def _public_marker(client, cid: int, gm: dict) -> None:
    ends_at = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0).isoformat()
    r = client.put(f"/api/v1/campaigns/{cid}/deadline", json={"ends_at": ends_at, "auto_advance": False}, headers=gm)
    assert r.status_code == 200, r.text


def _next_is_marker(stream) -> None:
    ev = stream.next()
    assert (ev.kind, ev.data.get("step")) == ("phase", "deadline"), ev


def test_R11_4_R6_8_the_reporter_is_never_asked_to_confirm_their_own_result(client, listen):
    gm, cid, players, battle = two_fight_one_watches(client)
    reporter, opponent = listen(cid, players[0]["headers"]), listen(cid, players[1]["headers"])
    url = f"/api/v1/campaigns/{cid}/battles/{battle['id']}"
    r = client.post(f"{url}/result", json={"winner_player_ids": [players[0]["player_id"]]}, headers=players[0]["headers"])
    assert r.status_code == 200, r.text
    assert opponent.next().data["message"] == "A result waits for your confirmation: the battle at Place 3."
    mine = reporter.next()
    assert (mine.kind, mine.data["status"], mine.data["message"]) == ("result", "reported", None)
    # Nor may they confirm it: refused, and nothing changes.
    r = client.post(f"{url}/confirm", headers=players[0]["headers"])
    assert r.status_code in (403, 409) and client.get(url, headers=gm).json()["status"] == "reported"


def test_R11_4_R6_8_a_result_the_gm_decided_says_decided_by_the_gm(client, listen, make_client):
    rnd = play_round(client, settle=False)  # player0 entered, player1 confirmed
    gm, cid, players = rnd.gm, rnd.cid, rnd.players
    streams = [listen(cid, players[i]["headers"]) for i in range(2)]
    r = client.post(
        f"/api/v1/campaigns/{cid}/battles/{rnd.bid}/resolve", json={"winner_player_ids": [players[1]["player_id"]]}, headers=gm
    )
    assert r.status_code == 200, r.text
    for s in streams:
        ev = s.next()
        assert (ev.data["status"], ev.data["message"]) == (
            "resolved",
            "The result of the battle at Place 2 was decided by the GM.",
        )
    browser = make_client()
    login(browser, "player0")
    page = browser.get(f"/campaigns/{cid}/battles/{rnd.bid}").text
    result = page.split('id="result"', 1)[1].split("</section>", 1)[0]
    assert "decided by the game master" in result
    assert "entered by" not in result and "confirmed by" not in result
    browser.headers["Accept-Language"] = "pl"
    polish = browser.get(f"/campaigns/{cid}/battles/{rnd.bid}").text.split('id="result"', 1)[1].split("</section>", 1)[0]
    assert "rozstrzygnięty przez prowadzącego" in polish


def test_R11_4_R4_6_the_owner_is_told_live_when_the_gm_undoes_their_order_and_nobody_else(client, listen):
    gm, cid, players, places = running_campaign(client, 3)
    band = warband(client, cid, players[0], buy(client, cid, players[0], "orcs.krusher", "orcs.ax", faction="orcs"))
    to_phase(client, gm, cid, "orders")
    url = f"/api/v1/campaigns/{cid}/warbands/{band['id']}/order"
    assert client.put(url, json={"place_id": places[2]["id"]}, headers=players[0]["headers"]).status_code == 200
    owner, onlooker = listen(cid, players[0]["headers"]), listen(cid, players[1]["headers"])
    # The owner may not undo it (R4.6): refused, nothing told.
    assert error_code(client.delete(url, headers=players[0]["headers"])) == "order_final"
    assert client.delete(url, headers=gm).status_code == 204
    ev = owner.next()
    assert (ev.kind, ev.data["message"]) == ("order", "The GM undid the order of Raiders.")
    _public_marker(client, cid, gm)
    _next_is_marker(onlooker)


def test_R11_4_R7_1_the_owner_is_told_live_when_the_gm_reopens_their_settlement(client, listen):
    rnd = play_round(client)
    close_all(rnd)
    owner, opponent = listen(rnd.cid, rnd.h(1)), listen(rnd.cid, rnd.h(0))
    assert error_code(client.post(rnd.url(1) + "/reopen", headers=rnd.h(1))) == "gm_only"
    assert client.post(rnd.url(1) + "/reopen", headers=rnd.gm).status_code == 200
    ev = owner.next()
    assert (ev.kind, ev.data["action"], ev.data["message"]) == ("settlement", "reopened", "The GM reopened your settlement.")
    _public_marker(client, rnd.cid, rnd.gm)
    _next_is_marker(opponent)  # the settlement is the owner's and the GM's (R11.2)


def _capture_world(client):
    """Three players; player1's Man-at-Arms is taken prisoner by player0 (V12)."""
    campaign = running_campaign(client, 3)
    rnd = play_round(client, campaign=campaign)
    arms = rnd.models[1][1]
    r = rnd.put(1, {"course": {"taken_out": [arms]}, "injuries": [{"model_id": arms, "result": "captured"}]})
    assert r.status_code == 200, r.text
    assert rnd.close(0).status_code == 200
    return rnd, campaign[2], arms


def test_R11_4_V12_the_captor_is_told_live_that_a_prisoner_waits_for_a_price(client, listen):
    rnd, players, arms = _capture_world(client)
    captor, owner, onlooker, gm_stream = (listen(rnd.cid, h) for h in (rnd.h(0), rnd.h(1), players[2]["headers"], rnd.gm))
    assert rnd.close(1).status_code == 200
    [ransom] = client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.h(0)).json()
    told = captor.until("ransom")
    assert told.data["subject_id"] == ransom["id"]
    assert told.data["message"] == "A prisoner waits for your price: Man-at-Arms of player1."
    # The owner's and the GM's pages refresh quietly; nobody else hears of the prisoner (R11.2).
    assert owner.until("ransom").data["message"] is None and gm_stream.until("ransom").data["message"] is None
    _public_marker(client, rnd.cid, rnd.gm)
    _next_is_marker(onlooker)


def test_R11_4_R11_3_V12_the_captor_is_told_in_their_language(client, listen):
    rnd, players, arms = _capture_world(client)
    r = client.patch("/api/v1/me", json={"locale": "pl"}, headers=rnd.h(0))
    assert r.status_code == 200, r.text
    captor = listen(rnd.cid, rnd.h(0))
    assert rnd.close(1).status_code == 200
    assert captor.until("ransom").data["message"] == "Jeniec czeka, aż wyznaczysz okup: Man-at-Arms gracza player1."


def test_R7_1_V12_reopening_a_settlement_keeps_a_refused_ransom_refused(client, engine, listen):
    rnd, players, arms = _capture_world(client)
    assert rnd.close(1).status_code == 200
    [ransom] = client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.h(1)).json()
    base = f"/api/v1/campaigns/{rnd.cid}/ransoms/{ransom['id']}"
    assert client.post(f"{base}/offer", json={"price": 40}, headers=rnd.h(0)).status_code == 200
    assert client.post(f"{base}/refuse", headers=rnd.h(1)).status_code == 200
    captor = listen(rnd.cid, rnd.h(0))
    assert client.post(rnd.url(1) + "/reopen", headers=rnd.gm).status_code == 200
    after = client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.h(1)).json()
    assert [(r["id"], r["status"], r["price"]) for r in after] == [(ransom["id"], "refused", 40)]
    with Session(engine) as s:
        assert s.get(CompanyModel, arms).status == "captured"  # the prisoner stays lost
    # Closing again neither frees the prisoner nor asks a price a second time.
    assert rnd.close(1).status_code == 200
    with Session(engine) as s:
        assert s.get(CompanyModel, arms).status == "captured"
        assert [(r.id, r.status) for r in s.exec(select(Ransom).where(Ransom.campaign_id == rnd.cid)).all()] == [
            (ransom["id"], "refused")
        ]
    assert error_code(client.post(f"{base}/pay", headers=rnd.h(1))) == "ransom_decided"
    _public_marker(client, rnd.cid, rnd.gm)
    kinds = []
    while True:
        ev = captor.next()
        if (ev.kind, ev.data.get("step")) == ("phase", "deadline"):
            break
        kinds.append(ev.kind)
    assert "ransom" not in kinds  # no new prisoner to price

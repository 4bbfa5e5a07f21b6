"""The Twilight gate, Twilight and End round over the API (R7.2-R7.6, R2.3, R11.1): what the
gate waits for and from whom, captures (also of another player's hideout), the GM's choices,
income paid as ledger entries, the chronicle's round summary, and refusals that change nothing."""

from __future__ import annotations

from sqlmodel import Session, select

from app.battles.models import Battle, BattleConfirmation
from app.gold.service import balance_matches_ledger
from app.maps.models import Hideout
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase
from tests.builders.settlements import close_all, play_round


def _campaign(rnd):
    return rnd.client.get(f"/api/v1/campaigns/{rnd.cid}", headers=rnd.gm).json()


def _twilight(rnd, who=None):
    return rnd.client.get(f"/api/v1/campaigns/{rnd.cid}/twilight", headers=who or rnd.gm)


def _end(rnd, round_=1):
    return rnd.client.post(f"/api/v1/campaigns/{rnd.cid}/end-round", json={"round": round_}, headers=rnd.gm)


def test_r7_2_twilight_waits_for_every_result_and_settlement_and_says_from_whom(client, engine):
    rnd = play_round(client, settle=False)
    with Session(engine) as s:  # the result is back to "entered, not confirmed" (R6.8)
        battle = s.get(Battle, rnd.bid)
        battle.status, battle.reported_by_player_id = "reported", rnd.players[0]["player_id"]
        s.add(battle)
        for c in s.exec(select(BattleConfirmation)).all():
            s.delete(c)
        s.commit()
    to_phase(client, rnd.gm, rnd.cid, "settlement")
    before = _campaign(rnd)
    r = rnd.phase("twilight")
    assert r.status_code == 409 and error_code(r) == "twilight_gate"
    message, details = r.json()["error"]["message"], r.json()["error"]["details"]
    assert (
        "Place 2 (player1)" in message
        and "player0 (orcs band, Place 2)" in message
        and "player1 (basileans band, Place 2)" in message
    )
    assert [(d["code"], d["player_ids"]) for d in details] == [
        ("twilight_waits_for_result", [rnd.players[1]["player_id"]]),
        ("twilight_waits_for_settlement", [rnd.players[0]["player_id"]]),
        ("twilight_waits_for_settlement", [rnd.players[1]["player_id"]]),
    ]
    assert _campaign(rnd) == before  # refused: nothing changed
    waiting = _twilight(rnd).json()["waiting_for"]
    assert [w["kind"] for w in waiting] == ["result", "settlement", "settlement"]
    client.post(
        f"/api/v1/campaigns/{rnd.cid}/battles/{rnd.bid}/resolve",
        json={"winner_player_ids": [rnd.players[0]["player_id"]]},
        headers=rnd.gm,
    )
    rnd.close(0)
    r = rnd.phase("twilight")
    assert error_code(r) == "twilight_gate" and len(r.json()["error"]["details"]) == 1
    rnd.close(1)
    assert rnd.phase("twilight").status_code == 200


def test_r7_2_a_round_without_battles_opens_twilight_at_once(client):
    gm, cid, players, places = running_campaign(client, 2)
    to_phase(client, gm, cid, "twilight")
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["phase"] == "twilight"


def test_r7_3_r7_6_r11_1_winner_takes_another_players_hideout_its_income_and_the_chronicle_says_so(client, engine):
    # Player 0 attacks player 1's hideout (places[1]) and wins.
    rnd = play_round(client, place=1)
    close_all(rnd)
    rnd.phase("twilight")
    [row] = _twilight(rnd, rnd.h(1)).json()["places"]
    target = rnd.places[1]["id"]
    assert (
        row["place_id"],
        row["outcome"],
        row["reason"],
        row["owner_player_id"],
        row["proposed_owner_player_id"],
        row["needs_gm_choice"],
    ) == (target, "taken", "sole_winner", rnd.players[1]["player_id"], rnd.players[0]["player_id"], False)
    gold = [client.get(f"/api/v1/campaigns/{rnd.cid}/ledger", headers=rnd.h(i)).json()["balance"] for i in range(2)]
    assert _end(rnd).status_code == 200
    players = {p["player_id"]: p for p in client.get(f"/api/v1/campaigns/{rnd.cid}/players", headers=rnd.gm).json()}
    winner, loser = players[rnd.players[0]["player_id"]], players[rnd.players[1]["player_id"]]
    assert target in winner["places"] and target in winner["hideouts"]
    assert target not in loser["places"] and loser["hideouts"] == []
    # Round income 50 each; places pay 5: the winner's own hideout and the place taken this round.
    assert [client.get(f"/api/v1/campaigns/{rnd.cid}/ledger", headers=rnd.h(i)).json()["balance"] for i in range(2)] == [
        gold[0] + 50 + 5 + 5,
        gold[1] + 50,
    ]
    kinds = [
        (e["kind"], e["amount"], e["note"])
        for e in client.get(f"/api/v1/campaigns/{rnd.cid}/ledger", headers=rnd.h(0)).json()["items"][:3]
    ]
    assert sorted(kinds) == sorted([("income", 50, ""), ("place_income", 5, "Place 0"), ("place_income", 5, "Place 1")])
    with Session(engine) as s:
        assert s.exec(select(Hideout.player_id).where(Hideout.place_id == target)).one() == rnd.players[0]["player_id"]
        assert all(balance_matches_ledger(s, p["player_id"]) for p in rnd.players)
    chronicle = [e["text"] for e in client.get(f"/api/v1/campaigns/{rnd.cid}/chronicle", headers=rnd.h(1)).json()["items"]]
    assert "player0 takes Place 1 from player1 and sets up a hideout there." in chronicle
    assert "Round 1 ended; round 2 begins with Preparation." in chronicle


def test_r7_3_a_draw_leaves_the_place_with_its_owner(client):
    rnd = play_round(client, winner=None, place=1)
    close_all(rnd)
    rnd.phase("twilight")
    [row] = _twilight(rnd).json()["places"]
    assert (row["outcome"], row["reason"], row["proposed_owner_player_id"]) == ("kept", "draw", rnd.players[1]["player_id"])
    assert _end(rnd).status_code == 200
    chronicle = [e["kind"] for e in client.get(f"/api/v1/campaigns/{rnd.cid}/chronicle", headers=rnd.gm).json()["items"]]
    assert "round_no_captures" in chronicle and "place_taken" not in chronicle


def _unopposed_round(client, phase: str = "twilight"):
    """Three players; two of them go alone to a free place at two different events, the
    third stays home: several unrelated players arrive unopposed (R7.5). The round is left in
    `phase`."""
    gm, cid, players, places = running_campaign(client, 3)
    free = places[3]["id"]
    events = [
        client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": free, "title": t}, headers=gm).json()["id"]
        for t in ("North gate", "South gate")
    ]
    for i, faction, keys in (
        (0, "orcs", ("orcs.krusher", "orcs.ax")),
        (1, "basileans", ("basileans.veteran-sergeant", "basileans.man-at-arms")),
    ):
        players[i]["band"] = warband(client, cid, players[i], buy(client, cid, players[i], *keys, faction=faction))
    to_phase(client, gm, cid, "orders")
    for i in range(2):
        r = client.put(
            f"/api/v1/campaigns/{cid}/warbands/{players[i]['band']['id']}/order",
            json={"event_id": events[i]},
            headers=players[i]["headers"],
        )
        assert r.status_code == 200, r.text
    to_phase(client, gm, cid, phase)  # no battles: nothing to settle
    return gm, cid, players, free


def test_r7_5_several_unopposed_players_the_gm_chooses_and_end_round_waits_for_it(client):
    gm, cid, players, free = _unopposed_round(client)
    [row] = client.get(f"/api/v1/campaigns/{cid}/twilight", headers=players[2]["headers"]).json()["places"]
    assert (row["outcome"], row["reason"], row["needs_gm_choice"]) == ("gm_choice", "unopposed_choice", True)
    assert row["candidates"] == sorted(p["player_id"] for p in players[:2])
    assert {a["kind"] for a in row["arrivals"]} == {"unopposed"}
    before = client.get(f"/api/v1/campaigns/{cid}/players", headers=gm).json()
    r = client.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": 1}, headers=gm)
    assert (
        r.status_code == 409
        and error_code(r) == "twilight_choice_missing"
        and r.json()["error"]["details"][0]["place_id"] == free
    )
    assert client.get(f"/api/v1/campaigns/{cid}/players", headers=gm).json() == before
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["round"] == 1
    url = f"/api/v1/campaigns/{cid}/twilight/choices"
    r = client.post(url, json={"place_id": free, "player_id": players[2]["player_id"]}, headers=gm)
    assert r.status_code == 422 and error_code(r) == "twilight_candidate"
    r = client.post(url, json={"place_id": free, "player_id": players[1]["player_id"]}, headers=players[1]["headers"])
    assert r.status_code == 403 and error_code(r) == "gm_only"
    r = client.post(url, json={"place_id": players[0]["player_id"] and free, "player_id": players[1]["player_id"]}, headers=gm)
    assert r.status_code == 200 and r.json()["places"][0]["chosen_player_id"] == players[1]["player_id"]
    assert r.json()["places"][0]["proposed_owner_player_id"] == players[1]["player_id"] and r.json()["choices_missing"] == []
    r = client.post(url, json={"place_id": free, "player_id": players[0]["player_id"]}, headers=gm)  # the GM changes their mind
    assert r.json()["places"][0]["chosen_player_id"] == players[0]["player_id"]
    assert client.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": 1}, headers=gm).status_code == 200
    owners = {p["player_id"]: p["places"] for p in client.get(f"/api/v1/campaigns/{cid}/players", headers=gm).json()}
    assert free in owners[players[0]["player_id"]]


def test_r7_3_choices_only_in_twilight_and_only_where_the_rules_leave_it_open(client):
    rnd = play_round(client)
    url = f"/api/v1/campaigns/{rnd.cid}/twilight/choices"
    body = {"place_id": rnd.places[2]["id"], "player_id": rnd.players[0]["player_id"]}
    r = client.post(url, json=body, headers=rnd.gm)
    assert r.status_code == 409 and error_code(r) == "twilight_phase"
    close_all(rnd)
    rnd.phase("twilight")
    r = client.post(url, json=body, headers=rnd.gm)
    assert r.status_code == 409 and error_code(r) == "twilight_no_choice"
    r = client.post(url, json={**body, "place_id": rnd.places[0]["id"]}, headers=rnd.gm)
    assert r.status_code == 404


def test_r2_3_end_round_twice_for_the_same_round_pays_once(client):
    rnd = play_round(client)
    close_all(rnd)
    rnd.phase("twilight")
    assert _end(rnd).status_code == 200
    ledgers = [client.get(f"/api/v1/campaigns/{rnd.cid}/ledger", headers=rnd.h(i)).json() for i in range(2)]
    r = _end(rnd)
    assert r.status_code == 409 and error_code(r) == "end_round_mismatch"
    assert [client.get(f"/api/v1/campaigns/{rnd.cid}/ledger", headers=rnd.h(i)).json() for i in range(2)] == ledgers
    assert _campaign(rnd)["round"] == 2


def test_r11_2_twilight_is_for_members(client):
    rnd = play_round(client)
    assert _twilight(rnd, user(client, "outsider")).status_code == 404
    body = _twilight(rnd, rnd.h(1)).json()
    assert body["final"] is False and body["places"][0]["proposed_owner_player_id"] == rnd.players[0]["player_id"]
    assert (
        client.post(
            f"/api/v1/campaigns/{rnd.cid}/twilight/choices",
            json={"place_id": 1, "player_id": 1},
            headers=user(client, "stranger"),
        ).status_code
        == 404
    )


def test_r7_3_before_battles_twilight_shows_nothing(client):
    gm, cid, players, places = running_campaign(client, 2)
    body = client.get(f"/api/v1/campaigns/{cid}/twilight", headers=players[0]["headers"]).json()
    assert (body["places"], body["final"], body["waiting_for"]) == ([], False, [])

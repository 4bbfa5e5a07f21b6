"""Announcing battles and entering results over the API (R6.1-R6.8, R5.2, R5.3, V10, R11.1)."""

from sqlmodel import Session, func, select

from app.battles.models import Arrival, Battle
from tests.builders.accounts import user
from tests.builders.battles import battles, campaign_with_warbands, two_player_battle
from tests.builders.responses import error_code
from tests.builders.rounds import event, fight, force_phase, send, to_phase


def test_r6_1_r6_5_battles_are_announced_with_public_rosters_when_battles_begin(client, engine):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    ev = event(client, gm, cid, places[2]["id"], "Bridge")
    to_phase(client, gm, cid, "orders")
    for p in players:
        send(client, cid, p, event_id=ev["id"])
    assert battles(client, cid, gm) == []
    to_phase(client, gm, cid, "battles")
    seen = battles(client, cid, players[1]["headers"])
    assert len(seen) == 1
    b = seen[0]
    assert (b["event_id"], b["place_id"], b["status"], b["round"]) == (ev["id"], places[2]["id"], "announced", 1)
    rosters = {w["name"]: [m["name"] for m in w["roster"]] for s in b["sides"] for w in s["warbands"]}
    # Models of one profile are told apart by number (issue 29 item 7).
    assert rosters == {"orcs band": ["Krusher", "Ax"], "basileans band": ["Veteran Sergeant", "Man-at-Arms 1", "Man-at-Arms 2"]}
    assert b["scenario"] in {
        "scenario.supply-grab",
        "scenario.light-the-beacon",
        "scenario.free-the-princess",
        "scenario.recover-the-plans",
        "scenario.kill-the-bard",
        "scenario.the-dragons-egg",
        "scenario.the-power-stones",
        "scenario.capture-the-giant",
        "scenario.destroy-the-baggage-train",
        "scenario.burn-the-stores",
        "scenario.secure-the-portal",
        "scenario.kill-the-commander",
        "scenario.canyon-patrol",
    }
    outsider = user(client, "outsider")
    assert client.get(f"/api/v1/campaigns/{cid}/battles", headers=outsider).status_code == 404
    chronicle = client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=players[0]["headers"]).json()["items"]
    assert any(e["kind"] == "battle_announced_event" and "orcs band" in e["text"] and "(Bridge)" in e["text"] for e in chronicle)
    # The plan ran once: going on to Settlement announces nothing more.
    to_phase(client, gm, cid, "settlement")
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Battle)).one() == 1


def test_r6_2_lone_warbands_are_unopposed_and_r6_4_left_out_recorded(client, engine):
    gm, cid, players, places = campaign_with_warbands(client, 3)
    to_phase(client, gm, cid, "orders")
    send(client, cid, players[0], place_id=places[0]["id"])  # own hideout, alone
    for p in players[1:]:
        send(client, cid, p, place_id=places[2]["id"])
    to_phase(client, gm, cid, "battles")
    assert len(battles(client, cid, gm)) == 1
    with Session(engine) as s:
        kinds = s.exec(select(Arrival.kind, Arrival.warband_id)).all()
    assert kinds == [("unopposed", players[0]["band"]["id"])]


def test_r6_3_r6_4_one_against_one_leaves_out_the_odd_warband(client, engine):
    gm, cid, players, places = campaign_with_warbands(client, 3)
    to_phase(client, gm, cid, "orders")
    with Session(engine) as s:  # a 1v1 campaign: multi-band battles off (modules fixed once running, so set directly)
        from app.campaigns.models import Campaign

        c = s.get(Campaign, cid)
        c.modules = {**c.modules, "multi_band_battles": False}
        s.add(c)
        s.commit()
    for p in players:
        send(client, cid, p, place_id=places[2]["id"])
    to_phase(client, gm, cid, "battles")
    seen = battles(client, cid, gm)
    assert len(seen) == 1 and sum(len(s["warbands"]) for s in seen[0]["sides"]) == 2
    with Session(engine) as s:
        assert s.exec(select(Arrival.kind)).all() == ["left_out"]


def test_r6_3_multi_band_battle_with_three_warbands_plays_king_of_the_hill_and_underdog(client):
    gm, cid, players, places = campaign_with_warbands(client, 3)
    fight(client, gm, cid, players, place_id=places[2]["id"])
    [b] = battles(client, cid, gm)
    assert len(b["sides"]) == 3 and b["scenario"] == "scenario.king-of-the-hill"
    dogs = {w["name"]: (w["bonus_points"], w["underdog_dice"]) for s in b["sides"] for w in s["warbands"]}
    assert dogs == {"undead band": (0, 0), "orcs band": (3, 0), "basileans band": (3, 0)}


def test_r6_6_r5_3_owner_defends_in_light_the_beacon(client):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    home = places[1]["id"]  # player1's hideout
    ev = event(client, gm, cid, home, "Beacon", scenario="scenario.light-the-beacon")
    fight(client, gm, cid, players, event_id=ev["id"])
    [b] = battles(client, cid, gm)
    roles = {s["player_ids"][0]: s["role"] for s in b["sides"]}
    assert roles == {players[1]["player_id"]: "defender", players[0]["player_id"]: "attacker"}
    assert b["beacon_hint"] is True and b["roles"] is True


def test_r6_7_event_notes_for_many_warbands_are_on_the_battle(client):
    gm, cid, players, places = campaign_with_warbands(client, 3)
    ev = event(client, gm, cid, places[2]["id"], "Melee", notes="Last warband standing wins")
    fight(client, gm, cid, players, event_id=ev["id"])
    assert battles(client, cid, gm)[0]["notes"] == "Last warband standing wins"


def test_r6_8_report_confirm_flow(client):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    url = f"/api/v1/campaigns/{cid}/battles/{bid}"
    r = client.post(f"{url}/confirm", headers=borys["headers"])
    assert r.status_code == 409 and error_code(r) == "battle_nothing_to_confirm"
    r = client.post(f"{url}/result", json={"winner_player_ids": [anna["player_id"]]}, headers=anna["headers"])
    assert r.status_code == 200 and r.json()["status"] == "reported" and r.json()["winners"] == [anna["player_id"]]
    again = client.post(f"{url}/result", json={"winner_player_ids": []}, headers=borys["headers"])
    assert again.status_code == 409 and error_code(again) == "battle_reported_already"
    own = client.post(f"{url}/confirm", headers=anna["headers"])
    assert own.status_code == 409 and error_code(own) == "battle_confirmed_already"
    done = client.post(f"{url}/confirm", headers=borys["headers"])
    assert (
        done.status_code == 200 and done.json()["status"] == "confirmed" and done.json()["confirmed_by"] == [borys["player_id"]]
    )
    twice = client.post(f"{url}/confirm", headers=borys["headers"])
    assert twice.status_code == 409
    chronicle = client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=gm).json()["items"]
    assert chronicle[0]["kind"] == "battle_won" and "player0" in chronicle[0]["text"]


def test_r6_8_refusals_change_nothing(client, engine):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    url = f"/api/v1/campaigns/{cid}/battles/{bid}"
    outsider = user(client, "outsider")
    for headers, body, status, code in (
        (outsider, {"winner_player_ids": []}, 404, "not_found"),
        (gm, {"winner_player_ids": []}, 403, "battle_not_participant"),
        (anna["headers"], {"winner_player_ids": [anna["player_id"], borys["player_id"]]}, 422, "battle_one_winner"),
        (anna["headers"], {"winner_player_ids": [99999]}, 422, "battle_winner_unknown"),
        (anna["headers"], {"winner_player_ids": "anna"}, 422, "validation_error"),
    ):
        r = client.post(f"{url}/result", json=body, headers=headers)
        assert r.status_code == status and error_code(r) == code, code
    assert client.get(url, headers=gm).json()["status"] == "announced"
    r = client.post(f"{url}/dispute", json={"reason": " "}, headers=borys["headers"])
    assert r.status_code == 422 and error_code(r) == "reason_required"
    to_phase(client, gm, cid, "settlement")
    force_phase(engine, cid, "twilight")  # past the Twilight gate (R7.2), which waits for results
    r = client.post(f"{url}/result", json={"winner_player_ids": []}, headers=anna["headers"])
    assert r.status_code == 409 and error_code(r) == "results_closed"


def test_r6_8_dispute_goes_to_the_gm_who_resolves_and_can_correct(client):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    url = f"/api/v1/campaigns/{cid}/battles/{bid}"
    client.post(f"{url}/result", json={"winner_player_ids": [anna["player_id"]]}, headers=anna["headers"])
    r = client.post(f"{url}/dispute", json={"reason": "I won on objectives"}, headers=borys["headers"])
    assert r.json()["status"] == "disputed" and r.json()["dispute_reason"] == "I won on objectives"
    assert client.post(f"{url}/confirm", headers=borys["headers"]).status_code == 409
    r = client.post(f"{url}/resolve", json={"winner_player_ids": [borys["player_id"]]}, headers=anna["headers"])
    assert r.status_code == 403
    r = client.post(f"{url}/resolve", json={"winner_player_ids": [borys["player_id"]]}, headers=gm)
    assert r.json()["status"] == "resolved" and r.json()["winners"] == [borys["player_id"]]
    r = client.post(f"{url}/resolve", json={"winner_player_ids": []}, headers=gm)  # a correction: a draw
    assert r.json()["status"] == "resolved" and r.json()["winners"] == []
    r = client.post(f"{url}/dispute", json={"reason": "again"}, headers=anna["headers"])
    assert r.status_code == 409 and error_code(r) == "battle_decided"


def test_r6_8_several_winners_with_three_warbands(client):
    gm, cid, players, places = campaign_with_warbands(client, 3)
    fight(client, gm, cid, players, place_id=places[2]["id"])
    bid = battles(client, cid, gm)[0]["id"]
    url = f"/api/v1/campaigns/{cid}/battles/{bid}"
    everyone = [p["player_id"] for p in players]
    r = client.post(f"{url}/result", json={"winner_player_ids": everyone}, headers=players[0]["headers"])
    assert r.status_code == 422 and error_code(r) == "battle_everyone_won"
    r = client.post(f"{url}/result", json={"winner_player_ids": everyone[:2]}, headers=players[0]["headers"])
    assert r.status_code == 200
    client.post(f"{url}/confirm", headers=players[1]["headers"])
    assert client.get(url, headers=gm).json()["status"] == "reported"
    assert client.post(f"{url}/confirm", headers=players[2]["headers"]).json()["status"] == "confirmed"


def test_r6_4_the_seed_is_stored_and_re_derives_the_split(client, engine):
    from app.battles import rules
    from app.battles.models import BattleWarband

    gm, cid, players, places = campaign_with_warbands(client, 3)
    fight(client, gm, cid, players, place_id=places[2]["id"])
    [b] = battles(client, cid, gm)
    with Session(engine) as s:
        rows = s.exec(select(BattleWarband)).all()
    arrivals = [rules.Arrival(w.warband_id, w.player_id, w.points) for w in rows]
    again = rules.plan_destination(arrivals, lambda a, c: False, None, b["seed"])
    assert sorted(a.warband_id for side in again.battles[0] for a in side) == sorted(w.warband_id for w in rows)

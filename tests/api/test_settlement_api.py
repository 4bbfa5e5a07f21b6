"""Settlement over the API (R7.1, V11-V17, R4.7, R11.2): every step, the Healer's re-roll,
ransom paid and refused, the GM reopening, statuses refusing the next order, refusals that
change nothing, and who may see what."""

from __future__ import annotations

from sqlmodel import Session, select

from app.companies.models import CompanyItem, CompanyModel
from app.gold.service import balance_matches_ledger
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase
from tests.builders.settlements import close_all, play_round


def _ledger(rnd, i):
    return rnd.client.get(f"/api/v1/campaigns/{rnd.cid}/ledger", headers=rnd.h(i)).json()


def _models(engine, ids):
    with Session(engine) as s:
        return {m.id: m for m in s.exec(select(CompanyModel).where(CompanyModel.id.in_(ids))).all()}


def test_v11_course_is_a_draft_revised_until_closed_and_the_result_is_the_battles(client):
    rnd = play_round(client, winner=1)
    krusher, ax1, ax2 = rnd.models[0]
    r = rnd.put(0, {"course": {"taken_out": [ax1], "took_out": {str(krusher): 1}, "objectives": [ax2]}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "draft" and body["result"] == "lost"
    assert body["steps"]["course"] == {"taken_out": [ax1], "took_out": {str(krusher): 1}, "objectives": [ax2], "result": "lost"}
    r = rnd.put(0, {"course": {"taken_out": [], "took_out": {}, "objectives": []}})
    assert r.json()["steps"]["course"]["taken_out"] == []
    r = rnd.put(0, {"course": {"result": "won"}})
    assert r.status_code == 422 and error_code(r) == "settlement_result_mismatch"
    r = rnd.put(0, {"course": {"took_out": {str(krusher): 4}}})  # the Basileans had three models
    assert r.status_code == 422 and error_code(r) == "settlement_took_out_too_many"
    assert rnd.get(0).json()["steps"]["course"]["taken_out"] == []


def test_v12_casualty_rolled_on_the_campaigns_table_with_its_seed_stored(client, engine):
    rnd = play_round(client)
    krusher, ax1, ax2 = rnd.models[0]
    assert rnd.roll(0, ax1).status_code == 409  # not taken out yet
    rnd.put(0, {"course": {"taken_out": [ax1]}})
    r = rnd.roll(0, ax1)
    assert r.status_code == 200, r.text
    [roll] = r.json()["rolls"]
    assert roll["model_id"] == ax1 and 1 <= roll["face"] <= 10 and isinstance(roll["seed"], int) and roll["healer"] is False
    [injury] = r.json()["steps"]["injuries"]
    assert injury["result"] == roll["result"]
    import random

    from app.campaigns.house_rules import DEFAULT_CASUALTY_TABLE
    from app.settlement.rules import roll as roll_rule

    assert roll_rule(DEFAULT_CASUALTY_TABLE, random.Random(roll["seed"]))["face"] == roll["face"]  # the seed re-derives it
    assert error_code(rnd.roll(0, ax1)) == "settlement_rolled_already"
    other = "recovered" if roll["result"] != "recovered" else "dead"
    r = rnd.put(0, {"injuries": [{"model_id": ax1, "result": other}]})
    assert r.status_code == 409 and error_code(r) == "settlement_result_rolled"
    assert error_code(rnd.roll(0, ax1, reroll=True)) == "settlement_no_healer"
    r = rnd.put(0, {"course": {"taken_out": []}})
    assert r.status_code == 409 and error_code(r) == "settlement_rolled_taken_out"


def test_v12_the_casualty_table_is_the_campaigns(client):
    table = [{"result": "captured"}, {"result": "captured"}]
    rnd = play_round(client, settlement_rules={"casualty_table": table})
    ax1 = rnd.models[0][1]
    rnd.put(0, {"course": {"taken_out": [ax1]}})
    assert rnd.roll(0, ax1).json()["steps"]["injuries"] == [
        {"model_id": ax1, "result": "captured", "captor_player_id": rnd.players[1]["player_id"]}
    ]


def test_v12_healer_rerolls_one_result_per_battle(client):
    rnd = play_round(client, healer=True)
    _sergeant, chaplain, *arms = rnd.models[1]
    rnd.put(1, {"course": {"taken_out": arms[:2]}})
    assert rnd.get(1).json()["healer"] is True
    assert error_code(rnd.roll(1, arms[0], reroll=True)) == "settlement_nothing_to_reroll"
    rnd.roll(1, arms[0])
    rnd.roll(1, arms[1])
    r = rnd.roll(1, arms[0], reroll=True)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["healer_used"] is True
    assert [x["healer"] for x in body["rolls"] if x["model_id"] == arms[0]] == [False, True]
    last = [x for x in body["rolls"] if x["model_id"] == arms[0]][-1]
    assert next(i for i in body["steps"]["injuries"] if i["model_id"] == arms[0])["result"] == last["result"]
    r = rnd.roll(1, arms[1], reroll=True)
    assert r.status_code == 409 and error_code(r) == "settlement_healer_used"


def _capture(rnd, price=None):
    """Player 1's Man-at-Arms is captured by player 0; both settle."""
    arms = rnd.models[1][1]
    r = rnd.put(1, {"course": {"taken_out": [arms]}, "injuries": [{"model_id": arms, "result": "captured"}]})
    assert r.status_code == 200, r.text
    close_all(rnd)
    [ransom] = rnd.client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.h(1)).json()
    assert (ransom["model_id"], ransom["status"], ransom["captor_player_id"]) == (arms, "awaiting", rnd.players[0]["player_id"])
    return arms, ransom["id"]


def test_v12_v17_ransom_paid_through_the_ledger_on_both_sides(client, engine):
    rnd = play_round(client)
    arms, rid = _capture(rnd)
    base = f"/api/v1/campaigns/{rnd.cid}/ransoms/{rid}"
    assert error_code(client.post(f"{base}/pay", headers=rnd.h(1))) == "ransom_no_offer"
    assert error_code(client.post(f"{base}/offer", json={"price": 15}, headers=rnd.h(1))) == "ransom_captor_only"
    r = client.post(f"{base}/offer", json={"price": 15}, headers=rnd.h(0))
    assert r.status_code == 200 and r.json()["status"] == "offered" and r.json()["price"] == 15
    assert error_code(client.post(f"{base}/pay", headers=rnd.h(0))) == "ransom_owner_only"
    gold = [_ledger(rnd, i)["balance"] for i in range(2)]
    r = client.post(f"{base}/pay", headers=rnd.h(1))
    assert r.status_code == 200 and r.json()["status"] == "paid"
    assert [_ledger(rnd, i)["balance"] for i in range(2)] == [gold[0] + 15, gold[1] - 15]
    for i, amount, note in ((0, 15, "Man-at-Arms · from player1"), (1, -15, "Man-at-Arms · to player0")):
        top = _ledger(rnd, i)["items"][0]
        assert (top["kind"], top["amount"], top["note"]) == ("ransom", amount, note)
    assert _models(engine, [arms])[arms].status == "ready"
    with Session(engine) as s:
        assert all(balance_matches_ledger(s, p["player_id"]) for p in rnd.players)
    assert error_code(client.post(f"{base}/refuse", headers=rnd.h(1))) == "ransom_decided"
    # The GM sees the ransom too (and its ledger entries in each player's ledger).
    assert [x["status"] for x in client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.gm).json()] == ["paid"]


def test_v12_ransom_refused_the_model_is_lost_and_no_gold_moves(client, engine):
    rnd = play_round(client)
    arms, rid = _capture(rnd)
    base = f"/api/v1/campaigns/{rnd.cid}/ransoms/{rid}"
    client.post(f"{base}/offer", json={"price": 500}, headers=rnd.h(0))
    gold = [_ledger(rnd, i)["balance"] for i in range(2)]
    assert error_code(client.post(f"{base}/pay", headers=rnd.h(1))) == "not_enough_gold"  # refused, changes nothing
    assert client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.h(1)).json()[0]["status"] == "offered"
    r = client.post(f"{base}/refuse", headers=rnd.h(1))
    assert r.status_code == 200 and r.json()["status"] == "refused"
    assert [_ledger(rnd, i)["balance"] for i in range(2)] == gold
    assert not any(e["kind"] == "ransom" for i in range(2) for e in _ledger(rnd, i)["items"])
    assert _models(engine, [arms])[arms].status == "captured"


def test_v12_unpaid_ransom_lapses_at_end_round_and_the_model_stays_lost(client, engine):
    rnd = play_round(client)
    arms, rid = _capture(rnd)
    assert rnd.phase("twilight").status_code == 200
    r = client.post(f"/api/v1/campaigns/{rnd.cid}/end-round", json={"round": 1}, headers=rnd.gm)
    assert r.status_code == 200, r.text
    assert client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.h(0)).json()[0]["status"] == "lapsed"
    assert _models(engine, [arms])[arms].status == "captured"


def test_r11_2_ransom_and_settlement_are_seen_by_owner_captor_and_gm_only(client):
    campaign = running_campaign(client, 3)
    rnd = play_round(client, campaign=campaign, place=3)
    arms, rid = _capture(rnd)
    third, outsider = campaign[2][2]["headers"], user(client, "outsider")
    assert client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=third).json() == []
    for who in (third, outsider):
        assert client.post(f"/api/v1/campaigns/{rnd.cid}/ransoms/{rid}/pay", headers=who).status_code == 404
        for i in range(2):
            assert rnd.get(i, who).status_code == 404
    assert client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=outsider).status_code == 404
    assert rnd.get(1, rnd.h(0)).status_code == 404  # the captor sees the ransom, not the prisoner's settlement
    assert rnd.get(0, rnd.h(1)).status_code == 404
    assert rnd.get(1, rnd.gm).status_code == 200
    assert [r["id"] for r in client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.h(0)).json()] == [rid]


def test_v13_items_of_the_dead_return_to_the_stash_or_are_lost_and_items_move(client, engine):
    rnd = play_round(client)
    krusher, ax1, ax2 = rnd.models[0]
    h = rnd.h(0)
    with Session(engine) as s:  # the shop is closed in Settlement: give the Ax two items straight away
        company_id = s.get(CompanyModel, ax1).company_id
        for name in ("Bandages", "Torch"):
            s.add(
                CompanyItem(
                    company_id=company_id,
                    model_id=ax1 if name == "Bandages" else ax2,
                    item_key=f"item.{name.lower()}",
                    name=name,
                    rarity="Common",
                    slot="Sundries",
                    points=2,
                )
            )
        s.commit()
        bandages, torch = [
            i.id for i in s.exec(select(CompanyItem).where(CompanyItem.company_id == company_id).order_by(CompanyItem.id))
        ]
    r = rnd.put(
        0,
        {
            "course": {"taken_out": [ax1, ax2]},
            "injuries": [{"model_id": ax1, "result": "dead"}, {"model_id": ax2, "result": "dead", "items_lost": True}],
        },
    )
    assert r.json()["steps"]["equipment"] == [
        {"item_id": bandages, "model_id": None, "lost": False},
        {"item_id": torch, "model_id": None, "lost": True},
    ]
    r = rnd.put(0, {"equipment": [{"item_id": bandages, "model_id": krusher}]})
    assert r.status_code == 200
    r = rnd.put(0, {"equipment": [{"item_id": bandages, "model_id": ax1}]})
    assert r.status_code == 422 and error_code(r) == "settlement_item_to_gone"
    assert rnd.close(0).status_code == 200
    with Session(engine) as s:
        items = {i.id: i.model_id for i in s.exec(select(CompanyItem).where(CompanyItem.company_id == company_id)).all()}
    assert items == {bandages: krusher}  # the torch was lost with its model
    assert client.get(f"/api/v1/campaigns/{rnd.cid}/company", headers=h).json()["items"][0]["model_id"] == krusher


def test_v14_experience_applied_with_the_leaders_two_points(client, engine):
    rnd = play_round(client)
    krusher, ax1, ax2 = rnd.models[0]
    r = rnd.put(0, {"course": {"took_out": {str(ax1): 2}, "objectives": [krusher]}})
    proposal = {e["model_id"]: e["xp"] for e in r.json()["proposal"]["experience"]}
    assert proposal == {krusher: 1 + 1 + 1, ax1: 1 + 2 + 1, ax2: 1 + 1}
    assert r.json()["proposal"]["leader_bonus"] == 2
    r = rnd.put(0, {"experience": [{"model_id": ax2, "xp": 5}]})
    assert r.status_code == 422 and error_code(r) == "settlement_xp_over"
    r = rnd.put(0, {"experience": [{"model_id": ax2, "xp": 3}, {"model_id": krusher, "xp": 4}]})
    assert r.status_code == 200
    rnd.close(0)
    models = _models(engine, rnd.models[0])
    assert {m: models[m].xp for m in rnd.models[0]} == {krusher: 4, ax1: 4, ax2: 3}


def test_v15_promotion_at_the_campaigns_threshold_recorded_as_text(client, engine):
    rnd = play_round(client, settlement_rules={"ranks": [3, 6]})
    krusher, ax1, _ax2 = rnd.models[0]
    r = rnd.put(0, {"course": {"took_out": {str(krusher): 1}}})  # 1 + 1 + 1 (won) = 3: rank 1
    assert r.json()["proposal"]["due_promotions"] == [{"model_id": krusher, "ranks": [1]}]
    r = rnd.put(0, {"promotions": [{"model_id": ax1, "rank": 1, "upgrade": "Melee 4+"}]})
    assert r.status_code == 422 and error_code(r) == "settlement_rank_not_due"
    r = rnd.put(0, {"promotions": [{"model_id": krusher, "rank": 1, "upgrade": "Melee 4+"}]})
    assert r.status_code == 200
    rnd.close(0)
    m = _models(engine, [krusher])[krusher]
    assert (m.xp, m.rank, m.upgrades) == (3, 1, [{"rank": 1, "text": "Melee 4+", "round": 1}])


def test_v16_retinue_assessment_names_the_leader_and_retinue(client, engine):
    rnd = play_round(client)
    krusher, ax1, ax2 = rnd.models[0]
    r = rnd.put(0, {"retinue": {"leader_id": ax1}})
    assert r.status_code == 422 and error_code(r) == "settlement_leader_command"
    r = rnd.put(0, {"retinue": {"leader_id": krusher, "retinue_ids": [ax1, ax2]}})
    assert r.json()["retinue_cost"] == 3  # the second retinue role costs 3 points of the warband limit
    rnd.close(0)
    models = _models(engine, rnd.models[0])
    assert [models[m].role for m in (krusher, ax1, ax2)] == ["leader", "retinue", "retinue"]
    # The second retinue role costs 3 points of the warband limit: 58 points no longer fit in 60.
    assert client.patch(f"/api/v1/campaigns/{rnd.cid}", json={"warband_points": 60}, headers=rnd.gm).status_code == 200
    [band] = client.get(f"/api/v1/campaigns/{rnd.cid}/warbands", headers=rnd.h(0)).json()
    over = [p for p in band["problems"] if p["code"] == "warband_points_over"]
    assert len(over) == 1 and "58 points but the limit is 57" in over[0]["message"]
    [other] = client.get(f"/api/v1/campaigns/{rnd.cid}/warbands", headers=rnd.h(1)).json()  # 46 points, no retinue
    assert not [p for p in other["problems"] if p["code"] == "warband_points_over"]


def test_r7_1_close_applies_everything_once_and_is_final_for_the_player(client, engine):
    rnd = play_round(client)
    krusher, ax1, ax2 = rnd.models[0]
    rnd.put(0, {"course": {"taken_out": [ax1]}, "injuries": [{"model_id": ax1, "result": "permanent", "text": "Lost an eye"}]})
    r = rnd.close(0)
    assert r.status_code == 200 and r.json()["status"] == "closed" and r.json()["closed_at"]
    m = _models(engine, [ax1])[ax1]
    assert (m.status, m.injuries, m.xp) == ("ready", ["Lost an eye"], 2)
    for attempt in (rnd.put(0, {"course": {"taken_out": []}}), rnd.close(0), rnd.roll(0, ax1)):
        assert attempt.status_code == 409 and error_code(attempt) == "settlement_closed"
    assert _models(engine, [ax1])[ax1].xp == 2  # closing twice did not apply twice


def test_r7_1_defaults_when_nothing_was_filled(client, engine):
    rnd = play_round(client, winner=None)
    assert rnd.close(1).status_code == 200
    models = _models(engine, rnd.models[1])
    assert {(m.status, m.xp, m.rank) for m in models.values()} == {("ready", 1, 0)}


def test_r7_1_the_gm_reopens_a_settlement_until_twilight(client, engine):
    rnd = play_round(client)
    krusher, ax1, _ax2 = rnd.models[0]
    rnd.put(
        0, {"course": {"taken_out": [ax1]}, "injuries": [{"model_id": ax1, "result": "dead"}], "retinue": {"leader_id": krusher}}
    )
    url = rnd.url(0) + "/reopen"
    assert error_code(client.post(url, headers=rnd.gm)) == "settlement_not_closed"
    rnd.close(0)
    assert _models(engine, [ax1])[ax1].status == "dead"
    assert error_code(client.post(url, headers=rnd.h(0))) == "gm_only"
    r = client.post(url, headers=rnd.gm)
    assert r.status_code == 200 and r.json()["status"] == "draft"
    models = _models(engine, [krusher, ax1])
    assert (models[ax1].status, models[ax1].xp, models[krusher].role) == ("ready", 0, None)
    r = rnd.put(0, {"injuries": [{"model_id": ax1, "result": "miss_next"}]})
    assert r.status_code == 200
    rnd.close(0)
    assert _models(engine, [ax1])[ax1].status == "miss_next"
    rnd.close(1)
    assert rnd.phase("twilight").status_code == 200
    r = client.post(url, headers=rnd.gm)
    assert r.status_code == 409 and error_code(r) == "settlement_reopen_phase"


def test_r7_1_reopening_is_refused_once_its_ransom_is_paid(client):
    rnd = play_round(client)
    _arms, rid = _capture(rnd)
    client.post(f"/api/v1/campaigns/{rnd.cid}/ransoms/{rid}/offer", json={"price": 0}, headers=rnd.h(0))
    client.post(f"/api/v1/campaigns/{rnd.cid}/ransoms/{rid}/pay", headers=rnd.h(1))
    r = client.post(rnd.url(1) + "/reopen", headers=rnd.gm)
    assert r.status_code == 409 and error_code(r) == "settlement_ransom_paid"


def test_r4_7_a_resting_model_cannot_be_sent_next_round_and_is_ready_after_it_the_dead_never(client, engine):
    rnd = play_round(client)
    krusher, ax1, ax2 = rnd.models[0]
    rnd.put(
        0,
        {
            "course": {"taken_out": [ax1, ax2]},
            "injuries": [{"model_id": ax1, "result": "miss_next"}, {"model_id": ax2, "result": "dead"}],
        },
    )
    close_all(rnd)
    rnd.phase("twilight")
    assert client.post(f"/api/v1/campaigns/{rnd.cid}/end-round", json={"round": 1}, headers=rnd.gm).status_code == 200
    band = rnd.players[0]["band"]["id"]
    to_phase(client, rnd.gm, rnd.cid, "orders")
    r = client.put(f"/api/v1/campaigns/{rnd.cid}/warbands/{band}/order", json={"place_id": rnd.places[0]["id"]}, headers=rnd.h(0))
    assert r.status_code == 409 and error_code(r) == "order_model_unavailable"
    assert _models(engine, [ax1])[ax1].status == "miss_next"
    # Round 2 ends: the resting Ax is ready again; the dead one stays dead.
    to_phase(client, rnd.gm, rnd.cid, "twilight")
    assert client.post(f"/api/v1/campaigns/{rnd.cid}/end-round", json={"round": 2}, headers=rnd.gm).status_code == 200
    models = _models(engine, [ax1, ax2])
    assert (models[ax1].status, models[ax2].status) == ("ready", "dead")
    to_phase(client, rnd.gm, rnd.cid, "orders")
    r = client.put(f"/api/v1/campaigns/{rnd.cid}/warbands/{band}/order", json={"place_id": rnd.places[0]["id"]}, headers=rnd.h(0))
    assert (
        r.status_code == 409 and error_code(r) == "order_model_unavailable" and "Ax 2 is dead" in r.json()["error"]["message"]
    )  # issue 29: the second Ax


def test_r11_5_refusals_change_nothing(client, engine):
    rnd = play_round(client, settle=False)
    ax1 = rnd.models[0][1]
    body = {"course": {"taken_out": [ax1]}}
    r = rnd.put(0, body)  # still Battles
    assert r.status_code == 409 and error_code(r) == "settlement_phase"
    to_phase(client, rnd.gm, rnd.cid, "settlement")
    before = rnd.get(0).json()
    outsider = user(client, "outsider")
    for who, status, code in ((outsider, 404, "not_found"), (rnd.h(1), 404, "not_found"), (rnd.gm, 403, "settlement_owner_only")):
        for attempt in (rnd.put(0, body, who), rnd.close(0, who), rnd.roll(0, ax1, who=who)):
            assert (attempt.status_code, error_code(attempt)) == (status, code)
    r = rnd.put(0, {"course": {"taken_out": [99999]}})
    assert r.status_code == 422 and error_code(r) == "settlement_model_unknown"
    r = rnd.put(0, {"injuries": [{"model_id": ax1, "result": "eaten"}]})
    assert r.status_code == 422 and error_code(r) == "validation_error"
    r = client.get(f"/api/v1/campaigns/{rnd.cid}/battles/{rnd.bid}/settlements/99999", headers=rnd.gm)
    assert r.status_code == 404
    assert rnd.get(0).json() == before
    with Session(engine) as s:
        from app.settlement.models import Settlement

        assert s.exec(select(Settlement)).all() == []


def test_r7_1_the_gm_sees_who_still_has_to_settle(client):
    rnd = play_round(client)
    url = f"/api/v1/campaigns/{rnd.cid}/settlements"
    pending = client.get(url, headers=rnd.gm).json()["pending"]
    assert {(p["player_id"], p["status"]) for p in pending} == {
        (rnd.players[0]["player_id"], "none"),
        (rnd.players[1]["player_id"], "none"),
    }
    rnd.put(0, {})
    rnd.close(1)
    pending = client.get(url, headers=rnd.gm).json()
    assert [(p["player_id"], p["status"]) for p in pending["pending"]] == [(rnd.players[0]["player_id"], "draft")]
    assert [c["player_id"] for c in pending["closed"]] == [rnd.players[1]["player_id"]]
    mine = client.get(url, headers=rnd.h(1)).json()
    assert mine["pending"] == [] and len(mine["closed"]) == 1

"""R12.11 away players over the API: a player (or a GM for them) marks rounds away; their
warbands stay home (no orders) and defend, nothing reminds them (dashboard reminders and
the digest's list), "who has not sent yet" and the Orders deadline's auto-advance do not
wait for them, and everyone sees who is away. Refusals change nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.people.models import Away
from app.season import reminders, scheduler
from app.visibility import viewer_for
from tests.builders.accounts import user
from tests.builders.battles import campaign_with_warbands
from tests.builders.companies import ORC_BAND
from tests.builders.movement import movement_campaign
from tests.builders.responses import error_code
from tests.builders.rounds import send, to_phase


def _url(cid, pid):
    return f"/api/v1/campaigns/{cid}/players/{pid}/away"


def _away_rows(engine):
    with Session(engine) as s:
        return [(a.player_id, a.from_round, a.to_round) for a in s.exec(select(Away).order_by(Away.id)).all()]


def _players(client, cid, headers):
    return {p["player_id"]: p["away"] for p in client.get(f"/api/v1/campaigns/{cid}/players", headers=headers).json()}


def test_r12_11_a_player_marks_rounds_away_and_everyone_sees_it(client, engine):
    gm, cid, players, _ = campaign_with_warbands(client, 2)
    p0, p1 = players
    r = client.put(_url(cid, p0["player_id"]), json={"from_round": 1, "to_round": 2}, headers=p0["headers"])
    assert r.status_code == 200, r.text
    assert r.json() == {"player_id": p0["player_id"], "from_round": 1, "to_round": 2}
    for who in (gm, p0["headers"], p1["headers"]):
        assert _players(client, cid, who) == {p0["player_id"]: {"from_round": 1, "to_round": 2}, p1["player_id"]: None}
    # A GM marks for a player too, and a new span replaces the old one.
    r = client.put(_url(cid, p0["player_id"]), json={"from_round": 2, "to_round": 4}, headers=gm)
    assert r.status_code == 200, r.text
    assert _away_rows(engine) == [(p0["player_id"], 2, 4)]
    assert client.delete(_url(cid, p0["player_id"]), headers=p0["headers"]).status_code == 204
    assert _away_rows(engine) == []


def test_r12_11_refusals_change_nothing(client, engine):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    p0, p1 = players
    assert client.put(_url(cid, p0["player_id"]), json={"from_round": 3, "to_round": 3}, headers=p0["headers"]).status_code == 200
    before = _away_rows(engine)
    outsider = user(client, "outsider")
    for headers, body, status, code in (
        (p1["headers"], {"from_round": 1, "to_round": 1}, 403, "forbidden"),  # another player's seat
        (outsider, {"from_round": 1, "to_round": 1}, 404, "not_found"),
        (p0["headers"], {"from_round": 2, "to_round": 1}, 422, "away_rounds"),
        (p0["headers"], {"from_round": 0, "to_round": 1}, 422, "validation_error"),
    ):
        r = client.put(_url(cid, p0["player_id"]), json=body, headers=headers)
        assert (r.status_code, error_code(r)) == (status, code), r.text
    assert client.delete(_url(cid, p0["player_id"]), headers=p1["headers"]).status_code == 403
    # Orders sent this round: the round cannot be marked away until they are cancelled.
    to_phase(client, gm, cid, "orders")
    send(client, cid, p1, place_id=places[-1]["id"])
    r = client.put(_url(cid, p1["player_id"]), json={"from_round": 1, "to_round": 1}, headers=p1["headers"])
    assert (r.status_code, error_code(r)) == (409, "away_orders_sent")
    # From Battles on, the current round is past marking.
    to_phase(client, gm, cid, "battles")
    r = client.put(_url(cid, p1["player_id"]), json={"from_round": 1, "to_round": 2}, headers=p1["headers"])
    assert (r.status_code, error_code(r)) == (422, "away_rounds")
    assert "round 2 " in r.json()["error"]["message"]  # the first round still open
    assert _away_rows(engine) == before


def test_r12_11_an_away_player_sends_no_orders_and_nobody_waits_for_them(client, engine):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    p0, p1 = players
    assert client.put(_url(cid, p0["player_id"]), json={"from_round": 1, "to_round": 1}, headers=gm).status_code == 200
    to_phase(client, gm, cid, "orders")
    r = client.put(
        f"/api/v1/campaigns/{cid}/warbands/{p0['band']['id']}/order", json={"place_id": places[-1]["id"]}, headers=p0["headers"]
    )
    assert (r.status_code, error_code(r)) == (409, "player_away")
    with Session(engine) as s:
        campaign = s.get(Campaign, cid)
        # Nobody waits for them: the GM's "not sent yet" and the deadline's late list.
        assert reminders.without_orders(s, campaign) == [p1["player_id"]]
    page = client.get(f"/api/v1/campaigns/{cid}", headers=gm)
    assert page.status_code == 200


def test_r12_11_nothing_reminds_an_away_player_and_the_auto_advance_does_not_wait(client, engine, app):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    p0, p1 = players
    assert client.put(_url(cid, p0["player_id"]), json={"from_round": 1, "to_round": 1}, headers=p0["headers"]).status_code == 200
    to_phase(client, gm, cid, "orders")
    ends = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=0)
    r = client.put(
        f"/api/v1/campaigns/{cid}/deadline",
        json={"ends_at": ends.strftime("%Y-%m-%dT%H:%M:%SZ"), "auto_advance": True},
        headers=gm,
    )
    assert r.status_code == 200, r.text
    with Session(engine) as s:
        by_user = {p.id: p.user_id for p in s.exec(select(Player).where(Player.campaign_id == cid)).all()}
        u0, u1 = s.get(User, by_user[p0["player_id"]]), s.get(User, by_user[p1["player_id"]])
        assert reminders.for_viewer(s, viewer_for(s, u0, cid), lambda t: t) == []
        assert [r.kind for r in reminders.for_viewer(s, viewer_for(s, u1, cid), lambda t: t)] == ["orders"]
        assert cid not in [c.campaign.id for c in reminders.for_user(s, u0, lambda t: t)]
    send(client, cid, p1, place_id=places[-1]["id"])
    report = scheduler.tick(app.state.engine, app.state.settings, app.state.catalog.get, now=ends + timedelta(seconds=5))
    assert report.advanced == [cid]
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["phase"] == "battles"


def test_r12_11_r9_8_an_away_players_warbands_stay_home_and_defend(client):
    m = movement_campaign(client)
    ash = m.places["Ash"]
    guard = m.band(0, "Guard", keys=ORC_BAND)
    attackers = m.band(1, "Attackers")
    r = client.put(_url(m.cid, m.pid(0)), json={"from_round": 1, "to_round": 1}, headers=m.players[0]["headers"])
    assert r.status_code == 200, r.text
    m.phase("orders")
    m.sent(1, attackers["id"], place_id=ash)
    m.phase("battles")
    [battle] = m.battles()
    sides = {tuple(s["player_ids"]): s for s in battle["sides"]}
    assert battle["place_id"] == ash
    assert [w["id"] for w in sides[(m.pid(0),)]["warbands"]] == [guard["id"]]

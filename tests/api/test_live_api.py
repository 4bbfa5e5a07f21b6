"""R11.4 live updates: the stream of `GET /api/v1/campaigns/{cid}/stream`, one test per kind of
update, and R11.2 for each secret it could carry: the streams of those who may not see it stay
silent. Silence is checked in order, not by waiting: after the secret, a public change follows,
and the onlooker's next event must be that change."""

from __future__ import annotations

import json
import math
import time
from datetime import UTC

import pytest
from sqlmodel import Session, select

from app.live.models import LiveEvent
from tests.api.live_helpers import listen, stream_server
from tests.api.test_twilight_api import _unopposed_round
from tests.builders.accounts import token_headers, user
from tests.builders.battles import two_fight_one_watches
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.guilds import guild_campaign
from tests.builders.pages import csrf, login
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase
from tests.builders.settlements import play_round

ALL_MODULES = {"guilds": True, "mission_alliances": True, "letters": True, "gold_transfers": True}


def _next_is_phase(stream, phase: str):
    """The stream's next event is the public phase change (nothing secret came before it)."""
    ev = stream.next()
    assert (ev.kind, ev.data.get("phase")) == ("phase", phase), ev
    return ev


# --- one test per kind of update ------------------------------------------------------------------


def test_r11_4_phase_change_reaches_every_member(client, listen):
    gm, cid, players, places = running_campaign(client, 2)
    streams = [listen(cid, p["headers"]) for p in players]
    gm_stream = listen(cid, gm)
    to_phase(client, gm, cid, "orders")
    for s in streams:
        ev = s.next()
        assert (ev.kind, ev.data["phase"], ev.data["round"], ev.data["campaign_id"]) == ("phase", "orders", 1, cid)
        assert ev.data["message"] == "Round 1: Orders."
    # The GM made the change: their stream hears it, without a message.
    ev = gm_stream.next()
    assert ev.data["phase"] == "orders" and ev.data["message"] is None


def test_r11_4_end_round_says_which_round_ended(client, listen):
    gm, cid, players, free = _unopposed_round(client)
    r = client.post(
        f"/api/v1/campaigns/{cid}/twilight/choices", json={"place_id": free, "player_id": players[0]["player_id"]}, headers=gm
    )
    assert r.status_code == 200, r.text
    s = listen(cid, players[2]["headers"])
    assert client.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": 1}, headers=gm).status_code == 200
    ev = s.next()
    assert (ev.kind, ev.data["step"], ev.data["ended"], ev.data["round"], ev.data["phase"]) == (
        "phase",
        "round_ended",
        1,
        2,
        "preparation",
    )
    assert ev.data["message"] == "Round 1 is over. Round 2 begins: Preparation."


def test_r11_4_battles_announced_reach_every_member_in_their_language(client, listen):
    gm, cid, players, places = running_campaign(client, 2)
    r = client.patch("/api/v1/me", json={"locale": "pl"}, headers=players[1]["headers"])
    assert r.status_code == 200, r.text
    for p, (faction, keys) in zip(
        players, (("orcs", ("orcs.krusher", "orcs.ax")), ("basileans", ("basileans.veteran-sergeant", "basileans.man-at-arms")))
    ):
        p["band"] = warband(client, cid, p, buy(client, cid, p, *keys, faction=faction))
    to_phase(client, gm, cid, "orders")
    for p in players:
        r = client.put(
            f"/api/v1/campaigns/{cid}/warbands/{p['band']['id']}/order", json={"place_id": places[2]["id"]}, headers=p["headers"]
        )
        assert r.status_code == 200, r.text
    english, polish = (listen(cid, p["headers"]) for p in players)
    to_phase(client, gm, cid, "battles")
    assert english.next().data["phase"] == "battles"
    ev = english.next()
    assert (ev.kind, ev.data["round"], ev.data["message"]) == ("battles", 1, "The battles of round 1 are announced.")
    assert polish.next().data["message"] is None  # the battles event that follows says it
    assert polish.next().data["message"] == "Bitwy rundy 1 są ogłoszone."


def test_r11_4_the_gms_word_on_a_result_reaches_both_sides(client, listen):
    rnd = play_round(client, settle=False)
    # play_round entered and confirmed a result; the GM corrects it.
    gm, cid, players = rnd.gm, rnd.cid, rnd.players
    opponent, reporter, gm_stream = listen(cid, players[1]["headers"]), listen(cid, players[0]["headers"]), listen(cid, gm)
    r = client.post(
        f"/api/v1/campaigns/{cid}/battles/{rnd.bid}/resolve", json={"winner_player_ids": [players[1]["player_id"]]}, headers=gm
    )
    assert r.status_code == 200, r.text
    for s in (opponent, reporter):
        ev = s.next()
        assert (ev.kind, ev.data["subject_id"], ev.data["status"]) == ("result", rnd.bid, "resolved")
        assert ev.data["message"] == "The result of the battle at Place 2 was decided by the GM."  # issue 29
    assert gm_stream.next().data["message"] is None


def test_r11_4_reported_and_disputed_results(client, listen):
    gm, cid, players, battle = two_fight_one_watches(client)
    opponent, reporter, onlooker, gm_stream = (
        listen(cid, h) for h in (players[1]["headers"], players[0]["headers"], players[2]["headers"], gm)
    )
    r = client.post(
        f"/api/v1/campaigns/{cid}/battles/{battle['id']}/result",
        json={"winner_player_ids": [players[0]["player_id"]]},
        headers=players[0]["headers"],
    )
    assert r.status_code == 200, r.text
    ev = opponent.next()
    assert (ev.kind, ev.data["status"], ev.data["subject_id"]) == ("result", "reported", battle["id"])
    assert ev.data["message"] == "A result waits for your confirmation: the battle at Place 3."
    # Battles are public from Battles on: everyone's page refreshes, quietly.
    for s in (reporter, onlooker, gm_stream):
        ev = s.next()
        assert (ev.kind, ev.data["status"], ev.data["message"]) == ("result", "reported", None)
    r = client.post(
        f"/api/v1/campaigns/{cid}/battles/{battle['id']}/dispute", json={"reason": "Wrong winner"}, headers=players[1]["headers"]
    )
    assert r.status_code == 200, r.text
    assert gm_stream.next().data["message"] == "The result of the battle at Place 3 is disputed."
    assert reporter.next().data["message"] == "The result of the battle at Place 3 is disputed."
    assert onlooker.next().data["message"] is None


def test_r11_4_r11_2_a_closed_settlement_tells_the_gm_and_nobody_else(client, listen):
    rnd = play_round(client)
    gm_stream, opponent = listen(rnd.cid, rnd.gm), listen(rnd.cid, rnd.h(1))
    assert rnd.close(0).status_code == 200
    ev = gm_stream.next()
    assert (ev.kind, ev.data["action"], ev.data["player_id"], ev.data["subject_id"]) == (
        "settlement",
        "closed",
        rnd.players[0]["player_id"],
        rnd.bid,
    )
    assert ev.data["message"] == "player0 closed the settlement of a warband."
    # The settlement is the owner's and the GM's (R11.2): the opponent hears nothing of it.
    rnd.close(1)
    assert opponent.next().data["player_id"] == rnd.players[1]["player_id"]  # their own, not player0's


def test_r11_4_a_reopened_settlement_tells_its_owner(client, listen):
    rnd = play_round(client)
    assert rnd.close(0).status_code == 200
    owner = listen(rnd.cid, rnd.h(0))
    r = rnd.client.post(rnd.url(0) + "/reopen", headers=rnd.gm)
    assert r.status_code == 200, r.text
    ev = owner.next()
    assert (ev.kind, ev.data["action"], ev.data["message"]) == ("settlement", "reopened", "The GM reopened your settlement.")


def test_r11_4_r11_2_a_letter_reaches_its_recipient_only(client, listen):
    g = guild_campaign(client, 3, modules=ALL_MODULES)
    recipient, onlooker, gm_stream, sender = (
        listen(g.cid, g.h(1)),
        listen(g.cid, g.h(2)),
        listen(g.cid, g.gm),
        listen(g.cid, g.h(0)),
    )
    r = g.post(0, "/letters", {"to_player_id": g.pid(1), "subject": "Sealed", "body": "Meet at dawn"})
    assert r.status_code == 201, r.text
    ev = recipient.next()
    assert (ev.kind, ev.data["subject_id"], ev.data["message"]) == ("letter", r.json()["id"], "New letter from player0.")
    assert "Sealed" not in str(ev.data) and "dawn" not in str(ev.data)
    assert sender.next().data["message"] is None  # the sender's other pages refresh their outbox
    g.phase("orders")
    for s in (onlooker, gm_stream):
        _next_is_phase(s, "orders")
    # A letter to the GM reaches the GM, from "the GM"'s point of view named by its sender.
    r = g.post(2, "/letters", {"to_gm": True, "subject": "Question", "body": "?"})
    assert r.status_code == 201, r.text
    assert gm_stream.next().data["message"] == "New letter from player2."


def test_r11_4_r11_2_a_transfer_reaches_its_recipient_only(client, listen):
    g = guild_campaign(client, 3, modules=ALL_MODULES)
    recipient, onlooker, gm_stream = listen(g.cid, g.h(1)), listen(g.cid, g.h(2)), listen(g.cid, g.gm)
    r = g.post(0, "/transfers", {"to_player_id": g.pid(1), "amount": 23, "note": "for the bridge"})
    assert r.status_code == 201, r.text
    ev = recipient.next()
    assert (ev.kind, ev.data["message"]) == ("transfer", "player0 sent you 23 gold.")
    assert "bridge" not in str(ev.data)
    g.phase("orders")
    for s in (onlooker, gm_stream):  # not another player, not the GM (R8.11)
        _next_is_phase(s, "orders")


def test_r11_4_r11_2_guild_requests_and_invitations_reach_whom_they_concern(client, listen):
    g = guild_campaign(client, 4, modules=ALL_MODULES)
    guild = g.found(0, "Iron Hand")
    founder, asker, invitee, onlooker = (listen(g.cid, g.h(i)) for i in range(4))
    r = g.post(1, f"/guilds/{guild['id']}/requests")
    assert r.status_code == 201, r.text
    assert founder.next().data["message"] == "player1 asks to join Iron Hand."
    assert asker.next().data["message"] is None
    g.invite(0, guild["id"], 2)
    assert founder.next().data["message"] is None
    assert invitee.next().data["message"] == "Iron Hand invites you to join."
    g.phase("orders")
    _next_is_phase(onlooker, "orders")
    _next_is_phase(asker, "orders")  # not the invitation of another


def test_r11_4_r11_2_a_mission_alliance_reaches_its_invitees_only(client, listen):
    g = guild_campaign(client, 4, modules=ALL_MODULES)
    ev_id = g.event(4, "Bridge")
    invitee, outsider_player, gm_stream = listen(g.cid, g.h(1)), listen(g.cid, g.h(3)), listen(g.cid, g.gm)
    a = g.ally(0, ev_id, 1)
    ev = invitee.next()
    assert (ev.kind, ev.data["subject_id"], ev.data["message"]) == (
        "alliance",
        a["id"],
        "player0 invites you to a mission alliance.",
    )
    g.phase("orders")
    for s in (outsider_player, gm_stream):  # R8.8: not the GM, not another player
        _next_is_phase(s, "orders")


def test_r11_4_twilight_tells_the_gm_how_many_places_wait_for_a_choice(client, listen):
    gm, cid, players, free = _unopposed_round(client, phase="settlement")
    gm_stream, player_stream = listen(cid, gm), listen(cid, players[2]["headers"])
    to_phase(client, gm, cid, "twilight")
    assert gm_stream.next().data["phase"] == "twilight"
    ev = gm_stream.next()
    assert (ev.kind, ev.data["count"], ev.data["message"]) == ("twilight", 1, "Twilight: places waiting for your choice: 1.")
    _next_is_phase(player_stream, "twilight")
    to_phase_body = client.post(
        f"/api/v1/campaigns/{cid}/twilight/choices", json={"place_id": free, "player_id": players[0]["player_id"]}, headers=gm
    )
    assert to_phase_body.status_code == 200
    assert client.post(f"/api/v1/campaigns/{cid}/end-round", json={"round": 1}, headers=gm).status_code == 200
    assert player_stream.next().data["step"] == "round_ended"  # the GM's twilight count never reached a player


# --- who may listen ---------------------------------------------------------------------------------


def test_r11_2_outsiders_and_anonymous_get_no_stream(client, listen):
    gm, cid, players, places = running_campaign(client, 2)
    outsider = listen(cid, user(client, "outsider"))
    assert outsider.status == 404 and error_code_of(outsider) == "not_found"
    anonymous = listen(cid, {})
    assert anonymous.status == 401 and error_code_of(anonymous) == "not_logged_in"
    nobody = listen(cid + 1000, gm)
    assert nobody.status == 404


def error_code_of(listener) -> str:
    return json.loads(listener.body)["error"]["code"]


def test_r11_4_streams_per_user_are_capped(client, listen, app, monkeypatch):
    monkeypatch.setattr(app.state.settings, "live_max_streams_per_user", 2)
    gm, cid, players, places = running_campaign(client, 2)
    first, second = listen(cid, players[0]["headers"]), listen(cid, players[0]["headers"])
    third = listen(cid, players[0]["headers"])
    assert (first.status, second.status, third.status) == (200, 200, 429)
    assert error_code_of(third) == "live_too_many_streams"
    assert listen(cid, players[1]["headers"]).status == 200  # the cap is per user


# --- robust streams -----------------------------------------------------------------------------------


def test_r11_4_resume_with_last_event_id_gets_what_was_missed_in_order(client, listen):
    gm, cid, players, places = running_campaign(client, 2)
    s = listen(cid, players[0]["headers"])
    to_phase(client, gm, cid, "orders")
    seen = s.next()
    s.close()
    to_phase(client, gm, cid, "battles")
    to_phase(client, gm, cid, "settlement")
    resumed = listen(cid, {**players[0]["headers"], "Last-Event-ID": seen.id})
    assert [(ev.kind, ev.data.get("phase")) for ev in (resumed.next() for _ in range(3))] == [
        ("phase", "battles"),
        ("battles", None),
        ("phase", "settlement"),
    ]
    # The id is opaque (it does not count events) and the query parameter does the same as the header.
    assert len(seen.id) == 16 and not seen.id.isdigit()
    again = listen(cid, players[0]["headers"], f"?after={seen.id}")
    assert [again.next().kind for _ in range(3)] == ["phase", "battles", "phase"]


def test_r11_4_too_much_missed_or_an_unknown_id_asks_to_reload(client, listen, app, monkeypatch):
    monkeypatch.setattr(app.state.settings, "live_replay_limit", 2)
    gm, cid, players, places = running_campaign(client, 2)
    s = listen(cid, players[0]["headers"])
    to_phase(client, gm, cid, "orders")
    seen = s.next()
    s.close()
    for phase in ("battles", "settlement", "twilight"):
        to_phase(client, gm, cid, phase)
    resumed = listen(cid, {**players[0]["headers"], "Last-Event-ID": seen.id})
    ev = resumed.next()
    assert ev.kind == "reload" and ev.data["message"] == "You missed several updates: the page is brought up to date."
    assert ev.id is not None and ev.id != seen.id
    bogus = listen(cid, {**players[0]["headers"], "Last-Event-ID": "00000000deadbeef"})
    assert bogus.next().kind == "reload"


def _stamped_ms(engine, cid: int) -> tuple[int, int]:
    """When the campaign's oldest and newest events were stamped, in milliseconds. Read from the
    events, not the test's clock: a remembered world (tests/builders/memo.py) keeps the moments it
    was first built at, which may be minutes before this test (a page drawn "a minute ago" was
    then drawn after them), and a loaded machine may take seconds between two calls."""
    with Session(engine) as s:
        stamps = s.exec(select(LiveEvent.created_at).where(LiveEvent.campaign_id == cid)).all()

    def ms(moment):
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        return moment.timestamp() * 1000

    return math.floor(ms(min(stamps))), math.ceil(ms(max(stamps)))


def test_r11_4_a_page_stream_starts_when_the_page_was_drawn(client, listen, engine):
    gm, cid, players, places = running_campaign(client, 2)
    oldest, _ = _stamped_ms(engine, cid)
    to_phase(client, gm, cid, "orders")
    _, drawn = _stamped_ms(engine, cid)  # a page drawn just after the change
    later = listen(cid, players[0]["headers"], f"?since={drawn}")
    earlier = listen(cid, players[0]["headers"], f"?since={oldest - 1}")
    # Drawn before the campaign began: the hideouts, the start and the change are all sent, in order.
    steps = [earlier.next().data for _ in range(3)]
    assert [(d["step"], d["message"]) for d in steps] == [
        ("hideouts", "Choose your hideout: the GM opened the hideouts."),
        ("started", "The campaign has begun: round 1, Preparation."),
        ("phase", "Round 1: Orders."),
    ]
    to_phase(client, gm, cid, "battles")
    assert later.next().data["phase"] == "battles"  # drawn after: not sent again


def test_r11_4_heartbeats_keep_an_idle_stream_open(client, listen, app, monkeypatch):
    monkeypatch.setattr(app.state.settings, "live_heartbeat_seconds", 0.2)
    gm, cid, players, places = running_campaign(client, 2)
    s = listen(cid, players[0]["headers"])
    deadline = time.monotonic() + 5
    while len(s.comments) < 3:
        assert time.monotonic() < deadline, "no heartbeats"
        time.sleep(0.05)
    assert all(line == ": keep-alive" for _, line in s.comments)


def test_r11_4_revoking_the_token_closes_its_stream(client, listen):
    gm, cid, players, places = running_campaign(client, 2)
    headers = token_headers(client, "player0")
    s = listen(cid, headers)
    other = listen(cid, players[0]["headers"])  # another token of the same user stays open
    assert client.delete("/api/v1/auth/tokens/current", headers=headers).status_code == 204
    ev = s.next()
    assert (ev.kind, ev.data["reason"]) == ("closed", "logged_out")
    assert s.ended.wait(5)
    to_phase(client, gm, cid, "orders")
    assert other.next().data["phase"] == "orders"


def test_r11_4_logging_out_closes_the_page_stream(client, listen, make_client, stream_server):
    gm, cid, players, places = running_campaign(client, 2)
    browser = make_client()
    login(browser, "player0")
    cookie = browser.cookies.get("hideout_session")
    s = listen(cid, {"Cookie": f"hideout_session={cookie}"})
    assert s.status == 200
    r = browser.post("/logout", data={"csrf_token": csrf(browser)})
    assert r.status_code in (200, 303)
    ev = s.next()
    assert (ev.kind, ev.data["reason"], ev.data["message"]) == (
        "closed",
        "logged_out",
        "You are logged out: live updates stopped.",
    )
    assert s.ended.wait(5)


@pytest.mark.parametrize("query", ["?after=xyz", "?after=" + "f" * 17, "?since=-1", "?since=abc"])
def test_r11_5_a_bad_resume_point_is_a_clear_422(client, query):
    gm, cid, players, places = running_campaign(client, 2)
    r = client.get(f"/api/v1/campaigns/{cid}/stream{query}", headers=gm)
    assert r.status_code == 422 and error_code(r) == "validation_error"


def test_issue18_r11_4_a_clock_tap_reaches_every_member_quietly_and_an_asked_step_tells_nothing(client, listen, make_client):
    from tests.builders.pages import post

    gm, cid, players, battle = two_fight_one_watches(client)
    opponent, onlooker, gm_stream = (listen(cid, h) for h in (players[1]["headers"], players[2]["headers"], gm))
    # A one-way step asked first (the confirm page) runs the action, then rolls it back: no event.
    browser = make_client()
    login(browser, "player0")
    asked = post(browser, f"/campaigns/{cid}/battles/{battle['id']}/result", {"winner_one": str(players[0]["player_id"])})
    assert asked.status_code == 200 and "confirm" in asked.text
    r = client.post(
        f"/api/v1/campaigns/{cid}/battles/{battle['id']}/clock", json={"action": "start"}, headers=players[0]["headers"]
    )
    assert r.status_code == 200, r.text
    for s in (opponent, onlooker, gm_stream):
        ev = s.next()
        assert (ev.kind, ev.data["subject_id"], ev.data["status"], ev.data["turn"], ev.data["message"]) == (
            "clock",
            battle["id"],
            "running",
            1,
            None,
        ), ev


def test_issue19_r11_4_a_deadline_redraws_open_pages_quietly(client, listen):
    from datetime import datetime, timedelta

    gm, cid, players, places = running_campaign(client, 2)
    stream = listen(cid, players[0]["headers"])
    ends_at = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0).isoformat()
    r = client.put(f"/api/v1/campaigns/{cid}/deadline", json={"ends_at": ends_at, "auto_advance": False}, headers=gm)
    assert r.status_code == 200, r.text
    ev = stream.next()
    assert (ev.kind, ev.data["step"], ev.data["message"]) == ("phase", "deadline", None), ev
    assert client.delete(f"/api/v1/campaigns/{cid}/deadline", headers=gm).status_code == 204
    assert (stream.next().data["step"]) == "deadline"

"""The battle clock over the API (issue 18): its settings (campaign, event), running it at the
table (start, switch, pause, resume, next turn, roll, end, the GM's correction), who may, when,
what is refused (and that a refusal changes nothing), and the chronicle's record. The time is
injected (service.now_ms patched, or service.act(now=...)): nothing sleeps."""

from __future__ import annotations

import random

import pytest
from sqlmodel import Session, func, select

from app.accounts.models import User
from app.battles.models import Battle
from app.chronicle.models import ChronicleEntry
from app.clock import service
from app.clock.models import BattleClock
from app.events.models import Event
from tests.api.clock_helpers import clock_battle, clock_battle_with_onlooker, clock_url, read_clock, sides, tap
from tests.builders.accounts import user
from tests.builders.battles import battles, campaign_with_warbands
from tests.builders.responses import error_code
from tests.builders.rounds import event, fight, to_phase

MIN = 60_000
T0 = 1_800_000_000_000


class Clock:
    """The server's time, moved by the test."""

    def __init__(self):
        self.now = T0

    def __call__(self) -> int:
        return self.now

    def after(self, ms: int) -> int:
        self.now += ms
        return self.now


@pytest.fixture
def at(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(service, "now_ms", clock)
    return clock


def put_settings(client, cid, headers, expect: int = 200, **body) -> dict:
    r = client.put(f"/api/v1/campaigns/{cid}/clock-settings", json=body, headers=headers)
    assert r.status_code == expect, r.text
    return r.json()


def side_of(battle: dict, player: dict) -> int:
    return next(s["side"] for s in battle["sides"] if player["player_id"] in s["player_ids"])


def by_side(clock: dict) -> dict[int, dict]:
    return {s["side"]: s for s in clock["sides"]}


def refused(client, cid, battle, headers, status: int, code: str, **body) -> None:
    r = client.post(clock_url(cid, battle), json=body, headers=headers)
    assert r.status_code == status, r.text
    assert error_code(r) == code, r.text


def chronicle(client, cid, headers) -> list[dict]:
    return client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=headers).json()["items"]


def clock_rows(engine) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(BattleClock)).one()


# --- settings ----------------------------------------------------------------------------------


def test_issue18_before_start_the_clock_is_ready_with_the_campaigns_settings(client, at):
    gm, cid, players, battle = clock_battle(client)
    plain = read_clock(client, cid, battle, players[0]["headers"])
    assert (plain["minutes_per_side"], plain["max_turns"], plain["extra_turn_on"]) == (None, 6, 4)  # the pack's
    assert all(s["remaining_ms"] is None and not s["out_of_time"] for s in plain["sides"])
    assert put_settings(client, cid, gm, minutes_per_side=45, max_turns=5, extra_turn_on=5) == {
        "minutes_per_side": 45,
        "max_turns": 5,
        "extra_turn_on": 5,
    }
    assert client.get(f"/api/v1/campaigns/{cid}/clock-settings", headers=players[1]["headers"]).json() == {
        "minutes_per_side": 45,
        "max_turns": 5,
        "extra_turn_on": 5,
    }
    clock = read_clock(client, cid, battle, players[1]["headers"])
    assert clock["battle_id"] == battle["id"]
    assert (clock["status"], clock["turn"], clock["running_side"], clock["version"]) == ("ready", 1, None, 0)
    assert (clock["minutes_per_side"], clock["max_turns"], clock["extra_turn_on"]) == (45, 5, 5)
    assert (clock["extra_roll"], clock["ended_reason"]) == (None, None)
    assert clock["order"] == sides(battle)
    for s, b in zip(clock["sides"], battle["sides"]):
        assert s["side"] == b["side"] and s["player_ids"] == b["player_ids"]
        assert s["warbands"] == [w["name"] for w in b["warbands"]]
        assert (s["remaining_ms"], s["out_of_time"], s["out_turn"]) == (45 * MIN, False, None)


def test_issue18_an_events_clock_overrides_the_campaigns_and_null_gives_it_back(client, at):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    put_settings(client, cid, gm, minutes_per_side=60, max_turns=6, extra_turn_on=4)
    ev = event(client, gm, cid, places[2]["id"], "Bridge")
    url = f"/api/v1/campaigns/{cid}/events/{ev['id']}/clock-settings"
    r = client.put(url, json={"clock": {"minutes_per_side": 30, "max_turns": 4, "extra_turn_on": None}}, headers=gm)
    assert r.status_code == 200, r.text
    own = {"minutes_per_side": 30, "max_turns": 4, "extra_turn_on": None}
    assert r.json() == {"event_id": ev["id"], "clock": own, "effective": own}
    fight(client, gm, cid, players, event_id=ev["id"])
    [battle] = battles(client, cid, gm)
    assert battle["event_id"] == ev["id"]
    clock = read_clock(client, cid, battle, players[0]["headers"])
    assert (clock["minutes_per_side"], clock["max_turns"], clock["extra_turn_on"]) == (30, 4, None)
    assert {s["remaining_ms"] for s in clock["sides"]} == {30 * MIN}
    # Back to the campaign's: the event's battles follow it again (until their clock starts).
    r = client.put(url, json={"clock": None}, headers=gm)
    assert r.status_code == 200 and r.json() == {
        "event_id": ev["id"],
        "clock": None,
        "effective": {"minutes_per_side": 60, "max_turns": 6, "extra_turn_on": 4},
    }
    clock = read_clock(client, cid, battle, players[0]["headers"])
    assert (clock["minutes_per_side"], clock["max_turns"], clock["extra_turn_on"]) == (60, 6, 4)
    # Started on the event's clock, it keeps it.
    client.put(url, json={"clock": {"minutes_per_side": 20, "max_turns": 3}}, headers=gm)
    started = tap(client, cid, battle, players[0]["headers"], action="start")
    assert (started["minutes_per_side"], started["max_turns"], started["extra_turn_on"]) == (20, 3, 4)


def test_issue18_clock_settings_are_the_gms_and_validated(client, engine):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    ev = event(client, gm, cid, places[2]["id"], "Bridge")
    put_settings(client, cid, gm, minutes_per_side=30, max_turns=6, extra_turn_on=4)
    before = client.get(f"/api/v1/campaigns/{cid}/clock-settings", headers=gm).json()
    r = client.put(f"/api/v1/campaigns/{cid}/clock-settings", json={"minutes_per_side": 10}, headers=players[0]["headers"])
    assert r.status_code == 403 and error_code(r) == "gm_only"
    for bad in (
        {"minutes_per_side": 0},
        {"minutes_per_side": 601},
        {"minutes_per_side": -5},
        {"max_turns": 0},
        {"max_turns": 21},
        {"extra_turn_on": 1},
        {"extra_turn_on": 7},
        {"minutes_per_side": "soon"},
        {"minutes_per_side": 10, "colour": "red"},
        {"max_turns": None},
    ):
        r = client.put(f"/api/v1/campaigns/{cid}/clock-settings", json=bad, headers=gm)
        assert r.status_code == 422, (bad, r.text)
        assert error_code(r) == "validation_error", bad
    assert client.get(f"/api/v1/campaigns/{cid}/clock-settings", headers=gm).json() == before
    # No time limit and no extra turn are settings too; what is left out takes the pack's.
    assert put_settings(client, cid, gm, minutes_per_side=None, max_turns=20, extra_turn_on=None) == {
        "minutes_per_side": None,
        "max_turns": 20,
        "extra_turn_on": None,
    }
    assert put_settings(client, cid, gm) == {"minutes_per_side": None, "max_turns": 6, "extra_turn_on": 4}
    # An event's clock: the GM's too, validated the same way; an unknown event is not found.
    url = f"/api/v1/campaigns/{cid}/events/{ev['id']}/clock-settings"
    r = client.put(url, json={"clock": None}, headers=players[0]["headers"])
    assert r.status_code == 403 and error_code(r) == "gm_only"
    for bad in (
        {"clock": {"minutes_per_side": 0}},
        {"clock": {"max_turns": 21}},
        {"clock": {"extra_turn_on": 1}},
        {"clock": None, "extra": 1},
        {"clock": "long"},
    ):
        r = client.put(url, json=bad, headers=gm)
        assert r.status_code == 422 and error_code(r) == "validation_error", bad
    r = client.put(f"/api/v1/campaigns/{cid}/events/999999/clock-settings", json={"clock": None}, headers=gm)
    assert r.status_code == 404
    outsider = user(client, "outsider")
    assert client.put(url, json={"clock": None}, headers=outsider).status_code == 404
    assert client.put(url, json={"clock": None}).status_code == 401
    with Session(engine) as s:
        assert s.get(Event, ev["id"]).clock is None


def test_issue18_a_running_clock_keeps_the_settings_it_started_with(client, at):
    gm, cid, players, battle = clock_battle(client)
    put_settings(client, cid, gm, minutes_per_side=10, max_turns=6, extra_turn_on=4)
    first = side_of(battle, players[0])
    tap(client, cid, battle, players[0]["headers"], action="start", side=first)
    put_settings(client, cid, gm, minutes_per_side=90, max_turns=3, extra_turn_on=None)
    at.after(MIN)
    clock = read_clock(client, cid, battle, gm)
    assert (clock["minutes_per_side"], clock["max_turns"], clock["extra_turn_on"]) == (10, 6, 4)
    assert by_side(clock)[first]["remaining_ms"] == 9 * MIN
    clock = tap(client, cid, battle, players[1]["headers"], action="next_turn")
    clock = tap(client, cid, battle, players[1]["headers"], action="next_turn")
    clock = tap(client, cid, battle, players[1]["headers"], action="next_turn")
    assert (clock["status"], clock["turn"]) == ("running", 4)  # not ended after the new 3 turns


# --- running it --------------------------------------------------------------------------------


def test_issue18_start_switch_pause_resume_next_turn_and_end(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, minutes_per_side=10, max_turns=6, extra_turn_on=4)
    a, b = side_of(battle, anna), side_of(battle, borys)
    # Borys plays first: the order turns so that his side leads.
    clock = tap(client, cid, battle, anna["headers"], action="start", side=b, version=0)
    assert (clock["status"], clock["turn"], clock["running_side"], clock["order"], clock["version"]) == (
        "running",
        1,
        b,
        [b, a],
        1,
    )
    at.after(20_000)
    clock = read_clock(client, cid, battle, anna["headers"])
    assert by_side(clock)[b]["remaining_ms"] == 10 * MIN - 20_000 and by_side(clock)[a]["remaining_ms"] == 10 * MIN
    at.after(10_000)
    clock = tap(client, cid, battle, borys["headers"], action="switch")
    assert (clock["running_side"], clock["turn"], clock["version"]) == (a, 1, 2)
    at.after(5_000)
    clock = tap(client, cid, battle, gm, action="pause")
    assert (clock["status"], clock["running_side"]) == ("paused", a)
    at.after(3_600_000)  # an hour's break costs nobody anything
    clock = read_clock(client, cid, battle, borys["headers"])
    assert by_side(clock)[a]["remaining_ms"] == 10 * MIN - 5_000
    assert by_side(clock)[b]["remaining_ms"] == 10 * MIN - 30_000
    clock = tap(client, cid, battle, anna["headers"], action="start")  # resume
    assert (clock["status"], clock["running_side"]) == ("running", a)
    at.after(15_000)
    clock = tap(client, cid, battle, anna["headers"], action="switch")
    assert (clock["turn"], clock["running_side"]) == (2, b)  # past the last side: turn 2, Borys leads again
    assert by_side(clock)[a]["remaining_ms"] == 10 * MIN - 20_000
    clock = tap(client, cid, battle, borys["headers"], action="next_turn")
    assert (clock["turn"], clock["running_side"]) == (3, b)
    at.after(1_000)
    clock = tap(client, cid, battle, borys["headers"], action="end")
    assert (clock["status"], clock["ended_reason"], clock["running_side"], clock["turn"]) == ("ended", "manual", None, 3)
    assert by_side(clock)[b]["remaining_ms"] == 10 * MIN - 31_000
    refused(client, cid, battle, anna["headers"], 409, "clock_ended", action="switch")
    refused(client, cid, battle, anna["headers"], 409, "clock_ended", action="start")
    entries = chronicle(client, cid, anna["headers"])
    assert entries[0]["kind"] == "clock_ended" and "ended at the table" in entries[0]["text"] and "3" in entries[0]["text"]


def test_issue18_the_extra_turn_roll_entered_or_made_by_the_server(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, minutes_per_side=None, max_turns=1, extra_turn_on=4)
    refused(client, cid, battle, anna["headers"], 409, "clock_not_started", action="roll", roll=5)
    tap(client, cid, battle, anna["headers"], action="start")
    clock = tap(client, cid, battle, borys["headers"], action="roll", roll=5)
    assert clock["extra_roll"] == 5 and clock["turn"] == 1
    assert all(s["remaining_ms"] is None for s in clock["sides"])
    refused(client, cid, battle, anna["headers"], 409, "clock_rolled", action="roll", roll=2)
    refused(client, cid, battle, anna["headers"], 409, "clock_rolled", action="roll")
    clock = tap(client, cid, battle, anna["headers"], action="next_turn")  # the entered 5 >= 4: turn 2
    assert (clock["status"], clock["turn"], clock["extra_roll"]) == ("running", 2, 5)
    clock = tap(client, cid, battle, anna["headers"], action="next_turn")
    assert (clock["status"], clock["ended_reason"], clock["turn"]) == ("ended", "turns", 2)
    entries = chronicle(client, cid, gm)
    assert entries[0]["kind"] == "clock_ended" and "the last turn was played" in entries[0]["text"]


def test_issue18_the_server_rolls_the_extra_turn_once_and_keeps_it(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, max_turns=1, extra_turn_on=4)
    tap(client, cid, battle, anna["headers"], action="start")
    clock = tap(client, cid, battle, anna["headers"], action="roll")
    rolled = clock["extra_roll"]
    assert rolled in range(1, 7)
    refused(client, cid, battle, borys["headers"], 409, "clock_rolled", action="roll", roll=6)
    clock = tap(client, cid, battle, borys["headers"], action="next_turn")
    if rolled >= 4:
        assert (clock["status"], clock["turn"], clock["extra_roll"]) == ("running", 2, rolled)
    else:
        assert (clock["status"], clock["ended_reason"], clock["turn"], clock["extra_roll"]) == ("ended", "turns", 1, rolled)


def test_issue18_without_a_roll_the_last_turn_rolls_a_seeded_die(client, at, engine):
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, max_turns=1, extra_turn_on=4)
    tap(client, cid, battle, anna["headers"], action="start")
    clock = tap(client, cid, battle, anna["headers"], action="next_turn")
    rolled = clock["extra_roll"]
    assert rolled in range(1, 7)
    assert (clock["turn"] == 2) == (rolled >= 4) and (clock["status"] == "ended") == (rolled < 4)
    with Session(engine) as s:  # the battle's die: the same on every phone
        seed = s.get(Battle, battle["id"]).seed
    assert rolled == random.Random(f"clock:{seed}:{battle['id']}:1").randint(1, 6)


def test_issue18_no_extra_turn_ends_after_max_turns(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, max_turns=2, extra_turn_on=None)
    tap(client, cid, battle, anna["headers"], action="start")
    refused(client, cid, battle, anna["headers"], 409, "clock_no_extra_turn", action="roll", roll=6)
    for _ in range(3):
        clock = tap(client, cid, battle, anna["headers"], action="switch")
    assert (clock["turn"], clock["status"]) == (2, "running")
    clock = tap(client, cid, battle, borys["headers"], action="switch")
    assert (clock["status"], clock["ended_reason"], clock["turn"], clock["extra_roll"]) == ("ended", "turns", 2, None)


def test_issue18_running_out_of_time_is_recorded_and_ends_the_game_when_all_are_out(client, engine):
    """With service.act and an explicit `now`: a 1-minute game, both sides run out."""
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, minutes_per_side=1, max_turns=6, extra_turn_on=4)
    a, b = side_of(battle, anna), side_of(battle, borys)

    def act(nickname: str, now: int, **tap_):
        with Session(engine) as s:
            actor = s.exec(select(User).where(User.nickname == nickname)).one()
            view = service.act(s, actor=actor, campaign_id=cid, battle_id=battle["id"], tap=service.Tap(**tap_), now=now)
            s.commit()
            return view.as_dict()

    def read(now: int):
        with Session(engine) as s:
            actor = s.exec(select(User).where(User.nickname == "gamemaster")).one()
            return service.battle_clock(s, actor=actor, campaign_id=cid, battle_id=battle["id"], now=now).as_dict()

    act("player0", T0, action="start", side=a)
    clock = read(T0 + 61_000)
    assert by_side(clock)[a] == {**by_side(clock)[a], "remaining_ms": 0, "out_of_time": True, "out_turn": None}
    assert clock["running_side"] == a  # the side finishes its action
    clock = act("player0", T0 + 75_000, action="switch")
    assert by_side(clock)[a]["out_turn"] == 1 and clock["running_side"] == b
    entries = chronicle(client, cid, borys["headers"])
    assert entries[0]["kind"] == "clock_out_of_time"
    assert "orcs band" in entries[0]["text"] and "turn 1" in entries[0]["text"]
    clock = act("player1", T0 + 80_000, action="switch")  # Anna is skipped: Borys plays turn 2
    assert (clock["turn"], clock["running_side"], clock["status"]) == (2, b, "running")
    clock = act("player1", T0 + 90_000, action="switch")
    assert (clock["turn"], clock["running_side"]) == (3, b)
    assert by_side(clock)[b]["remaining_ms"] == MIN - 15_000
    clock = act("player1", T0 + 200_000, action="switch")  # Borys runs out too: the game is over
    assert (clock["status"], clock["ended_reason"], clock["running_side"]) == ("ended", "time", None)
    assert by_side(clock)[b]["out_turn"] == 3 and by_side(clock)[b]["remaining_ms"] == 0
    kinds = [(e["kind"], e["text"]) for e in chronicle(client, cid, gm)[:2]]
    assert kinds[0][0] == "clock_ended" and "every side ran out of time" in kinds[0][1]
    assert kinds[1][0] == "clock_out_of_time" and "basileans band" in kinds[1][1] and "turn 3" in kinds[1][1]
    with Session(engine) as s:
        assert (
            s.exec(
                select(func.count())
                .select_from(ChronicleEntry)
                .where(ChronicleEntry.kind.in_(["clock_out_of_time", "clock_ended"]))
            ).one()
            == 3
        )


def test_issue18_the_gm_corrects_the_clock_and_only_the_gm(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, minutes_per_side=10)
    a, b = side_of(battle, anna), side_of(battle, borys)
    refused(client, cid, battle, gm, 409, "clock_not_started", action="correct", turn=2)
    tap(client, cid, battle, anna["headers"], action="start", side=a)
    before = read_clock(client, cid, battle, gm)
    refused(client, cid, battle, anna["headers"], 403, "gm_only", action="correct", side=b, remaining_ms=0)
    assert read_clock(client, cid, battle, gm) == before
    at.after(30_000)
    clock = tap(client, cid, battle, gm, action="correct", side=b, remaining_ms=4 * MIN)
    assert by_side(clock)[b]["remaining_ms"] == 4 * MIN and clock["running_side"] == a
    assert by_side(clock)[a]["remaining_ms"] == 10 * MIN - 30_000
    clock = tap(client, cid, battle, gm, action="correct", side=b)  # Borys's turn now
    assert clock["running_side"] == b
    clock = tap(client, cid, battle, gm, action="correct", turn=4)
    assert clock["turn"] == 4
    clock = tap(client, cid, battle, gm, action="correct", side=a, remaining_ms=0)
    assert by_side(clock)[a]["out_of_time"] and by_side(clock)[a]["out_turn"] == 4
    clock = tap(client, cid, battle, gm, action="correct", side=a, remaining_ms=MIN)
    assert not by_side(clock)[a]["out_of_time"] and by_side(clock)[a]["out_turn"] is None
    # Its refusals.
    for body, status, code in (
        ({"action": "correct", "side": 999}, 422, "clock_side_unknown"),
        ({"action": "correct", "turn": 8}, 422, "clock_turn_invalid"),
        ({"action": "correct", "remaining_ms": 1_000}, 422, "clock_remaining_invalid"),
        ({"action": "correct", "side": a, "remaining_ms": 10 * MIN + 1}, 422, "clock_remaining_invalid"),
    ):
        stale = read_clock(client, cid, battle, gm)
        refused(client, cid, battle, gm, status, code, **body)
        assert read_clock(client, cid, battle, gm) == stale, body


def test_issue18_a_clock_without_time_limit_refuses_a_remaining_time(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    tap(client, cid, battle, anna["headers"], action="start")
    refused(client, cid, battle, gm, 422, "clock_remaining_invalid", action="correct", side=sides(battle)[0], remaining_ms=0)


# --- who may, and when ---------------------------------------------------------------------------


def test_issue18_participants_and_the_gm_run_it_members_read_outsiders_do_not_see_it(client, at):
    gm, cid, players, battle = clock_battle_with_onlooker(client)
    anna, borys, onlooker = players
    outsider = user(client, "outsider")
    url = clock_url(cid, battle)
    assert client.get(url).status_code == 401
    assert client.post(url, json={"action": "start"}).status_code == 401
    assert client.get(url, headers=outsider).status_code == 404
    r = client.post(url, json={"action": "start"}, headers=outsider)
    assert r.status_code == 404 and error_code(r) == "not_found"
    ready = read_clock(client, cid, battle, onlooker["headers"])
    assert ready["status"] == "ready"
    refused(client, cid, battle, onlooker["headers"], 403, "clock_participants_only", action="start")
    assert read_clock(client, cid, battle, onlooker["headers"]) == ready
    clock = tap(client, cid, battle, gm, action="start", side=side_of(battle, borys))
    assert clock["running_side"] == side_of(battle, borys)
    refused(client, cid, battle, onlooker["headers"], 403, "clock_participants_only", action="switch")
    refused(client, cid, battle, onlooker["headers"], 403, "clock_participants_only", action="pause")
    assert read_clock(client, cid, battle, onlooker["headers"]) == clock
    assert tap(client, cid, battle, borys["headers"], action="switch")["running_side"] == side_of(battle, anna)
    assert tap(client, cid, battle, anna["headers"], action="pause")["status"] == "paused"
    assert tap(client, cid, battle, gm, action="start")["status"] == "running"
    r = client.get(f"/api/v1/campaigns/{cid}/battles/999999/clock", headers=gm)
    assert r.status_code == 404
    r = client.post(f"/api/v1/campaigns/{cid}/battles/999999/clock", json={"action": "start"}, headers=gm)
    assert r.status_code == 404


def test_issue18_refusals_change_nothing(client, at, engine):
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, minutes_per_side=10)
    a = side_of(battle, anna)
    # Before the start: nothing is stored by a refused tap.
    ready = read_clock(client, cid, battle, anna["headers"])
    refused(client, cid, battle, anna["headers"], 409, "clock_not_started", action="switch")
    refused(client, cid, battle, anna["headers"], 409, "clock_not_started", action="pause")
    refused(client, cid, battle, anna["headers"], 422, "clock_side_unknown", action="start", side=999)
    assert read_clock(client, cid, battle, anna["headers"]) == ready and clock_rows(engine) == 0
    tap(client, cid, battle, anna["headers"], action="start", side=a)
    at.after(12_345)
    before = read_clock(client, cid, battle, gm)
    entries = chronicle(client, cid, gm)
    for body, status, code in (
        ({"action": "start"}, 409, "clock_running"),
        ({"action": "start", "side": a}, 409, "clock_running"),
        ({"action": "roll", "roll": 7}, 422, "validation_error"),
        ({"action": "roll", "roll": 0}, 422, "validation_error"),
        ({"action": "explode"}, 422, "validation_error"),
        ({"action": "correct", "side": a, "remaining_ms": -1}, 422, "validation_error"),
        ({"action": "correct", "turn": 99}, 422, "validation_error"),
        ({"action": "switch", "colour": "red"}, 422, "validation_error"),
        ({"action": "switch", "side": "left"}, 422, "validation_error"),
        ({"action": "switch", "version": -1}, 422, "validation_error"),
        ({"action": None}, 422, "validation_error"),
        ({}, 422, "validation_error"),
    ):
        refused(client, cid, battle, anna["headers"], status, code, **body)
        assert read_clock(client, cid, battle, gm) == before, body
    for raw in ("not json", "[]", '"switch"'):
        r = client.post(clock_url(cid, battle), content=raw, headers={**anna["headers"], "Content-Type": "application/json"})
        assert r.status_code == 422, (raw, r.text)
    paused = tap(client, cid, battle, anna["headers"], action="pause")
    for body, code in (({"action": "pause"}, "clock_paused"), ({"action": "switch"}, "clock_paused")):
        refused(client, cid, battle, borys["headers"], 409, code, **body)
        assert read_clock(client, cid, battle, gm) == paused
    assert chronicle(client, cid, gm) == entries


def test_issue18_a_double_tap_on_a_stale_version_is_refused(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    refused(client, cid, battle, anna["headers"], 409, "clock_changed", action="start", version=3)
    assert read_clock(client, cid, battle, anna["headers"])["status"] == "ready"
    started = tap(client, cid, battle, anna["headers"], action="start", version=0)
    seen = started["version"]
    at.after(4_000)
    first = tap(client, cid, battle, anna["headers"], action="switch", version=seen)  # Anna's phone
    assert first["version"] == seen + 1
    at.after(100)
    # Borys's phone saw the same clock and tapped too: refused, the clock stays as Anna left it.
    refused(client, cid, battle, borys["headers"], 409, "clock_changed", action="switch", version=seen)
    assert read_clock(client, cid, battle, gm) == read_clock(client, cid, battle, anna["headers"])
    now = read_clock(client, cid, battle, gm)
    assert (now["version"], now["running_side"], now["turn"]) == (first["version"], first["running_side"], first["turn"])
    # Without a version a tap is taken as it comes.
    assert tap(client, cid, battle, borys["headers"], action="switch")["version"] == seen + 2


def test_issue18_the_clock_is_closed_outside_battles(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    running = tap(client, cid, battle, anna["headers"], action="start")
    to_phase(client, gm, cid, "settlement")
    for who in (anna["headers"], gm):
        refused(client, cid, battle, who, 409, "clock_closed", action="switch")
    refused(client, cid, battle, gm, 409, "clock_closed", action="correct", turn=2)
    clock = read_clock(client, cid, battle, borys["headers"])  # still read, standing as at its last tap
    assert (clock["status"], clock["version"], clock["running_side"]) == ("paused", running["version"], running["running_side"])


def test_issue18_the_clock_is_closed_once_a_result_is_entered(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    tap(client, cid, battle, anna["headers"], action="start")
    r = client.post(
        f"/api/v1/campaigns/{cid}/battles/{battle['id']}/result",
        json={"winner_player_ids": [anna["player_id"]]},
        headers=anna["headers"],
    )
    assert r.status_code == 200, r.text
    at.after(5 * MIN)
    before = read_clock(client, cid, battle, gm)
    for action in ("switch", "pause", "end"):
        refused(client, cid, battle, borys["headers"], 409, "clock_closed", action=action)
    # Nobody can run it now: it stands as it stood at its last tap instead of ticking on.
    at.after(5 * MIN)
    assert read_clock(client, cid, battle, gm) == before and before["status"] == "paused"


def test_issue18_a_three_side_battle_passes_through_every_side_and_wraps(client, at):
    gm, cid, players, battle = clock_battle(client, 3)
    assert len(battle["sides"]) == 3
    order = sides(battle)
    first = order[1]
    clock = tap(client, cid, battle, players[0]["headers"], action="start", side=first)
    expected = order[1:] + order[:1]
    assert clock["order"] == expected and clock["running_side"] == expected[0]
    seen = []
    for player in players:  # each of the three players may pass
        at.after(1_000)
        clock = tap(client, cid, battle, player["headers"], action="switch")
        seen.append((clock["turn"], clock["running_side"]))
    assert seen == [(1, expected[1]), (1, expected[2]), (2, expected[0])]
    assert len(clock["sides"]) == 3


def test_issue18_a_clock_cannot_start_once_the_result_is_in(client, at, engine):
    gm, cid, (anna, borys), battle = clock_battle(client)
    r = client.post(
        f"/api/v1/campaigns/{cid}/battles/{battle['id']}/result", json={"winner_player_ids": []}, headers=borys["headers"]
    )
    assert r.status_code == 200, r.text
    ready = read_clock(client, cid, battle, anna["headers"])
    refused(client, cid, battle, anna["headers"], 409, "clock_closed", action="start")
    refused(client, cid, battle, gm, 409, "clock_closed", action="start")
    assert read_clock(client, cid, battle, anna["headers"]) == ready and ready["status"] == "ready"
    assert clock_rows(engine) == 0

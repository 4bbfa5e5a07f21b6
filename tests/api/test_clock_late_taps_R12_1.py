"""R12.1: taps kept on a phone offline reach the clock later, in order; each says when it was
made (`at`), and the clock's time counts from then — never before the running side's run began,
never after the server's now — so a replayed game is timed as it was played."""

from __future__ import annotations

from tests.api.clock_helpers import clock_battle, read_clock, tap
from tests.api.test_clock_api import MIN, T0, at, by_side, put_settings, refused, side_of


def test_r12_1_late_taps_count_from_when_they_were_made(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, minutes_per_side=10, max_turns=6, extra_turn_on=4)
    a, b = side_of(battle, anna), side_of(battle, borys)
    # Offline at T0 .. T0+50s: start, 20 s, pass, 30 s, pass; sent together at T0+5 min.
    at.now = T0 + 5 * MIN
    h = anna["headers"]
    tap(client, cid, battle, h, action="start", side=a, version=0, at=T0)
    tap(client, cid, battle, h, action="switch", version=1, at=T0 + 20_000)
    clock = tap(client, cid, battle, h, action="switch", version=2, at=T0 + 50_000)
    assert (clock["running_side"], clock["turn"], clock["version"]) == (a, 2, 3)
    left = by_side(read_clock(client, cid, battle, h))
    # A played 20 s, then again since T0+50 s (the 4 min 10 s until the server's now); B played 30 s.
    assert left[b]["remaining_ms"] == 10 * MIN - 30_000
    assert left[a]["remaining_ms"] == 10 * MIN - 20_000 - (5 * MIN - 50_000)


def test_r12_1_a_late_tap_never_runs_the_clock_backwards_or_ahead(client, at):
    gm, cid, (anna, borys), battle = clock_battle(client)
    put_settings(client, cid, gm, minutes_per_side=10, max_turns=6, extra_turn_on=4)
    a, b = side_of(battle, anna), side_of(battle, borys)
    h = anna["headers"]
    tap(client, cid, battle, h, action="start", side=a, version=0)  # at T0, online
    at.after(40_000)
    tap(client, cid, battle, h, action="switch", version=1, at=T0 - 60_000)  # "made" before A's run began
    assert by_side(read_clock(client, cid, battle, h))[a]["remaining_ms"] == 10 * MIN  # counted from the run's start: 0 s
    at.after(10_000)
    tap(client, cid, battle, h, action="switch", version=2, at=T0 + 10 * MIN)  # from the future: now
    # B's run began with that pass (T0) and ended now (T0 + 50 s), not ten minutes on.
    assert by_side(read_clock(client, cid, battle, h))[b]["remaining_ms"] == 10 * MIN - 50_000
    refused(client, cid, battle, h, 422, "validation_error", action="pause", at=-5)

"""The battle clock's arithmetic (issue 18), pure: the time is injected as `now` (ms), the
extra turn's die as a function, so nothing sleeps and nothing is random."""

from __future__ import annotations

import pytest

from app.clock import rules
from app.clock.rules import Settings
from app.core.errors import DomainError

MIN = 60_000
A, B, C = 1, 2, 3


def never():
    raise AssertionError("the die was rolled, but it should not have been")


def die(value: int):
    calls = []

    def roll():
        calls.append(value)
        return value

    roll.calls = calls
    return roll


def refused(code: str, fn, *args, **kwargs) -> None:
    with pytest.raises(DomainError) as info:
        fn(*args, **kwargs)
    assert info.value.code == code


def timed(minutes: int = 10, turns: int = 6, extra: int | None = 4, order=(A, B), first=A, now: int = 0) -> rules.State:
    return rules.new(list(order), Settings(minutes, turns, extra), first, now)


def play_turns(state: rules.State, now: int, turns: int, step: int = 1_000, roll=never) -> tuple[rules.State, int]:
    """Every playing side passes once per turn, `step` ms each, for `turns` turns."""
    for _ in range(turns):
        start = state.turn
        while state.status == "running" and state.turn == start:
            now += step
            state = rules.switch(state, now, roll)
    return state, now


# --- settings ----------------------------------------------------------------------------------


def test_issue18_settings_default_to_the_pack_and_fall_back_key_by_key():
    assert rules.settings_of(None) == Settings(None, 6, 4)
    assert rules.settings_of({}) == Settings(None, 6, 4)
    base = Settings(30, 5, None)
    assert rules.settings_of({"minutes_per_side": 45}, base) == Settings(45, 5, None)
    assert rules.settings_of({"max_turns": 8, "extra_turn_on": 5}, base) == Settings(30, 8, 5)
    assert rules.settings_of({"minutes_per_side": None}, base) == Settings(None, 5, None)
    assert Settings(20, 6, 4).as_dict() == {"minutes_per_side": 20, "max_turns": 6, "extra_turn_on": 4}


# --- starting and passing ------------------------------------------------------------------------


def test_issue18_start_turns_the_order_so_the_first_side_leads():
    s = rules.new([A, B, C], Settings(10), B, now=5_000)
    assert s.order == (B, C, A)
    assert (s.status, s.turn, s.running, s.since) == ("running", 1, B, 5_000)
    assert s.used == {A: 0, B: 0, C: 0} and s.out == {} and s.extra_roll is None and s.ended is None
    assert s.limit_ms == 10 * MIN and s.max_turns == 6 and s.extra_turn_on == 4
    assert rules.remaining(s, B, 65_000) == 9 * MIN  # the first side's time runs from the start
    assert rules.remaining(s, A, 65_000) == 10 * MIN


def test_issue18_start_with_an_unknown_side_is_refused():
    refused("clock_side_unknown", rules.new, [A, B], Settings(10), 9, 0)


def test_issue18_switch_passes_to_the_next_side_and_charges_only_the_running_one():
    s = timed(first=B)
    s = rules.switch(s, 20_000, never)
    assert (s.running, s.turn, s.since) == (A, 1, 20_000)
    assert s.used == {A: 0, B: 20_000}
    s = rules.switch(s, 50_000, never)  # past the last side: turn 2, the first side leads again
    assert (s.running, s.turn, s.since) == (B, 2, 50_000)
    assert s.used == {A: 30_000, B: 20_000}
    assert rules.remaining(s, B, 60_000) == 10 * MIN - 30_000
    assert rules.remaining(s, A, 60_000) == 10 * MIN - 30_000


def test_issue18_three_sides_pass_in_order_and_wrap_to_the_next_turn():
    s = rules.new([A, B, C], Settings(10), C, 0)
    seen = []
    for now in range(1_000, 7_000, 1_000):
        s = rules.switch(s, now, never)
        seen.append((s.turn, s.running))
    assert seen == [(1, A), (1, B), (2, C), (2, A), (2, B), (3, C)]
    assert s.used == {A: 2_000, B: 2_000, C: 2_000}


# --- pausing -------------------------------------------------------------------------------------


def test_issue18_paused_time_is_not_charged():
    s = timed()
    s = rules.pause(s, 10_000)
    assert (s.status, s.running, s.since, s.used[A]) == ("paused", A, None, 10_000)
    assert rules.remaining(s, A, 500_000) == 10 * MIN - 10_000  # a long pause costs nothing
    s = rules.resume(s, 500_000)
    assert (s.status, s.running, s.since) == ("running", A, 500_000)
    assert rules.remaining(s, A, 505_000) == 10 * MIN - 15_000
    s = rules.switch(s, 505_000, never)
    assert s.used == {A: 15_000, B: 0} and s.running == B


def test_issue18_pause_and_resume_refuse_the_wrong_state():
    s = timed()
    refused("clock_running", rules.resume, s, 1)
    paused = rules.pause(s, 1)
    refused("clock_paused", rules.pause, paused, 2)
    refused("clock_paused", rules.switch, paused, 2, never)


def test_issue18_next_turn_while_paused_stays_paused():
    s = rules.pause(timed(first=B), 4_000)
    s = rules.next_turn(s, 9_000, never)
    assert (s.status, s.turn, s.running, s.since) == ("paused", 2, B, None)
    assert s.used[B] == 4_000
    s = rules.resume(s, 20_000)
    assert rules.remaining(s, B, 21_000) == 10 * MIN - 5_000


# --- running out ---------------------------------------------------------------------------------


def test_issue18_running_out_shows_zero_and_is_recorded_at_the_next_switch():
    s = timed(minutes=1)
    assert rules.remaining(s, A, 59_999) == 1
    assert rules.remaining(s, A, 90_000) == 0 and rules.out_of_time(s, A, 90_000)
    assert s.out == {}  # the side finishes its action: nothing is recorded yet
    s = rules.switch(s, 90_000, never)
    assert s.out == {A: 1} and s.used[A] == MIN  # never more than the whole time
    assert s.running == B and rules.out_of_time(s, A, 90_000) and not rules.out_of_time(s, B, 90_000)


def test_issue18_an_out_side_is_skipped_while_the_others_play_their_turns():
    s = timed(minutes=1, first=A)
    s = rules.switch(s, 61_000, never)  # A runs out in turn 1
    assert s.out == {A: 1}
    s = rules.switch(s, 70_000, never)  # B passes: turn 2, A skipped
    assert (s.turn, s.running) == (2, B)
    s = rules.switch(s, 75_000, never)  # B alone: each switch is a turn
    assert (s.turn, s.running, s.status) == (3, B, "running")
    assert s.used == {A: MIN, B: 14_000}


def test_issue18_a_side_out_in_the_middle_of_three_is_skipped():
    s = rules.new([A, B, C], Settings(1), A, 0)
    s = rules.switch(s, 1_000, never)  # A -> B
    s = rules.switch(s, 70_000, never)  # B runs out -> C
    assert s.out == {B: 1} and s.running == C
    s = rules.switch(s, 71_000, never)  # -> turn 2, A
    s = rules.switch(s, 72_000, never)  # A -> C (B skipped)
    assert (s.turn, s.running) == (2, C)
    s = rules.switch(s, 73_000, never)
    assert (s.turn, s.running) == (3, A)


def test_issue18_when_every_side_is_out_the_next_switch_ends_the_game_on_time():
    s = timed(minutes=1)
    s = rules.switch(s, 61_000, never)  # A out in turn 1
    s = rules.switch(s, 62_000, never)  # B -> turn 2
    s = rules.switch(s, 130_000, never)  # B out in turn 2: nobody left
    assert (s.status, s.ended, s.running, s.since) == ("ended", "time", None, None)
    assert s.out == {A: 1, B: 2}
    assert rules.remaining(s, A, 999_999) == 0 and rules.remaining(s, B, 999_999) == 0
    refused("clock_ended", rules.switch, s, 131_000, never)


def test_issue18_the_last_side_out_ends_the_game_even_mid_order():
    s = rules.new([A, B, C], Settings(1), A, 0)
    s = rules.correct(s, 0, side=B, remaining_ms=0)
    s = rules.correct(s, 0, side=C, remaining_ms=0)
    assert s.out == {B: 1, C: 1}
    s = rules.switch(s, 61_000, never)  # A, the last with time, runs out
    assert (s.status, s.ended, s.out[A]) == ("ended", "time", 1)


def test_issue18_every_side_out_in_the_last_turn_ends_on_time_without_rolling_for_an_extra_turn():
    """Nobody could play the extra turn: the game ends on time, whatever a die would say."""
    s = timed(minutes=1, turns=2, extra=4)
    s = rules.correct(s, 0, turn=2)
    s = rules.correct(s, 0, side=B, remaining_ms=0)
    s = rules.switch(s, 61_000, never)  # A, the last with time, runs out in the last turn
    assert (s.status, s.ended, s.extra_roll) == ("ended", "time", None)


def test_issue18_pausing_after_the_time_ran_out_records_it():
    s = rules.pause(timed(minutes=1), 75_000)
    assert s.out == {A: 1} and s.used[A] == MIN and s.status == "paused"


# --- turns and the extra turn ----------------------------------------------------------------------


def test_issue18_a_roll_at_or_above_extra_turn_on_plays_one_more_turn():
    s, now = play_turns(timed(turns=6, extra=4), 0, 5)
    assert s.turn == 6
    roll = die(4)
    s, now = play_turns(s, now, 1, roll=roll)
    assert (s.status, s.turn, s.extra_roll) == ("running", 7, 4) and roll.calls == [4]
    s, now = play_turns(s, now, 1, roll=never)  # no second roll: turn 7 is the last
    assert (s.status, s.ended, s.turn, s.extra_roll) == ("ended", "turns", 7, 4)


def test_issue18_a_roll_below_extra_turn_on_ends_after_the_last_turn():
    s, now = play_turns(timed(turns=6, extra=4), 0, 5)
    s, now = play_turns(s, now, 1, roll=die(3))
    assert (s.status, s.ended, s.turn, s.extra_roll, s.running) == ("ended", "turns", 6, 3, None)


def test_issue18_without_an_extra_turn_the_game_ends_after_max_turns():
    s, now = play_turns(timed(turns=3, extra=None), 0, 3, roll=never)
    assert (s.status, s.ended, s.turn, s.extra_roll) == ("ended", "turns", 3, None)


def test_issue18_next_turn_moves_on_at_once_and_ends_after_the_last():
    s = timed(turns=2, extra=None, first=B)
    s = rules.switch(s, 1_000, never)  # B -> A
    s = rules.next_turn(s, 2_000, never)
    assert (s.turn, s.running, s.used) == (2, B, {A: 1_000, B: 1_000})
    s = rules.next_turn(s, 3_000, never)
    assert (s.status, s.ended) == ("ended", "turns")


def test_issue18_an_entered_roll_is_used_and_a_second_is_refused():
    s = timed(turns=1, extra=5)
    s = rules.enter_roll(s, 5)
    assert s.extra_roll == 5
    refused("clock_rolled", rules.enter_roll, s, 2)
    s = rules.switch(rules.switch(s, 1_000, never), 2_000, never)  # the entered die: no roll made
    assert (s.status, s.turn, s.extra_roll) == ("running", 2, 5)
    low = rules.enter_roll(timed(turns=1, extra=5), 4)
    low = rules.next_turn(low, 1_000, never)
    assert (low.status, low.ended, low.turn, low.extra_roll) == ("ended", "turns", 1, 4)


def test_issue18_roll_refusals():
    refused("clock_no_extra_turn", rules.enter_roll, timed(extra=None), 4)
    for bad in (0, 7, -1):
        refused("clock_roll_invalid", rules.enter_roll, timed(), bad)
    ended = rules.end(timed(), 1)
    refused("clock_ended", rules.enter_roll, ended, 4)
    paused = rules.pause(timed(), 1)
    assert rules.enter_roll(paused, 6).extra_roll == 6  # a paused clock takes the die too


# --- a game without a time limit -----------------------------------------------------------------


def test_issue18_a_game_without_a_time_limit_counts_turns_only():
    s = rules.new([A, B], Settings(None, 2, None), A, 0)
    assert s.limit_ms is None
    assert rules.remaining(s, A, 10**9) is None and not rules.out_of_time(s, A, 10**9)
    s = rules.switch(s, 10**9, never)
    assert s.out == {} and s.used[A] == 10**9 and s.running == B
    s, _ = play_turns(s, 10**9, 2, step=10**8)
    assert (s.status, s.ended, s.out) == ("ended", "turns", {})


# --- ending --------------------------------------------------------------------------------------


def test_issue18_end_is_manual_and_charges_the_running_side():
    s = rules.end(timed(), 12_000)
    assert (s.status, s.ended, s.running, s.since, s.used[A]) == ("ended", "manual", None, None, 12_000)
    paused = rules.end(rules.pause(timed(), 3_000), 50_000)
    assert (paused.status, paused.ended, paused.used[A]) == ("ended", "manual", 3_000)


def test_issue18_an_ended_clock_refuses_everything():
    s = rules.end(timed(), 1)
    refused("clock_ended", rules.switch, s, 2, never)
    refused("clock_ended", rules.pause, s, 2)
    refused("clock_ended", rules.resume, s, 2)
    refused("clock_ended", rules.next_turn, s, 2, never)
    refused("clock_ended", rules.end, s, 2)
    refused("clock_ended", rules.correct, s, 2, turn=1)


# --- corrections ---------------------------------------------------------------------------------


def test_issue18_correct_a_sides_remaining_time():
    s = timed(minutes=10)
    s = rules.correct(s, 30_000, side=A, remaining_ms=5 * MIN)  # the running side: charged, then set
    assert s.used[A] == 5 * MIN and s.since == 30_000 and s.running == A
    assert rules.remaining(s, A, 40_000) == 5 * MIN - 10_000
    s = rules.correct(s, 40_000, side=B, remaining_ms=2 * MIN)  # the other side: who plays is kept
    assert s.used[B] == 8 * MIN and s.running == A
    assert rules.remaining(s, B, 999_999) == 2 * MIN


def test_issue18_correct_remaining_to_zero_marks_out_and_back_clears_it():
    s = timed(minutes=10)
    s = rules.correct(s, 0, side=B, remaining_ms=0)
    assert s.out == {B: 1} and rules.out_of_time(s, B, 0)
    s = rules.switch(s, 1_000, never)  # B is skipped
    assert (s.turn, s.running) == (2, A)
    s = rules.correct(s, 1_000, side=B, remaining_ms=MIN)
    assert s.out == {} and not rules.out_of_time(s, B, 1_000)
    s = rules.switch(s, 2_000, never)
    assert (s.turn, s.running) == (2, B)


def test_issue18_correct_who_plays_and_the_turn():
    s = timed(first=A)
    s = rules.correct(s, 10_000, side=B)
    assert (s.running, s.since, s.used[A]) == (B, 10_000, 10_000)
    s = rules.correct(s, 11_000, turn=5)
    assert (s.turn, s.running) == (5, B)
    s = rules.correct(s, 11_000, turn=7)  # the extra turn is a turn of this game
    assert s.turn == 7
    paused = rules.correct(rules.pause(timed(), 1_000), 5_000, side=B)
    assert (paused.status, paused.running, paused.since) == ("paused", B, None)


def test_issue18_correction_refusals():
    s = timed(minutes=10, turns=6, extra=4)
    refused("clock_side_unknown", rules.correct, s, 0, side=9)
    refused("clock_side_unknown", rules.correct, s, 0, side=9, remaining_ms=1)
    refused("clock_turn_invalid", rules.correct, s, 0, turn=0)
    refused("clock_turn_invalid", rules.correct, s, 0, turn=8)
    refused("clock_turn_invalid", rules.correct, timed(extra=None), 0, turn=7)
    refused("clock_remaining_invalid", rules.correct, s, 0, remaining_ms=1_000)  # which side?
    refused("clock_remaining_invalid", rules.correct, s, 0, side=A, remaining_ms=-1)
    refused("clock_remaining_invalid", rules.correct, s, 0, side=A, remaining_ms=10 * MIN + 1)
    untimed = rules.new([A, B], Settings(None), A, 0)
    refused("clock_remaining_invalid", rules.correct, untimed, 0, side=A, remaining_ms=0)
    assert rules.correct(s, 0, side=A, remaining_ms=10 * MIN).used[A] == 0  # the whole time is allowed


def test_issue18_refusals_leave_the_state_as_it_was():
    s = timed()
    before = s
    for fn in (
        lambda: rules.resume(s, 5),
        lambda: rules.correct(s, 5, side=9),
        lambda: rules.correct(s, 5, turn=99),
        lambda: rules.enter_roll(s, 9),
    ):
        with pytest.raises(DomainError):
            fn()
    assert s == before and s.used == {A: 0, B: 0} and s.since == 0


def test_issue18_every_refusal_code_is_a_known_error():
    from app.core.errors import ERRORS

    for code in (
        "clock_running",
        "clock_paused",
        "clock_ended",
        "clock_side_unknown",
        "clock_no_extra_turn",
        "clock_rolled",
        "clock_roll_invalid",
        "clock_turn_invalid",
        "clock_remaining_invalid",
    ):
        assert code in ERRORS

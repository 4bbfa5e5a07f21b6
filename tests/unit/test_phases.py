"""Pure phase machine and lifecycle rules (R1.5, R1.6, R2.1-R2.3)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.campaigns import rules
from app.core.errors import DomainError


def code_of(fn, *args):
    with pytest.raises(DomainError) as info:
        fn(*args)
    return info.value.code


def test_r2_1_five_phases_in_order():
    assert rules.PHASES == ("preparation", "orders", "battles", "settlement", "twilight")
    assert [rules.next_phase(p) for p in rules.PHASES] == ["orders", "battles", "settlement", "twilight", None]


def test_r2_2_forward_one_step_allowed():
    for current, target in zip(rules.PHASES, rules.PHASES[1:]):
        rules.check_phase_move("running", current, target)


def test_r2_2_orders_back_to_preparation_is_the_only_way_back():
    rules.check_phase_move("running", "orders", "preparation")
    assert code_of(rules.check_phase_move, "running", "battles", "orders") == "phase_backward"
    assert code_of(rules.check_phase_move, "running", "settlement", "battles") == "phase_backward"
    assert code_of(rules.check_phase_move, "running", "twilight", "preparation") == "phase_backward"


def test_r2_2_no_skipping_and_no_staying():
    assert code_of(rules.check_phase_move, "running", "preparation", "battles") == "phase_skip"
    assert code_of(rules.check_phase_move, "running", "orders", "orders") == "phase_same"
    assert code_of(rules.check_phase_move, "running", "orders", "dinner") == "phase_unknown"


def test_r2_2_phases_only_while_running():
    assert code_of(rules.check_phase_move, "setup", None, "orders") == "not_running"
    assert code_of(rules.check_phase_move, "hideouts", None, "orders") == "not_running"
    assert code_of(rules.check_phase_move, "finished", "twilight", "preparation") == "campaign_read_only"


def test_r2_3_end_round_only_in_twilight_and_for_the_named_round():
    assert rules.check_end_round("running", "twilight", 3, 3) == rules.PhaseMove(round=4, phase="preparation")
    assert code_of(rules.check_end_round, "running", "settlement", 3, 3) == "end_round_phase"
    assert code_of(rules.check_end_round, "running", "twilight", 3, 2) == "end_round_mismatch"
    assert code_of(rules.check_end_round, "hideouts", None, 0, 0) == "not_running"


@given(st.lists(st.sampled_from(rules.PHASES + ("end",)), max_size=40))
def test_r2_2_r2_3_random_gm_clicks_never_break_the_order(clicks):
    """Whatever the GM clicks, the state stays a valid (round, phase) and the round only
    grows through End round from Twilight."""
    round_, phase = 1, "preparation"
    for click in clicks:
        try:
            if click == "end":
                move = rules.check_end_round("running", phase, round_, round_)
                assert phase == "twilight"
                round_, phase = move.round, move.phase
            else:
                rules.check_phase_move("running", phase, click)
                ci, ti = rules.PHASES.index(phase), rules.PHASES.index(click)
                assert ti == ci + 1 or (phase, click) == ("orders", "preparation")
                phase = click
        except DomainError:
            pass
        assert phase in rules.PHASES and round_ >= 1


def test_r1_6_lifecycle_moves():
    rules.check_status_move("setup", "hideouts")
    rules.check_status_move("hideouts", "running")
    rules.check_status_move("running", "finished")
    assert code_of(rules.check_status_move, "setup", "running") == "status_transition"
    assert code_of(rules.check_status_move, "setup", "finished") == "status_transition"
    assert code_of(rules.check_status_move, "running", "hideouts") == "status_transition"
    assert code_of(rules.check_status_move, "finished", "running") == "campaign_read_only"
    assert rules.start_move() == rules.PhaseMove(round=1, phase="preparation")


def test_r1_5_hideout_selection_needs_a_free_flag_for_every_player():
    rules.check_enter_hideouts(players=3, free_flagged_places=3)
    assert code_of(rules.check_enter_hideouts, 3, 2) == "too_few_hideout_places"
    assert code_of(rules.check_enter_hideouts, 1, 5) == "too_few_players"


def test_r1_5_start_needs_every_hideout():
    rules.check_start([])
    with pytest.raises(DomainError) as info:
        rules.check_start(["anna", "borys"])
    assert info.value.code == "hideouts_missing" and info.value.params["missing"] == "anna, borys"


def test_r9_1_locked_settings_once_running():
    old = {"modules": {"guilds": True}, "guild": {"level_cost": 50}, "alliance_fee": 10}
    new = {"modules": {"guilds": False}, "guild": {"level_cost": 50}, "alliance_fee": 10}
    assert rules.locked_changes("setup", old, new) == []
    assert rules.locked_changes("hideouts", old, new) == []
    assert rules.locked_changes("running", old, new) == ["modules"]
    assert rules.locked_changes("running", old, dict(old)) == []


def test_r9_6_battle_size_limit_is_three_or_more_or_unlimited():
    assert rules.normalize_modules({}, {"battle_size_limit": None})["battle_size_limit"] is None
    assert rules.normalize_modules({}, {"battle_size_limit": 4})["battle_size_limit"] == 4
    with pytest.raises(DomainError):
        rules.normalize_modules({}, {"battle_size_limit": 2})


def test_r3_3_shop_open_before_round_one_and_in_preparation_and_orders():
    assert rules.shop_open("setup", None) and rules.shop_open("hideouts", None)
    assert rules.shop_open("running", "preparation") and rules.shop_open("running", "orders")
    assert not rules.shop_open("running", "battles") and not rules.shop_open("finished", "twilight")


def test_dashboard_advice_depends_on_role_and_state():
    common = dict(setup_complete=True, wizard_step=6, players=2, flagged_places=3, has_hideout=False, all_have_hideouts=False)
    assert rules.advice(status="hideouts", phase=None, is_gm=False, **common) == [("player_choose_hideout", {})]
    assert rules.advice(status="running", phase="orders", is_gm=True, **common) == [("gm_orders", {})]
    gm_setup = rules.advice(
        status="setup", phase=None, is_gm=True, **{**common, "setup_complete": False, "wizard_step": 3, "players": 0}
    )
    assert ("gm_finish_setup", {"step": 3}) in gm_setup and ("gm_invite", {}) in gm_setup

"""The six settlement steps as pure rules (R7.1, V11-V17) and the campaign's settlement
settings (house defaults, the GM's changes)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.campaigns import house_rules
from app.core.errors import DomainError
from app.settlement import rules
from app.settlement.rules import Context, Item, Member

LEADER, AX1, AX2, HEALER = 1, 2, 3, 4


def ctx(result="won", healer=False, xp=None, rank=None, **extra) -> Context:
    xp, rank = xp or {}, rank or {}
    members = [
        Member(LEADER, "Krusher", ("Command",), xp=xp.get(LEADER, 0), rank=rank.get(LEADER, 0)),
        Member(AX1, "Ax", ("Grunt",), xp=xp.get(AX1, 0)),
        Member(AX2, "Ax", ("Grunt",), xp=xp.get(AX2, 0)),
    ]
    if healer:
        members.append(Member(HEALER, "Chaplain", ("Spellcaster",), healer=True))
    return Context(
        player_id=1,
        round=3,
        result=result,
        members=members,
        company=list(members),
        items=extra.pop("items", []),
        opponents=extra.pop("opponents", [7]),
        enemy_models=extra.pop("enemies", 5),
        **extra,
    )


def code(fn, *args) -> str:
    with pytest.raises(DomainError) as exc:
        fn(*args)
    return exc.value.code


def test_v11_result_comes_from_the_battle():
    assert rules.result_for([5], 5) == "won" and rules.result_for([5], 6) == "lost" and rules.result_for([], 6) == "draw"
    c = ctx("lost")
    assert rules.check_course(c, {"result": "lost"})["result"] == "lost"
    assert code(rules.check_course, c, {"result": "won"}) == "settlement_result_mismatch"


def test_v11_course_checks_models_and_enemies_taken_out():
    c = ctx(enemies=3)
    course = rules.check_course(c, {"taken_out": [AX1, AX1], "took_out": {str(LEADER): 2, str(AX2): 0}, "objectives": [AX2]})
    assert course == {"taken_out": [AX1], "took_out": {str(LEADER): 2}, "objectives": [AX2], "result": "won"}
    assert code(rules.check_course, c, {"taken_out": [99]}) == "settlement_model_unknown"
    assert code(rules.check_course, c, {"took_out": {str(LEADER): 2, str(AX1): 2}}) == "settlement_took_out_too_many"


def test_v14_experience_proposal_by_the_house_rules():
    c = ctx("won")
    course = rules.check_course(c, {"took_out": {str(LEADER): 2}, "objectives": [AX1]})
    assert rules.proposal(c, course) == {LEADER: 1 + 2 + 1, AX1: 1 + 1 + 1, AX2: 1 + 1}
    lost = ctx("lost")
    assert rules.proposal(lost, rules.check_course(lost, {})) == {LEADER: 1, AX1: 1, AX2: 1}


def test_v14_experience_awards_follow_the_campaigns_settings():
    settings = house_rules.normalize({}, {"xp": {"taking_part": 2, "win": 0, "per_enemy": 3}})
    c = ctx("won", settings=settings)
    assert rules.proposal(c, rules.check_course(c, {"took_out": {str(AX2): 1}})) == {LEADER: 2, AX1: 2, AX2: 5}


def test_v14_leader_hands_out_two_more_and_no_more():
    c = ctx("draw")
    proposed = rules.proposal(c, rules.check_course(c, {}))
    gains = rules.check_experience(c, proposed, [{"model_id": LEADER, "xp": 2}, {"model_id": AX1, "xp": 2}])
    assert gains == {LEADER: 2, AX1: 2, AX2: 1}
    assert rules.check_experience(c, proposed, [{"model_id": AX2, "xp": 3}])[AX2] == 3
    assert rules.check_experience(c, proposed, [{"model_id": AX2, "xp": 0}])[AX2] == 0  # less is always allowed
    assert code(rules.check_experience, c, proposed, [{"model_id": AX2, "xp": 4}]) == "settlement_xp_over"


@pytest.mark.parametrize("xp, rank", [(0, 0), (4, 0), (5, 1), (9, 1), (10, 2), (16, 3), (23, 4), (31, 5), (99, 5)])
def test_v15_rank_thresholds_house_default(xp, rank):
    assert rules.rank_for(xp, house_rules.DEFAULTS["ranks"]) == rank


def test_v15_promotions_are_due_at_the_thresholds_and_recorded_in_order():
    c = ctx("won", xp={LEADER: 3, AX1: 9})
    course = rules.check_course(c, {"took_out": {str(LEADER): 1}})
    gains = rules.proposal(c, course)  # Krusher +3 -> 6 (rank 1), Ax +2 -> 11 (ranks 1, 2)
    due = rules.due_ranks(c, gains, [])
    assert due == {LEADER: [1], AX1: [1, 2]}
    promos = rules.check_promotions(
        c, due, [{"model_id": AX1, "rank": 1, "upgrade": "Melee 4+"}, {"model_id": LEADER, "rank": 1, "upgrade": " "}]
    )
    assert promos == [{"model_id": AX1, "rank": 1, "upgrade": "Melee 4+"}]  # a blank text records nothing
    assert code(rules.check_promotions, c, due, [{"model_id": AX2, "rank": 1, "upgrade": "x"}]) == "settlement_rank_not_due"
    assert code(rules.check_promotions, c, due, [{"model_id": AX1, "rank": 2, "upgrade": "x"}]) == "settlement_rank_order"
    assert rules.due_ranks(c, gains, [{"model_id": AX1, "result": "dead"}]) == {LEADER: [1]}


def test_v12_every_taken_out_model_needs_a_result_and_a_capture_a_captor():
    c = ctx(opponents=[7, 8])
    course = rules.check_course(c, {"taken_out": [AX1, AX2]})
    injuries = rules.check_injuries(
        c, course, [{"model_id": AX1, "result": "permanent", "text": "Lost an eye"}, {"model_id": LEADER, "result": "dead"}], {}
    )
    assert injuries == [{"model_id": AX1, "result": "permanent", "text": "Lost an eye"}]  # Krusher was not taken out
    assert code(rules.check_complete_injuries, c, course, injuries) == "settlement_injury_missing"
    captured = rules.check_injuries(
        c, course, [{"model_id": AX1, "result": "captured"}, {"model_id": AX2, "result": "miss_next"}], {}
    )
    assert code(rules.check_complete_injuries, c, course, captured) == "settlement_captor_missing"
    assert (
        code(rules.check_injuries, c, course, [{"model_id": AX1, "result": "captured", "captor_player_id": 5}], {})
        == "settlement_captor_unknown"
    )
    one = ctx(opponents=[7])
    assert rules.check_injuries(one, course, [{"model_id": AX1, "result": "captured"}], {})[0]["captor_player_id"] == 7
    blank = rules.check_injuries(
        c, course, [{"model_id": AX1, "result": "permanent", "text": ""}, {"model_id": AX2, "result": "recovered"}], {}
    )
    assert code(rules.check_complete_injuries, c, course, blank) == "settlement_injury_text"


def test_v12_a_rolled_result_stands():
    c = ctx()
    course = rules.check_course(c, {"taken_out": [AX1]})
    rolls = {AX1: {"face": 1, "result": "dead", "items_lost": True}}
    assert rules.check_injuries(c, course, [], rolls) == [{"model_id": AX1, "result": "dead", "items_lost": True}]
    assert code(rules.check_injuries, c, course, [{"model_id": AX1, "result": "recovered"}], rolls) == "settlement_result_rolled"
    assert code(rules.resolve, c, {"course": {"taken_out": []}}, rolls) == "settlement_rolled_taken_out"


def test_v12_casualty_roll_is_seeded_and_reads_the_table():
    table = house_rules.DEFAULTS["casualty_table"]
    first = rules.roll(table, random.Random(42))
    assert first == rules.roll(table, random.Random(42))
    assert table[first["face"] - 1]["result"] == first["result"]
    faces = {rules.roll(table, random.Random(seed))["face"] for seed in range(300)}
    assert faces == set(range(1, 11))


def test_v12_healer_rerolls_one_rolled_result_per_battle():
    c, h = ctx(), ctx(healer=True)
    course = {"taken_out": [AX1, AX2]}
    rolls = {AX1: {"result": "dead"}}
    assert code(rules.check_roll, c, course, rolls, AX1, True, False) == "settlement_no_healer"
    rules.check_roll(h, course, rolls, AX1, True, False)
    assert code(rules.check_roll, h, course, rolls, AX1, True, True) == "settlement_healer_used"
    assert code(rules.check_roll, h, course, rolls, AX2, True, False) == "settlement_nothing_to_reroll"
    assert code(rules.check_roll, h, course, rolls, AX1, False, False) == "settlement_rolled_already"
    assert code(rules.check_roll, h, course, rolls, LEADER, False, False) == "settlement_injury_not_taken_out"


def test_v13_items_of_the_dead_return_to_the_stash_unless_lost_and_may_move():
    items = [
        Item(10, "Bandages", "Sundries", "Common", AX1),
        Item(11, "Shield", "Armour", "Common", AX2),
        Item(12, "Helm", "Armour", "Common", None),
    ]
    c = ctx(items=items)
    injuries = [{"model_id": AX1, "result": "dead", "items_lost": False}, {"model_id": AX2, "result": "dead", "items_lost": True}]
    layout = rules.check_equipment(c, injuries, [])
    assert layout == {10: (None, False), 11: (None, True), 12: (None, False)}
    moved = rules.check_equipment(
        c, injuries, [{"item_id": 12, "model_id": LEADER}, {"item_id": 11, "model_id": None, "lost": False}]
    )
    assert moved[12] == (LEADER, False) and moved[11] == (None, False)
    assert code(rules.check_equipment, c, [], [{"item_id": 12, "model_id": None, "lost": True}]) == "settlement_item_not_lost"
    assert code(rules.check_equipment, c, injuries, [{"item_id": 12, "model_id": AX1}]) == "settlement_item_to_gone"
    assert code(rules.check_equipment, c, [], [{"item_id": 99}]) == "settlement_item_unknown"
    # V8 on the result: a Grunt carries one Common item.
    two = rules.check_equipment(c, [], [{"item_id": 12, "model_id": AX2}])
    assert code(rules.item_problems, c, two) == "item_grunt_one_only"


def test_v16_retinue_leader_is_a_command_model_and_roles_cost_points():
    c = ctx()
    assert rules.check_retinue(c, {"leader_id": LEADER, "retinue_ids": [AX1, LEADER, AX1]}, []) == {
        "leader_id": LEADER,
        "retinue_ids": [AX1],
    }
    assert code(rules.check_retinue, c, {"leader_id": AX1}, []) == "settlement_leader_command"
    assert (
        code(rules.check_retinue, c, {"leader_id": LEADER, "retinue_ids": [AX2]}, [{"model_id": AX2, "result": "dead"}])
        == "settlement_model_unknown"
    )
    settings = house_rules.of({})
    assert [rules.retinue_cost(n, settings) for n in range(4)] == [0, 0, 3, 6]


def test_v16_unfilled_retinue_keeps_roles_the_dead_lose_theirs():
    members = [
        Member(LEADER, "Krusher", ("Command",), role="leader"),
        Member(AX1, "Ax", ("Grunt",), role="retinue"),
        Member(AX2, "Ax", ("Grunt",)),
    ]
    c = Context(player_id=1, round=1, result="won", members=members, company=members)
    assert rules.check_retinue(c, None, []) == {"leader_id": LEADER, "retinue_ids": [AX1]}
    assert rules.check_retinue(c, None, [{"model_id": LEADER, "result": "dead"}]) == {"leader_id": None, "retinue_ids": [AX1]}


def test_r7_1_v17_plan_applies_statuses_experience_and_captures():
    c = ctx("won", xp={AX1: 4}, opponents=[7])
    saved = {
        "course": {"taken_out": [AX1, AX2, LEADER], "took_out": {str(AX1): 1}},
        "injuries": [
            {"model_id": AX1, "result": "miss_next"},
            {"model_id": AX2, "result": "captured"},
            {"model_id": LEADER, "result": "permanent", "text": "Limp"},
        ],
        "promotions": [{"model_id": AX1, "rank": 1, "upgrade": "Defence 5+"}],
        "retinue": {"leader_id": LEADER, "retinue_ids": [AX1]},
    }
    plan = rules.plan(c, saved, {})
    by_id = {m.model_id: m for m in plan.models}
    assert (by_id[AX1].status, by_id[AX1].miss_round, by_id[AX1].xp, by_id[AX1].rank) == ("miss_next", 4, 7, 1)
    assert by_id[AX1].upgrades == [{"rank": 1, "text": "Defence 5+", "round": 3}]
    assert (by_id[AX2].status, by_id[LEADER].injuries) == ("captured", ["Limp"])
    assert plan.captures == [(AX2, 7)]
    assert plan.roles == {LEADER: "leader", AX1: "retinue"}
    assert not hasattr(plan, "gold")  # V17: no gold is earned in settlement


def test_r7_1_defaults_nobody_taken_out_experience_by_the_rules_no_promotion():
    plan = rules.plan(ctx("draw"), {}, {})
    assert [(m.model_id, m.status, m.xp, m.rank) for m in plan.models] == [
        (LEADER, "ready", 1, 0),
        (AX1, "ready", 1, 0),
        (AX2, "ready", 1, 0),
    ]
    assert plan.captures == []


def test_r7_1_a_settlement_closes_only_once_the_result_is_decided():
    assert code(rules.plan, ctx(None), {}, {}) == "settlement_result_pending"


def test_v12_v14_v15_settings_house_defaults_and_the_gms_changes():
    defaults = house_rules.of({})
    assert len(defaults["casualty_table"]) == 10 and defaults["ranks"] == [5, 10, 16, 23, 31]
    assert defaults["xp"] == {"taking_part": 1, "per_enemy": 1, "objective": 1, "win": 1, "leader_bonus": 2}
    changed = house_rules.normalize(
        {},
        {
            "casualty_table": [{"result": "dead", "items_lost": True}, {"result": "recovered", "items_lost": True}],
            "ranks": [3, 6],
            "retinue": {"role_cost": 5},
        },
    )
    assert changed["casualty_table"] == [{"result": "dead", "items_lost": True}, {"result": "recovered", "items_lost": False}]
    assert changed["ranks"] == [3, 6] and changed["retinue"] == {"free_retinue": 1, "role_cost": 5}
    assert code(house_rules.normalize, {}, {"ranks": [5, 5]}) == "ranks_invalid"
    assert code(house_rules.normalize, {}, {"casualty_table": [{"result": "dead"}]}) == "casualty_table_invalid"
    assert (
        code(house_rules.normalize, {}, {"casualty_table": [{"result": "eaten"}, {"result": "dead"}]}) == "casualty_table_invalid"
    )
    assert house_rules.table_text(defaults["casualty_table"]) == [
        ("1", "dead", True),
        ("2", "dead", False),
        ("3", "captured", False),
        ("4", "permanent", False),
        ("5-6", "miss_next", False),
        ("7-10", "recovered", False),
    ]


@given(st.lists(st.integers(min_value=0, max_value=60), min_size=1, max_size=12))
def test_v15_rank_never_falls_as_experience_grows(gains):
    thresholds, xp, rank = house_rules.DEFAULTS["ranks"], 0, 0
    for g in gains:
        xp += g
        new = rules.rank_for(xp, thresholds)
        assert new >= rank and 0 <= new <= len(thresholds)
        rank = new

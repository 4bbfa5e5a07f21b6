"""Warband limits (R4.2, R4.3, V4-V8), every problem at once with its numbers."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.companies.rules import Carried
from app.core.errors import DomainError
from app.events import rules as event_rules
from app.warbands.rules import Member, Mercenary, points, problems, unavailable

_next = iter(range(1, 10**6))


def m(types, pts=10, key=None, unique=False, items=(), status="ready", name=None):
    types = tuple(types) if isinstance(types, (list, tuple)) else (types,)
    key = key or f"p.{'-'.join(types).lower()}-{pts}"
    return Member(next(_next), name or key, key, types, pts, unique, tuple(items), status)


def codes(found):
    return [p.code for p in found]


def test_r4_2_v5_smallest_valid_warband_is_a_command_and_a_grunt_or_warrior():
    assert problems([m("Command"), m("Grunt")], None, "Good", 200) == []
    assert problems([m("Command"), m("Warrior")], None, "Good", 200) == []
    assert codes(problems([m("Grunt")], None, "Good", 200)) == ["warband_no_command"]
    assert codes(problems([m("Command")], None, "Good", 200)) == ["warband_no_fighter"]
    assert codes(problems([], None, "Good", 200)) == ["warband_no_command", "warband_no_fighter"]


def test_r4_3_points_limit_counts_items_and_mercenary():
    leader = m("Command", 100, items=((Carried("Melee", "Common"), 10),))
    merc = Mercenary("merc.x", "X", ("Warrior",), 60, "Neutral")
    assert points([leader, m("Grunt", 30)], merc) == 200
    found = problems([leader, m("Grunt", 31)], merc, "Good", 200)
    assert codes(found) == ["warband_points_over"] and found[0].params == {"points": 201, "limit": 200}


def test_v6_command_support_spellcaster_per_three_grunt_warrior():
    gw = [m("Grunt", key=f"g{i}") for i in range(6)]
    assert problems([m("Command"), m("Command", key="c2"), m("Support"), m("Support", key="s2"), *gw], None, "Good", 1000) == []
    found = problems(
        [m("Command"), m("Command", key="c2"), m("Command", key="c3"), *[m("Support", key=f"s{i}") for i in range(3)], *gw],
        None,
        "Good",
        1000,
    )
    assert [(p.code, p.params) for p in found] == [
        ("warband_command_limit", {"count": 3, "max": 2, "gw": 6}),
        ("warband_support_limit", {"count": 3, "max": 2, "gw": 6}),
    ]


def test_v6_one_command_always_allowed_and_two_types_count_in_both():
    assert problems([m("Command"), m("Grunt")], None, "Good", 200) == []
    found = problems([m(("Command", "Spellcaster")), m("Grunt")], None, "Good", 200)
    assert [(p.code, p.params["max"]) for p in found] == [("warband_spellcaster_limit", 0)]


def test_v7_large_and_copies_scale_with_the_limit():
    grunts = [m("Grunt", 5, key="same") for _ in range(5)]
    found = problems([m("Command"), m("Large", key="l1"), m("Large", key="l2"), *grunts], None, "Good", 200)
    # Two Large models break the limit; five copies are allowed in 200 points (200 // 40).
    assert [(p.code, p.params) for p in found] == [("warband_large_limit", {"count": 2, "max": 1, "limit": 200})]
    six = [m("Grunt", 5, key="same") for _ in range(6)]
    found = problems([m("Command"), *six], None, "Good", 200)
    assert [(p.code, p.params["count"], p.params["max"]) for p in found] == [("warband_copies_limit", 6, 5)]
    assert problems([m("Command"), m("Large", key="l1"), m("Large", key="l2"), m("Grunt")], None, "Good", 300) == []


def test_v7_unique_profile_at_most_once():
    hero = m("Command", key="hero", unique=True, name="Hero")
    twin = Member(999999, "Hero", "hero", ("Command",), 10, True)
    found = problems([hero, twin, m("Grunt"), m("Grunt", key="g2"), m("Grunt", key="g3")], None, "Good", 400)
    assert ("warband_unique_twice", {"name": "Hero", "count": 2}) in [(p.code, p.params) for p in found]


def test_v4_mercenary_alignment():
    base = [m("Command"), m("Grunt"), m("Grunt", key="g2"), m("Grunt", key="g3")]
    for alignment, faction, ok in (
        ("Neutral", "Evil", True),
        ("Good", "Good", True),
        ("Evil", "Good", False),
        ("Good", "Neutral", False),
    ):
        merc = Mercenary("merc.x", "X", ("Warrior",), 20, alignment)
        found = codes(problems(base, merc, faction, 400))
        assert ("warband_mercenary_alignment" not in found) is ok, (alignment, faction)


def test_v8_items_checked_in_the_warband():
    grunt = m("Grunt", items=((Carried("Melee", "Rare"), 5),))
    leader = m("Command", items=((Carried("Melee", "Common"), 1), (Carried("Melee", "Rare"), 2), (Carried("Magic", "Rare"), 3)))
    found = problems([leader, grunt], None, "Good", 400)
    assert codes(found) == ["item_slot_taken", "item_limit", "item_grunt_common_only"]


def test_r4_7_unavailable_models():
    members = [m("Command"), m("Grunt", status="dead"), m("Grunt", status="miss_next", key="g2"), m("Warrior", status="captured")]
    assert [x.status for x in unavailable(members)] == ["dead", "miss_next", "captured"]


@given(
    st.lists(st.sampled_from(["Command", "Grunt", "Warrior", "Support", "Spellcaster", "Large"]), max_size=14),
    st.integers(50, 600),
)
def test_v5_v6_v7_every_problem_names_real_numbers(types, limit):
    members = [m(t, 10, key=f"k{i}") for i, t in enumerate(types)]
    found = problems(members, None, "Good", limit)
    gw = sum(1 for t in types if t in ("Grunt", "Warrior"))
    for p in found:
        if "gw" in p.params:
            assert p.params["gw"] == gw and p.params["count"] > p.params["max"]
        if p.code == "warband_points_over":
            assert p.params["points"] == 10 * len(types) > limit
    if "Command" not in types or gw == 0:
        assert found, "a warband without a Command model or a fighter is never valid (R4.2)"


G, W, C, S, SP, L = "Grunt", "Warrior", "Command", "Support", "Spellcaster", "Large"
# Warbands of 10-point models (each a different profile) and what is wrong with them,
# counted by hand from V5-V7: Command up to max(1, GW/3), Support and Spellcaster up to GW/3,
# Large up to max(1, L/150), and the points up to L.
WARBANDS = [
    ([C, G], 200, []),
    ([C, W], 20, []),
    ([C, G], 19, ["warband_points_over"]),
    ([G], 200, ["warband_no_command"]),
    ([C, C], 200, ["warband_no_fighter", "warband_command_limit"]),
    ([S], 200, ["warband_no_command", "warband_no_fighter", "warband_support_limit"]),
    ([C, C, G, G, G], 200, ["warband_command_limit"]),
    ([C, C, G, G, G, W, W, W], 200, []),
    ([C, S, G, G], 200, ["warband_support_limit"]),
    ([C, S, G, G, W], 200, []),
    ([C, SP, W, W, W], 200, []),
    ([C, SP, SP, W, W, W], 200, ["warband_spellcaster_limit"]),
    ([C, L, L, G], 299, ["warband_large_limit"]),
    ([C, L, L, G], 300, []),
    ([L, G], 100, ["warband_no_command"]),
    ([C, *[G] * 15], 150, ["warband_points_over"]),
    ([C, C, C, S, S, S, SP, G, G, G, G, G, G], 130, ["warband_command_limit", "warband_support_limit"]),
]


def test_v5_v6_v7_limits_from_a_table_counted_by_hand():
    for types, limit, expected in WARBANDS:
        members = [m(t, 10, key=f"k{i}") for i, t in enumerate(types)]
        assert codes(problems(members, None, "Good", limit)) == expected, (types, limit)


def test_r5_1_event_active_from_the_round_added_for_its_duration():
    assert [event_rules.is_active(3, 2, None, r) for r in (2, 3, 4, 5)] == [False, True, True, False]
    assert event_rules.last_round(3, 2) == 4
    assert not event_rules.is_active(3, 5, 3, 3)  # ended early
    assert event_rules.expired(3, 2, None, 5) and not event_rules.expired(3, 2, None, 4)


def test_r5_5_what_an_edited_event_refuses_of_the_orders_standing_at_it():
    assert event_rules.refusal_of(blockade=True, points_limit=None, order_points=50) == "blockade"
    assert event_rules.refusal_of(blockade=False, points_limit=49, order_points=50) == "limit"
    assert event_rules.refusal_of(blockade=False, points_limit=50, order_points=50) is None  # at the limit is within it
    assert event_rules.refusal_of(blockade=False, points_limit=None, order_points=500) is None


def test_r5_5_after_battles_an_edit_refusing_standing_orders_is_refused():
    for phase in ("preparation", "orders"):
        event_rules.check_undo_phase(phase, 3)
    for phase in ("battles", "settlement", "twilight"):
        event_rules.check_undo_phase(phase, 0)  # nothing standing: nothing to refuse
        with pytest.raises(DomainError) as refused:
            event_rules.check_undo_phase(phase, 1)
        assert refused.value.code == "event_edit_after_battles"

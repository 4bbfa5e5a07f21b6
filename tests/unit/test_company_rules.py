"""Pure rules of gold, the shop and companies (R3.2-R3.9, V7, V8)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.companies import rules
from app.companies.rules import Carried
from app.core.errors import DomainError
from app.gold import rules as gold


def code(fn, *args, **kwargs):
    with pytest.raises(DomainError) as info:
        fn(*args, **kwargs)
    return info.value.code


def test_r3_2_price_is_points_times_gold_per_point():
    assert gold.price(15, 1) == 15 and gold.price(15, 3) == 45 and gold.price(0, 5) == 0


# (price paid, sale loss %, refund after confirmation), worked out by hand: the price less
# the loss, rounded down (R3.4).
REFUNDS = [
    (100, 50, 50),
    (15, 50, 7),
    (9, 33, 6),
    (34, 25, 25),
    (99, 10, 89),
    (1, 50, 0),
    (10, 0, 10),
    (10, 100, 0),
    (0, 50, 0),
    (250, 1, 247),
    (7, 99, 0),
    (200, 15, 170),
]


@pytest.mark.parametrize("paid, loss, refund", REFUNDS)
def test_r3_4_refund_after_confirmation_is_the_price_less_the_loss_rounded_down(paid, loss, refund):
    assert gold.refund(paid, confirmed=True, sale_loss_percent=loss) == refund
    assert gold.refund(paid, confirmed=False, sale_loss_percent=loss) == paid


@given(st.integers(0, 10_000), st.integers(0, 99))
def test_r3_4_refund_full_before_confirmation_and_never_more_after(paid, loss):
    """Properties, not the formula again: the full price before confirmation; after it,
    between nothing and the price, and a bigger loss never refunds more."""
    assert gold.refund(paid, confirmed=False, sale_loss_percent=loss) == paid
    after = gold.refund(paid, confirmed=True, sale_loss_percent=loss)
    assert 0 <= after <= paid
    assert gold.refund(paid, confirmed=True, sale_loss_percent=loss + 1) <= after


def test_r3_3_shop_hours():
    rules.check_shop("setup", None)
    rules.check_shop("hideouts", None)
    rules.check_shop("running", "preparation")
    rules.check_shop("running", "orders")
    for phase in ("battles", "settlement", "twilight"):
        assert code(rules.check_shop, "running", phase) == "shop_closed"
    assert code(rules.check_shop, "finished", "twilight") == "campaign_read_only"


def test_r3_5_confirmation_needs_a_command_model():
    rules.check_confirm(False, [["Grunt"], ["Command", "Spellcaster"]])
    assert code(rules.check_confirm, False, [["Grunt"], ["Warrior"]]) == "company_needs_leader"
    assert code(rules.check_confirm, False, []) == "company_needs_leader"
    assert code(rules.check_confirm, True, [["Command"]]) == "company_confirmed_already"


def test_r3_6_faction_is_fixed_after_confirmation():
    rules.check_faction_change(False)
    assert code(rules.check_faction_change, True) == "faction_locked"


def test_r3_7_unique_items_are_not_for_sale():
    rules.check_buyable_item("Common")
    rules.check_buyable_item("Rare")
    assert code(rules.check_buyable_item, "Unique") == "item_unique_reward_only"


def test_v7_unique_profile_once_per_company():
    rules.check_unique_profile(True, "Abbess", set(), "basileans.abbess")
    rules.check_unique_profile(False, "Man-at-Arms", {"basileans.man-at-arms"}, "basileans.man-at-arms")
    assert code(rules.check_unique_profile, True, "Abbess", {"basileans.abbess"}, "basileans.abbess") == "unique_profile_held"


def test_v8_two_items_one_per_slot():
    sword = Carried("Melee", "Rare")
    assert rules.item_problem(["Warrior"], [], sword) is None
    assert rules.item_problem(["Warrior"], [Carried("Armour", "Common")], sword) is None
    assert rules.item_problem(["Warrior"], [Carried("Melee", "Common")], sword) == ("item_slot_taken", {"slot": "Melee"})
    full = [Carried("Armour", "Common"), Carried("Magic", "Rare")]
    assert rules.item_problem(["Command"], full, sword) == ("item_limit", {"max": 2})


def test_v8_a_grunt_carries_one_common_item():
    assert rules.item_problem(["Grunt"], [], Carried("Melee", "Common")) is None
    assert rules.item_problem(["Grunt"], [], Carried("Melee", "Rare"))[0] == "item_grunt_common_only"
    assert rules.item_problem(["Grunt"], [Carried("Armour", "Common")], Carried("Melee", "Common"))[0] == "item_grunt_one_only"
    assert rules.item_problem(["Grunt", "Warrior"], [], Carried("Melee", "Unique"))[0] == "item_grunt_common_only"


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Melee", "Armour", "Ranged", "Magic", "Mount", "Sundries"]),
            st.sampled_from(["Common", "Rare", "Unique"]),
        ),
        max_size=8,
    ),
    st.sampled_from([["Grunt"], ["Warrior"], ["Command"], ["Large", "Warrior"]]),
)
def test_v8_adding_items_one_by_one_never_breaks_the_limits(offers, types):
    carried: list[Carried] = []
    for slot, rarity in offers:
        new = Carried(slot, rarity)
        if rules.item_problem(types, carried, new) is None:
            carried.append(new)
    assert len(carried) <= (1 if "Grunt" in types else 2)
    assert len({c.slot for c in carried}) == len(carried)
    if "Grunt" in types:
        assert all(c.rarity == "Common" for c in carried)

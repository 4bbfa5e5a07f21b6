"""Issue 29 item 7 (R11.3): the shop groups profiles by Vanguard type in the manual's order,
Command first, and says how many of each the company owns."""

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from app.companies.rules import SHOP_TYPE_ORDER, shop_groups, shop_type


@dataclass(frozen=True)
class P:
    key: str
    types: tuple[str, ...]


def test_R11_3_command_comes_first_and_a_profile_sits_under_its_first_type_in_that_order():
    profiles = [P("troll", ("Large",)), P("ax", ("Grunt",)), P("boss", ("Warrior", "Command")), P("odd", ("Beast",))]
    groups = shop_groups(profiles, {"ax": 3})
    assert [t for t, _rows in groups] == ["Command", "Grunt", "Large", ""]
    assert groups[0][1] == [(profiles[2], 0)] and groups[1][1] == [(profiles[1], 3)]
    assert shop_type(("Support", "Spellcaster")) == "Spellcaster"


@given(st.lists(st.tuples(st.text(min_size=1, max_size=3), st.sets(st.sampled_from(SHOP_TYPE_ORDER), max_size=3)), max_size=10))
def test_every_profile_is_listed_once_and_groups_follow_the_manual(rows):
    profiles = [P(f"{i}{key}", tuple(types)) for i, (key, types) in enumerate(rows)]
    groups = shop_groups(profiles, {})
    listed = [p for _t, group in groups for p, _n in group]
    assert sorted(p.key for p in listed) == sorted(p.key for p in profiles)
    order = [t for t, _rows in groups]
    assert order == sorted(order, key=lambda t: (SHOP_TYPE_ORDER + ("",)).index(t))

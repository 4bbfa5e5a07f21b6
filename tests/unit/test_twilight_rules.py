"""Who takes each place in Twilight (R7.3-R7.5, R8.10), table-driven with made-up allies,
and the income of End round (R7.6) — pure rules, no database."""

from __future__ import annotations

import pytest

from app.battles.rules import Group
from app.rounds import rules
from app.rounds.rules import Came, Fought, PlaceRound

A, B, C, D, E = 1, 2, 3, 4, 5
GUILD_AB = Group("guild", 10, leader=E)  # A and B are in a guild founded by E
ALLIANCE_CD = Group("alliance", 20, leader=C)  # C and D share a mission alliance at event 7


def allies(player: int, event: int | None) -> list[Group]:
    groups = []
    if player in (A, B, E):
        groups.append(GUILD_AB)
    if player in (C, D) and event == 7:
        groups.append(ALLIANCE_CD)
    return groups


def fought(*players: int, won: tuple[int, ...] = (), event: int | None = None) -> Fought:
    return Fought(event, tuple(players), tuple(won))


CASES = [
    # id, owner, battles, unopposed, left out, reason, taker, candidates
    ("r7_3_sole_winner_takes_a_free_place", None, [fought(A, C, won=(A,))], [], [], "sole_winner", A, ()),
    ("r7_3_sole_winner_takes_another_players_hideout", C, [fought(A, C, won=(A,))], [], [], "sole_winner", A, ()),
    ("r7_3_owner_who_wins_keeps_it", A, [fought(A, C, won=(A,))], [], [], "sole_winner", A, ()),
    (
        "r7_3_all_battles_at_the_place_count_across_events",
        None,
        [fought(A, C, won=(A,), event=5), fought(A, D, won=(A,), event=6)],
        [],
        [],
        "sole_winner",
        A,
        (),
    ),
    ("r7_3_winners_all_in_one_guild_give_it_to_the_founder", None, [fought(A, B, C, won=(A, B))], [], [], "guild", E, ()),
    (
        "r7_3_guild_winners_at_different_events_too",
        D,
        [fought(A, C, won=(A,), event=5), fought(B, D, won=(B,), event=6)],
        [],
        [],
        "guild",
        E,
        (),
    ),
    (
        "r7_3_winners_all_in_one_mission_alliance_give_it_to_the_initiator",
        None,
        [fought(C, D, A, won=(C, D), event=7)],
        [],
        [],
        "alliance",
        C,
        (),
    ),
    (
        "r7_3_mission_alliance_counts_only_at_its_event",
        None,
        [fought(C, A, won=(C,), event=7), fought(D, B, won=(D,), event=8)],
        [],
        [],
        "winners_choice",
        None,
        (C, D),
    ),
    (
        "r7_3_several_other_winners_the_gm_chooses",
        None,
        [fought(A, C, won=(A,), event=5), fought(C, D, won=(C,), event=6)],
        [],
        [],
        "winners_choice",
        None,
        (A, C),
    ),
    (
        "r7_3_guild_member_and_outsider_winning_the_gm_chooses",
        B,
        [fought(A, C, D, won=(A, C))],
        [],
        [],
        "winners_choice",
        None,
        (A, C),
    ),
    ("r7_3_a_draw_leaves_the_place_with_its_owner", C, [fought(A, B)], [], [], "draw", None, ()),
    ("r7_3_a_draw_leaves_a_free_place_free", None, [fought(A, C)], [], [], "draw", None, ()),
    (
        "r7_3_winners_come_before_unopposed_warbands",
        None,
        [fought(A, C, won=(C,), event=5)],
        [Came(D, 6)],
        [],
        "sole_winner",
        C,
        (),
    ),
    ("r7_4_unopposed_warband_takes_a_place_without_owner", None, [], [Came(A, None)], [], "unopposed", A, ()),
    ("r7_4_unopposed_warband_does_not_take_an_owned_place", C, [], [Came(A, None)], [], "unopposed_owned", None, ()),
    ("r7_4_owner_defending_alone_keeps_it", A, [], [Came(A, None)], [], "unopposed_owned", None, ()),
    (
        "r7_4_unopposed_after_a_draw_elsewhere_takes_a_free_place",
        None,
        [fought(C, D, event=5)],
        [Came(A, 6)],
        [],
        "unopposed",
        A,
        (),
    ),
    ("r7_4_draw_elsewhere_and_unopposed_at_an_owned_place", B, [fought(C, D, event=5)], [Came(A, 6)], [], "draw", None, ()),
    (
        "r7_5_several_unrelated_unopposed_players_the_gm_chooses",
        None,
        [],
        [Came(A, 5), Came(C, 6)],
        [],
        "unopposed_choice",
        None,
        (A, C),
    ),
    ("r7_5_one_player_unopposed_at_two_events_takes_it", None, [], [Came(A, 5), Came(A, 6)], [], "unopposed", A, ()),
    (
        "r8_10_only_guild_allies_met_the_founder_takes_the_free_place",
        None,
        [],
        [Came(A, None), Came(B, None)],
        [],
        "unopposed_guild",
        E,
        (),
    ),
    (
        "r8_10_only_mission_allies_met_the_initiator_takes_the_free_place",
        None,
        [],
        [Came(D, 7), Came(C, 7)],
        [],
        "unopposed_alliance",
        C,
        (),
    ),
    ("r8_10_allies_unopposed_at_an_owned_place_take_nothing", B, [], [Came(C, 7), Came(D, 7)], [], "unopposed_owned", None, ()),
    (
        "r8_10_a_place_won_only_by_one_guilds_members_goes_to_the_founder",
        C,
        [fought(A, B, C, D, won=(A, B))],
        [],
        [],
        "guild",
        E,
        (),
    ),
    ("r6_4_left_out_warbands_take_nothing", None, [], [], [Came(A, None)], "left_out", None, ()),
    ("r6_4_left_out_beside_a_battle_changes_nothing", None, [fought(C, D, won=(D,))], [], [Came(A, None)], "sole_winner", D, ()),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_r7_3_r7_4_r7_5_r8_10_capture_cases(case):
    _name, owner, battles, unopposed, left_out, reason, taker, candidates = case
    outcome = rules.outcome(PlaceRound(99, owner, battles, unopposed, left_out), allies)
    assert (outcome.reason, outcome.taker, outcome.candidates) == (reason, taker, candidates)
    assert outcome.needs_gm_choice == bool(candidates)


def test_r7_3_new_owner_follows_the_outcome_and_the_gm_choice():
    taken = rules.outcome(PlaceRound(1, C, [fought(A, C, won=(A,))]))
    assert taken.new_owner() == A
    drawn = rules.outcome(PlaceRound(1, C, [fought(A, C)]))
    assert drawn.new_owner() == C
    open_ = rules.outcome(PlaceRound(1, None, [], [Came(A, 1), Came(B, 2)]))
    assert open_.needs_gm_choice and open_.new_owner() is None and open_.new_owner(B) == B


def test_r7_3_without_allies_nobody_is_grouped():
    outcome = rules.outcome(PlaceRound(1, None, [fought(A, B, C, won=(A, B))]))
    assert outcome.reason == "winners_choice" and outcome.candidates == (A, B)


def test_r7_6_income_pays_every_player_and_every_owner_nothing_as_zero():
    payments = rules.income([A, B, C], 50, [(10, A, 5), (11, A, 3), (12, None, 7), (13, B, 0), (14, 999, 4)])
    assert [(p.player_id, p.amount, p.kind, p.place_id) for p in payments] == [
        (A, 50, "income", None),
        (B, 50, "income", None),
        (C, 50, "income", None),
        (A, 5, "place_income", 10),
        (A, 3, "place_income", 11),
    ]
    assert rules.income([A], 0, []) == []

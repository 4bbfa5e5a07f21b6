"""Battles of allies (issue 27, items 1 and 2): results are confirmed per side (R6.8) and
Underdog is decided per side (V10), with guilds, mission alliances and three-side battles."""

from __future__ import annotations

from sqlmodel import Session, select

from app.accounts.models import User
from app.battles import service as battles
from app.live import messages
from app.live.models import LiveEvent
from app.visibility import viewer_for
from tests.builders.guilds import allied_at_an_event, guild_battle, guild_campaign, sides_of
from tests.builders.responses import error_code

# tests/builders/guilds.py ROSTERS: players 0 and 3 field 46 points (orcs), 1 and 4 46 (basileans), 2 49 (undead).


def _alliance_battle(client):
    """Players 0 and 1 in a mission alliance at an event, against player 2."""
    g = guild_campaign(client, 3)
    allied_at_an_event(g)
    g.phase("battles")
    [battle] = g.battles()
    assert sides_of(battle) == sorted([sorted([g.pid(0), g.pid(1)]), [g.pid(2)]])
    return g, battle


def _result(g, battle, i: int, *winners: int) -> dict:
    r = g.post(i, f"/battles/{battle['id']}/result", {"winner_player_ids": [g.pid(w) for w in winners]})
    assert r.status_code == 200, r.text
    return r.json()


def _snapshot(g, battle) -> tuple:
    return g.state(), g.get("gm", f"/battles/{battle['id']}").json(), g.twilight()


def _refused(g, battle, i: int, status: int, code: str) -> None:
    """Player i's confirm is refused with this status and code, and nothing changes."""
    before = _snapshot(g, battle)
    r = g.post(i, f"/battles/{battle['id']}/confirm")
    assert (r.status_code, error_code(r)) == (status, code), r.text
    assert _snapshot(g, battle) == before


def _waiting(g, battle) -> list[int]:
    """Whom the Twilight gate names for this battle's result (R7.2)."""
    return next(m["player_ids"] for m in g.twilight()["waiting_for"] if m["kind"] == "result" and m["battle_id"] == battle["id"])


def _todo(engine, g, i: int) -> list[tuple[str, int]]:
    """Player i's dashboard to-do about battles (what the dashboard and the daily digest show)."""
    with Session(engine) as s:
        viewer = viewer_for(s, s.exec(select(User).where(User.nickname == f"player{i}")).one(), g.cid)
        views = battles.battles_of(s, viewer.campaign, player_id=g.pid(i), rosters=False)
        return [(action, v.battle.id) for action, v in battles.waiting_for(views, g.pid(i), False, viewer.campaign.phase)]


def _toasts(engine, g, i: int) -> list[str]:
    """The live messages player i's stream gives for the campaign's result events (R11.4)."""
    with Session(engine) as s:
        viewer = viewer_for(s, s.exec(select(User).where(User.nickname == f"player{i}")).one(), g.cid)
        events = list(
            s.exec(
                select(LiveEvent).where(LiveEvent.campaign_id == g.cid, LiveEvent.kind == "result").order_by(LiveEvent.id)
            ).all()
        )
        return [t.payload["message"] for t in messages.tell(s, viewer, events, lambda text: text) if t.payload["message"]]


# --- R6.8: one confirmation from each other side ----------------------------------------------------


def test_R6_8_the_reporters_guild_ally_cannot_confirm_and_one_player_of_the_other_side_decides(client, engine):
    """R6.8 with a guild, 2 v 1: the reporter's ally is refused (changing nothing) and never
    asked; the lone opponent's one confirmation decides the result."""
    g, battle = guild_battle(client)
    assert sides_of(battle) == sorted([sorted([g.pid(1), g.pid(3)]), [g.pid(2)]])
    _result(g, battle, 1, 1, 3)
    _refused(g, battle, 3, 409, "battle_own_side")
    _refused(g, battle, 1, 409, "battle_confirmed_already")
    assert _todo(engine, g, 3) == [] and _todo(engine, g, 1) == []
    assert _todo(engine, g, 2) == [("confirm", battle["id"])]
    assert _waiting(g, battle) == [g.pid(2)]  # Twilight waits for the other side only
    r = g.post(2, f"/battles/{battle['id']}/confirm")
    assert r.status_code == 200, r.text
    assert (r.json()["status"], r.json()["confirmed_by"]) == ("confirmed", [g.pid(2)])
    assert g.twilight()["waiting_for"] == [m for m in g.twilight()["waiting_for"] if m["kind"] != "result"]
    _refused(g, battle, 3, 409, "battle_nothing_to_confirm")
    assert [e["kind"] for e in g.chronicle()].count("battle_won") == 1


def test_R6_8_one_mission_ally_confirms_for_the_whole_side(client):
    """R6.8 with a mission alliance: the lone side enters the result, and one of the two allies
    confirming is enough; the other ally then has nothing left to confirm."""
    g, battle = _alliance_battle(client)
    _result(g, battle, 2, 2)
    assert sorted(_waiting(g, battle)) == sorted([g.pid(0), g.pid(1)])
    r = g.post(1, f"/battles/{battle['id']}/confirm")
    assert r.status_code == 200, r.text
    assert (r.json()["status"], r.json()["confirmed_by"]) == ("confirmed", [g.pid(1)])
    _refused(g, battle, 0, 409, "battle_nothing_to_confirm")


def test_R6_8_three_sides_wait_for_each_other_side_once(client, engine):
    """R6.8 with three sides (multi-band battles, a guild of two and two lone warbands): the
    lone reporter's result waits for the guild's side and the other lone side; a second player
    of the guild's side, once it has confirmed, is refused (changing nothing) and not asked."""
    g, battle = guild_battle(client, 5)
    assert sides_of(battle) == sorted([sorted([g.pid(1), g.pid(3)]), [g.pid(2)], [g.pid(4)]])
    _result(g, battle, 2, 2)
    assert sorted(_waiting(g, battle)) == sorted([g.pid(1), g.pid(3), g.pid(4)])
    r = g.post(3, f"/battles/{battle['id']}/confirm")
    assert r.status_code == 200 and r.json()["status"] == "reported", r.text
    _refused(g, battle, 1, 409, "battle_confirmed_already")
    _refused(g, battle, 3, 409, "battle_confirmed_already")
    assert _todo(engine, g, 1) == [] and _todo(engine, g, 3) == []
    assert _todo(engine, g, 4) == [("confirm", battle["id"])]
    assert _waiting(g, battle) == [g.pid(4)]
    r = g.post(4, f"/battles/{battle['id']}/confirm")
    assert r.status_code == 200, r.text
    assert (r.json()["status"], r.json()["confirmed_by"]) == ("confirmed", sorted([g.pid(3), g.pid(4)]))


def test_R6_8_the_live_toast_asks_only_the_other_side(client, engine):
    """R6.8, R11.4: "a result waits for your confirmation" reaches the other side, never the
    reporter's ally; once that side has confirmed, nobody is asked any more."""
    g, battle = guild_battle(client)
    _result(g, battle, 1, 1, 3)
    asked = "A result waits for your confirmation: the battle at Place 4."
    assert _toasts(engine, g, 2) == [asked]
    assert asked not in _toasts(engine, g, 3) and asked not in _toasts(engine, g, 1)
    assert g.post(2, f"/battles/{battle['id']}/confirm").status_code == 200
    assert asked not in _toasts(engine, g, 2)
    assert "The result of the battle at Place 4 is confirmed." in _toasts(engine, g, 3)


# --- V10: Underdog per side ---------------------------------------------------------------------


def _figures(battle) -> dict[tuple[int, ...], tuple]:
    return {
        tuple(s["player_ids"]): (
            s["points"],
            s["bonus_points"],
            s["underdog_dice"],
            [(w["bonus_points"], w["underdog_dice"]) for w in s["warbands"]],
        )
        for s in battle["sides"]
    }


def test_V10_allies_are_compared_by_their_total_and_the_lone_warband_gets_underdog(client):
    """V10 with a guild, 2 v 1: the allies' 46 + 46 = 92 points face 49, so the lone side gets
    43 bonus points and 43 // 25 = 1 die, the allies nothing; each warband's own fields repeat
    its side's figures."""
    g, battle = guild_battle(client)
    allies = tuple(sorted([g.pid(1), g.pid(3)]))
    assert _figures(battle) == {allies: (92, 0, 0, [(0, 0), (0, 0)]), (g.pid(2),): (49, 43, 1, [(43, 1)])}


def test_V10_three_sides_each_weaker_side_gets_its_difference(client):
    """V10 with three sides: the strongest side (the guild's 92) gets nothing, the 49-point side
    43 (1 die), the 46-point side 46 (1 die)."""
    g, battle = guild_battle(client, 5)
    allies = tuple(sorted([g.pid(1), g.pid(3)]))
    assert _figures(battle) == {
        allies: (92, 0, 0, [(0, 0), (0, 0)]),
        (g.pid(2),): (49, 43, 1, [(43, 1)]),
        (g.pid(4),): (46, 46, 1, [(46, 1)]),
    }


def test_V10_the_underdog_die_follows_the_campaign_setting_at_announcing(client):
    """V10 with a mission alliance and 10 points a die: the lone side's 43 bonus points give 4
    dice; changing the setting afterwards leaves the announced battle as it was."""
    g = guild_campaign(client, 3)
    assert client.patch(g.url(), json={"underdog_points_per_die": 10}, headers=g.gm).status_code == 200
    allied_at_an_event(g)
    g.phase("battles")
    [battle] = g.battles()
    allies = tuple(sorted([g.pid(0), g.pid(1)]))
    assert _figures(battle) == {allies: (92, 0, 0, [(0, 0), (0, 0)]), (g.pid(2),): (49, 43, 4, [(43, 4)])}
    assert client.patch(g.url(), json={"underdog_points_per_die": 25}, headers=g.gm).status_code == 200
    assert _figures(g.battles()[0]) == _figures(battle)


def test_R6_8_a_to_do_reads_confirmations_only_while_a_result_waits_for_them(client, engine, count_statements):
    """Issue 37: a to-do's read of the round's battles asks for confirmations only of the battles
    whose result waits for them (R6.8's `asked_to_confirm` reads nothing else): none reported,
    two statements; one reported and half confirmed, the third reads who confirmed, and the
    player who confirmed is not asked again while the other lone side still is."""
    g, battle = guild_battle(client, 5)

    def read() -> tuple[int, list]:
        with Session(engine) as s, count_statements() as c:
            campaign = viewer_for(s, s.exec(select(User).where(User.nickname == "gamemaster")).one(), g.cid).campaign
            c.count = 0
            views = battles.battles_of(s, campaign, rosters=False)
            return c.count, [sorted(v.confirmations) for v in views]

    assert read() == (2, [[]])
    _result(g, battle, 2, 2)
    assert g.post(3, f"/battles/{battle['id']}/confirm").status_code == 200
    assert read() == (3, [[g.pid(3)]])
    assert _todo(engine, g, 1) == [] and _todo(engine, g, 4) == [("confirm", battle["id"])]

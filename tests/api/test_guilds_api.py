"""Guilds over the API (R8.1-R8.6, R8.9, R9.2): every fee as a ledger entry, every refusal
with the ledgers, the guilds and the chronicle left as they were, the chronicle's entries,
and the guild income paid at End round."""

from __future__ import annotations

from sqlmodel import Session, select

from app.gold.service import balance_matches_ledger
from app.guilds.models import GuildRequest
from tests.builders.accounts import user
from tests.builders.guilds import GUILD, START, guild_campaign
from tests.builders.responses import error_code

COST, REQUEST, ENTRY, INCOME = GUILD["level_cost"], GUILD["request_fee"], GUILD["entry_fee"], GUILD["level_income"]


def _statuses(engine) -> dict[int, str]:
    with Session(engine) as s:
        return {r.id: r.status for r in s.exec(select(GuildRequest)).all()}


def test_r8_1_r8_6_founding_costs_level_one_names_the_guild_and_goes_to_the_chronicle(client, engine):
    g = guild_campaign(client, 2)
    guild = g.found(0, "Iron Wolves")
    assert (guild["name"], guild["founder_player_id"], guild["level"], guild["member_player_ids"]) == (
        "Iron Wolves",
        g.pid(0),
        1,
        [g.pid(0)],
    )
    assert (guild["allies_allowed"], guild["next_level_cost"], guild["income_per_round"], guild["requests"]) == (
        1,
        2 * COST,
        INCOME,
        [],
    )
    assert g.balances() == [START - 1 * COST, START]
    assert g.entries(0, "guild_fee") == [(-COST, "Founding · Iron Wolves")]
    assert g.chronicle_texts("guild_founded") == ["player0 founded the guild Iron Wolves."]
    assert g.guild_of() == {g.pid(0): guild["id"], g.pid(1): None}
    # Guilds are public (R8.6): every member of the campaign sees it, with its members.
    assert [x["id"] for x in g.get(1, "/guilds").json()] == [guild["id"]]
    assert g.get("gm", "/guilds").json()[0]["member_player_ids"] == [g.pid(0)]
    with Session(engine) as s:
        assert all(balance_matches_ledger(s, p["player_id"]) for p in g.players)


def test_r8_1_r8_3_founding_refusals_change_nothing(client):
    g = guild_campaign(client, 3)
    g.found(0, "Iron Wolves")
    before = g.state()
    # A founder founds no second guild (R8.3: one guild per player; dissolve first).
    g.refused(g.post(0, "/guilds", {"name": "Second"}), 409, "guild_founder_dissolve_first", before)
    # The name is taken (whatever the case).
    g.refused(g.post(1, "/guilds", {"name": "iron wolves"}), 409, "guild_name_taken", before)
    # The GM plays no part in guilds.
    g.refused(g.post("gm", "/guilds", {"name": "GM's own"}), 403, "not_a_player", before)
    # Not enough gold for level 1.
    r = g.post("gm", "/ledger/adjustments", {"player_id": g.pid(2), "amount": COST - 1 - START, "reason": "Poor"})
    assert r.status_code == 201, r.text
    before = g.state()
    g.refused(g.post(2, "/guilds", {"name": "Paupers"}), 409, "not_enough_gold", before)
    # A member founds no guild either.
    g.admit(0, g.get(0, "/guilds").json()[0]["id"], 1)
    before = g.state()
    g.refused(g.post(1, "/guilds", {"name": "Splinter"}), 409, "guild_member_already", before)
    # A bad name is a 422, not a guild.
    r = g.post(1, "/guilds", {"name": ""})
    assert r.status_code == 422 and g.state() == before


def test_r8_3_a_request_is_paid_and_not_returned_when_rejected(client, engine):
    g = guild_campaign(client, 3)
    gid = g.found(0, "Iron Wolves")["id"]
    r = g.post(1, f"/guilds/{gid}/requests")
    assert r.status_code == 201, r.text
    request = r.json()
    assert (request["kind"], request["status"], request["fee"], request["player_id"]) == ("request", "pending", REQUEST, g.pid(1))
    assert g.entries(1, "guild_fee") == [(-REQUEST, "Request to join · Iron Wolves")]
    # The founder and the asker see the request; nobody else does.
    assert [x["id"] for x in g.guild(gid, 0)["requests"]] == [request["id"]]
    assert [x["id"] for x in g.guild(gid, 1)["requests"]] == [request["id"]]
    assert g.guild(gid, 2)["requests"] == [] and g.guild(gid, "gm")["requests"] == []
    before = g.state()
    g.refused(g.post(1, f"/guilds/{gid}/requests"), 409, "guild_request_pending", before)
    g.refused(g.post(2, f"/guilds/{gid}/requests/{request['id']}/accept"), 403, "guild_founder_only", before)
    g.refused(g.post(1, f"/guilds/{gid}/requests/{request['id']}/accept"), 403, "guild_founder_only", before)
    g.refused(g.post(0, f"/guilds/{gid}/requests"), 409, "guild_founder_dissolve_first", before)
    g.refused(g.post(0, f"/guilds/{gid}/requests/9999/accept"), 404, "not_found", before)
    r = g.post(0, f"/guilds/{gid}/requests/{request['id']}/reject")
    assert r.status_code == 200 and r.json()["status"] == "rejected"
    assert g.balances() == [START - COST, START - REQUEST, START]  # the fee is not returned
    assert g.guild(gid)["member_player_ids"] == [g.pid(0)]
    assert g.chronicle_texts("guild_joined") == []
    before = g.state()
    g.refused(g.post(0, f"/guilds/{gid}/requests/{request['id']}/accept"), 409, "guild_request_decided", before)
    # Asking again costs the fee again.
    assert g.post(1, f"/guilds/{gid}/requests").status_code == 201
    assert g.entries(1, "guild_fee") == [(-REQUEST, "Request to join · Iron Wolves")] * 2
    with Session(engine) as s:
        assert all(balance_matches_ledger(s, p["player_id"]) for p in g.players)


def test_r8_3_r8_6_an_accepted_request_pays_the_entry_fee_too_and_goes_to_the_chronicle(client):
    g = guild_campaign(client, 2)
    gid = g.found(0, "Iron Wolves")["id"]
    rid = g.post(1, f"/guilds/{gid}/requests").json()["id"]
    r = g.post(0, f"/guilds/{gid}/requests/{rid}/accept")
    assert r.status_code == 200 and r.json()["status"] == "accepted"
    assert g.entries(1, "guild_fee") == [(-ENTRY, "Entry fee · Iron Wolves"), (-REQUEST, "Request to join · Iron Wolves")]
    assert g.balances() == [START - COST, START - REQUEST - ENTRY]
    assert g.guild(gid)["member_player_ids"] == [g.pid(0), g.pid(1)]
    assert g.guild_of() == {g.pid(0): gid, g.pid(1): gid}
    assert g.chronicle_texts("guild_joined") == ["player1 joined the guild Iron Wolves."]


def test_r8_3_an_invitation_is_free_and_the_entry_fee_is_paid_on_accepting_it(client):
    g = guild_campaign(client, 4)
    gid = g.found(0, "Iron Wolves")["id"]
    g.post(0, f"/guilds/{gid}/upgrade")  # level 2: room for two allies
    balances = g.balances()
    inv = g.invite(0, gid, 1)
    assert (inv["kind"], inv["status"], inv["fee"], inv["player_id"]) == ("invitation", "pending", 0, g.pid(1))
    assert g.balances() == balances  # free
    assert [x["id"] for x in g.guild(gid, 1)["requests"]] == [inv["id"]] and g.guild(gid, 2)["requests"] == []
    before = g.state()
    g.refused(g.post(1, f"/guilds/{gid}/invitations", {"player_id": g.pid(2)}), 403, "guild_founder_only", before)
    g.refused(g.post(0, f"/guilds/{gid}/invitations", {"player_id": g.pid(0)}), 422, "guild_invite_self", before)
    g.refused(g.post(0, f"/guilds/{gid}/invitations", {"player_id": g.pid(1)}), 409, "guild_request_pending", before)
    g.refused(g.post(0, f"/guilds/{gid}/invitations", {"player_id": 99999}), 404, "not_found", before)
    g.refused(g.post(2, f"/guilds/{gid}/invitations/{inv['id']}/accept"), 404, "not_found", before)  # not theirs
    g.refused(g.post(0, f"/guilds/{gid}/invitations/{inv['id']}/accept"), 404, "not_found", before)
    r = g.post(1, f"/guilds/{gid}/invitations/{inv['id']}/accept")
    assert r.status_code == 200 and r.json()["status"] == "accepted"
    assert g.entries(1, "guild_fee") == [(-ENTRY, "Entry fee · Iron Wolves")]
    assert g.balances() == [balances[0], balances[1] - ENTRY, balances[2], balances[3]]
    assert g.chronicle_texts("guild_joined") == ["player1 joined the guild Iron Wolves."]
    # Declining is free too.
    inv2 = g.invite(0, gid, 2)
    r = g.post(2, f"/guilds/{gid}/invitations/{inv2['id']}/decline")
    assert r.status_code == 200 and r.json()["status"] == "declined"
    assert g.balances() == [balances[0], balances[1] - ENTRY, balances[2], balances[3]]
    before = g.state()
    g.refused(g.post(2, f"/guilds/{gid}/invitations/{inv2['id']}/accept"), 409, "guild_request_decided", before)
    g.refused(g.post(0, f"/guilds/{gid}/invitations", {"player_id": g.pid(1)}), 409, "guild_member_already", before)
    # An invitee who cannot pay the entry fee is refused; the invitation waits.
    inv3 = g.invite(0, gid, 3)
    assert (
        g.post("gm", "/ledger/adjustments", {"player_id": g.pid(3), "amount": ENTRY - 1 - START, "reason": "Poor"}).status_code
        == 201
    )
    before = g.state()
    r = g.post(3, f"/guilds/{gid}/invitations/{inv3['id']}/accept")
    g.refused(r, 409, "guild_entry_unaffordable", before)
    assert "cannot pay the entry fee of 11 gold." in r.json()["error"]["message"]


def test_r8_3_waiting_requests_lapse_unreturned_when_the_guild_is_dissolved_or_the_player_joins_elsewhere(client, engine):
    g = guild_campaign(client, 4)
    wolves = g.found(0, "Iron Wolves")["id"]
    crows = g.found(1, "Red Crows")["id"]
    to_wolves = g.post(2, f"/guilds/{wolves}/requests").json()["id"]
    invited = g.invite(1, crows, 2)["id"]
    other = g.post(3, f"/guilds/{wolves}/requests").json()["id"]
    assert g.balance(2) == START - REQUEST
    # Player 2 joins the Red Crows on their invitation: the paid request to the Iron Wolves lapses.
    assert g.post(2, f"/guilds/{crows}/invitations/{invited}/accept").status_code == 200
    assert _statuses(engine)[to_wolves] == "lapsed"
    assert g.balance(2) == START - REQUEST - ENTRY  # nothing returned
    assert g.entries(2, "guild_fee") == [(-ENTRY, "Entry fee · Red Crows"), (-REQUEST, "Request to join · Iron Wolves")]
    before = g.state()
    g.refused(g.post(0, f"/guilds/{wolves}/requests/{to_wolves}/accept"), 409, "guild_request_decided", before)
    g.refused(g.post(0, f"/guilds/{wolves}/requests/{to_wolves}/reject"), 409, "guild_request_decided", before)
    assert [x["id"] for x in g.guild(wolves, 0)["requests"]] == [other]
    # The Iron Wolves are dissolved: player 3's paid request lapses, unreturned.
    assert g.delete(0, f"/guilds/{wolves}").status_code == 204
    assert _statuses(engine)[other] == "lapsed"
    assert g.balance(3) == START - REQUEST and g.entries(3, "guild_fee") == [(-REQUEST, "Request to join · Iron Wolves")]
    with Session(engine) as s:
        assert all(balance_matches_ledger(s, p["player_id"]) for p in g.players)


def test_r8_3_one_guild_per_player_and_a_founder_dissolves_before_joining_another(client):
    g = guild_campaign(client, 3)
    wolves = g.found(0, "Iron Wolves")["id"]
    crows = g.found(1, "Red Crows")["id"]
    g.admit(0, wolves, 2)
    before = g.state()
    g.refused(g.post(2, f"/guilds/{crows}/requests"), 409, "guild_member_already", before)
    g.refused(g.post(1, f"/guilds/{crows}/invitations", {"player_id": g.pid(2)}), 409, "guild_member_already", before)
    g.refused(g.post(0, f"/guilds/{crows}/requests"), 409, "guild_founder_dissolve_first", before)
    g.refused(g.post(1, f"/guilds/{crows}/invitations", {"player_id": g.pid(0)}), 409, "guild_founder_dissolve_first", before)
    # The founder dissolves, and may then join another.
    assert g.post(2, f"/guilds/{wolves}/leave").status_code == 204
    assert g.delete(0, f"/guilds/{wolves}").status_code == 204
    g.admit(1, crows, 0)
    assert g.guild_of() == {g.pid(0): crows, g.pid(1): crows, g.pid(2): None}


def test_r8_3_an_invitation_to_a_player_who_founded_meanwhile_is_refused_on_accepting(client):
    g = guild_campaign(client, 2)
    wolves = g.found(0, "Iron Wolves")["id"]
    inv = g.invite(0, wolves, 1)["id"]
    g.found(1, "Red Crows")  # founding lapses the invitation
    before = g.state()
    g.refused(g.post(1, f"/guilds/{wolves}/invitations/{inv}/accept"), 409, "guild_request_decided", before)


def test_r8_4_a_guild_at_level_n_holds_its_founder_and_n_more(client):
    g = guild_campaign(client, 4)
    gid = g.found(0, "Iron Wolves")["id"]
    first, second = g.invite(0, gid, 1)["id"], g.invite(0, gid, 2)["id"]  # both while there is room
    assert g.post(1, f"/guilds/{gid}/invitations/{first}/accept").status_code == 200
    before = g.state()
    r = g.post(2, f"/guilds/{gid}/invitations/{second}/accept")
    g.refused(r, 409, "guild_full", before)
    assert "at level 1 it holds its founder and 1 more" in r.json()["error"]["message"]
    g.refused(g.post(3, f"/guilds/{gid}/requests"), 409, "guild_full", before)  # a full guild takes no paid requests
    g.refused(g.post(0, f"/guilds/{gid}/invitations", {"player_id": g.pid(3)}), 409, "guild_full", before)
    assert g.post(0, f"/guilds/{gid}/upgrade").status_code == 200
    assert g.guild(gid)["allies_allowed"] == 2
    assert g.post(2, f"/guilds/{gid}/invitations/{second}/accept").status_code == 200
    assert g.guild(gid)["member_player_ids"] == [g.pid(0), g.pid(1), g.pid(2)]
    before = g.state()
    g.refused(g.post(3, f"/guilds/{gid}/requests"), 409, "guild_full", before)


def test_r8_4_r8_6_upgrades_cost_n_times_the_level_cost_are_the_founders_and_stop_at_the_top_level(client):
    g = guild_campaign(client, 3)
    gid = g.found(0, "Iron Wolves")["id"]
    g.admit(0, gid, 1)
    before = g.state()
    g.refused(g.post(1, f"/guilds/{gid}/upgrade"), 403, "guild_founder_only", before)
    g.refused(g.post(2, f"/guilds/{gid}/upgrade"), 403, "guild_founder_only", before)
    g.refused(g.post("gm", f"/guilds/{gid}/upgrade"), 403, "not_a_player", before)
    r = g.post(0, f"/guilds/{gid}/upgrade")
    assert r.status_code == 200
    assert (r.json()["level"], r.json()["next_level_cost"], r.json()["income_per_round"]) == (2, 3 * COST, 2 * INCOME)
    r = g.post(0, f"/guilds/{gid}/upgrade")
    assert r.status_code == 200 and (r.json()["level"], r.json()["next_level_cost"], r.json()["allies_allowed"]) == (3, None, 3)
    assert g.entries(0, "guild_fee") == [
        (-3 * COST, "Level 3 · Iron Wolves"),
        (-2 * COST, "Level 2 · Iron Wolves"),
        (-COST, "Founding · Iron Wolves"),
    ]
    assert g.balance(0) == START - 6 * COST
    assert g.balance(1) == START - ENTRY  # the founder pays upgrades, nobody else
    assert g.chronicle_texts("guild_upgraded") == [
        "The guild Iron Wolves rose to level 3.",
        "The guild Iron Wolves rose to level 2.",
    ]
    before = g.state()
    r = g.post(0, f"/guilds/{gid}/upgrade")
    g.refused(r, 409, "guild_top_level", before)
    assert "highest level (3)" in r.json()["error"]["message"]


def test_r8_4_an_upgrade_the_founder_cannot_afford_is_refused(client):
    g = guild_campaign(client, 2, start=2 * COST)
    gid = g.found(0, "Iron Wolves")["id"]
    assert g.balance(0) == COST
    before = g.state()
    g.refused(g.post(0, f"/guilds/{gid}/upgrade"), 409, "not_enough_gold", before)
    assert g.guild(gid)["level"] == 1


def test_r8_6_leaving_and_dissolving_go_to_the_chronicle_and_only_the_right_people_do_them(client):
    g = guild_campaign(client, 4)
    gid = g.found(0, "Iron Wolves")["id"]
    g.post(0, f"/guilds/{gid}/upgrade")
    g.admit(0, gid, 1)
    g.admit(0, gid, 2)
    before = g.state()
    g.refused(g.post(0, f"/guilds/{gid}/leave"), 409, "guild_founder_leaves", before)
    g.refused(g.post(3, f"/guilds/{gid}/leave"), 409, "guild_not_member", before)
    g.refused(g.delete(1, f"/guilds/{gid}"), 403, "guild_founder_only", before)
    g.refused(g.delete("gm", f"/guilds/{gid}"), 403, "not_a_player", before)
    balances = g.balances()
    assert g.post(1, f"/guilds/{gid}/leave").status_code == 204
    assert (
        g.guild(gid)["member_player_ids"] == [g.pid(0), g.pid(2)] and g.balances() == balances
    )  # leaving costs nothing, returns nothing
    assert g.chronicle_texts("guild_left") == ["player1 left the guild Iron Wolves."]
    assert g.delete(0, f"/guilds/{gid}").status_code == 204
    assert g.chronicle_texts("guild_dissolved") == ["player0 dissolved the guild Iron Wolves."]
    assert g.get("gm", "/guilds").json() == [] and set(g.guild_of().values()) == {None}
    assert g.balances() == balances
    before = g.state()
    g.refused(g.delete(0, f"/guilds/{gid}"), 409, "guild_dissolved", before)
    g.refused(g.post(2, f"/guilds/{gid}/leave"), 409, "guild_dissolved", before)
    g.refused(g.post(3, f"/guilds/{gid}/requests"), 409, "guild_dissolved", before)
    g.refused(g.post(0, f"/guilds/{gid}/upgrade"), 409, "guild_dissolved", before)
    g.refused(g.delete(0, "/guilds/99999"), 404, "not_found", before)
    # The name is free again; the former members are free to join or found.
    assert g.found(2, "Iron Wolves")["founder_player_id"] == g.pid(2)
    # The chronicle tells the story in order (R8.6).
    kinds = [e["kind"] for e in reversed(g.chronicle()) if e["kind"].startswith("guild_")]
    assert kinds == [
        "guild_founded",
        "guild_upgraded",
        "guild_joined",
        "guild_joined",
        "guild_left",
        "guild_dissolved",
        "guild_founded",
    ]


def _shared_battle(g, fighters: tuple[int, ...]):
    """Round 1 to Battles: `fighters` send their warbands to the free place places[-1]."""
    for i in fighters:
        g.band(i)
    g.phase("orders")
    for i in fighters:
        g.send(i, place_id=g.places[-1]["id"])
    g.phase("battles")
    [battle] = g.battles()
    return battle


def test_r8_6_nobody_leaves_or_dissolves_during_a_shared_battle_not_yet_resolved(client):
    g = guild_campaign(client, 3)
    gid = g.found(0, "Iron Wolves")["id"]
    g.admit(0, gid, 1)
    battle = _shared_battle(g, (0, 1, 2))
    # Player 0 and player 1 stand together against player 2 (R6.2, R8.1).
    assert sorted(sorted(s["player_ids"]) for s in battle["sides"]) == sorted([sorted([g.pid(0), g.pid(1)]), [g.pid(2)]])
    before = g.state()
    r = g.post(1, f"/guilds/{gid}/leave")
    g.refused(r, 409, "guild_shared_battle", before)
    assert f"({g.places[-1]['name']})" in r.json()["error"]["message"]
    g.refused(g.delete(0, f"/guilds/{gid}"), 409, "guild_shared_battle", before)
    # A reported result that is not confirmed does not resolve the battle.
    r = g.post(2, f"/battles/{battle['id']}/result", {"winner_player_ids": [g.pid(0), g.pid(1)]})
    assert r.status_code == 200, r.text
    before = g.state()
    g.refused(g.post(1, f"/guilds/{gid}/leave"), 409, "guild_shared_battle", before)
    r = g.post("gm", f"/battles/{battle['id']}/resolve", {"winner_player_ids": [g.pid(0), g.pid(1)]})
    assert r.status_code == 200, r.text
    assert g.post(1, f"/guilds/{gid}/leave").status_code == 204
    assert g.delete(0, f"/guilds/{gid}").status_code == 204


def test_r8_6_a_battle_with_only_one_member_in_it_does_not_hold_the_guild(client):
    g = guild_campaign(client, 3)
    gid = g.found(0, "Iron Wolves")["id"]
    g.admit(0, gid, 1)
    _shared_battle(g, (0, 2))  # the founder fights player 2; player 1 stays at home
    assert g.post(1, f"/guilds/{gid}/leave").status_code == 204
    assert g.delete(0, f"/guilds/{gid}").status_code == 204


def test_r8_5_end_round_pays_each_member_the_rounded_up_share_as_one_ledger_entry(client, engine):
    g = guild_campaign(client, 5)
    wolves = g.found(0, "Iron Wolves")["id"]
    g.post(0, f"/guilds/{wolves}/upgrade")
    g.admit(0, wolves, 1)
    g.admit(0, wolves, 2)  # level 2, three members: 20 shared → 7 each (rounded up)
    g.found(3, "Red Crows")  # level 1, alone: 10
    gone = g.found(4, "Short Lived")["id"]
    g.delete(4, f"/guilds/{gone}")  # a dissolved guild pays nothing
    g.phase("twilight")
    balances = g.balances()
    g.end_round()
    round_income = g.campaign()["settings"]["round_income"]
    shares = [7, 7, 7, 10, 0]
    assert g.balances() == [b + round_income + share + 5 for b, share in zip(balances, shares)]  # 5: each hideout's income
    for i, share in enumerate(shares):
        expected = [(share, "Iron Wolves, level 2" if i < 3 else "Red Crows, level 1")] if share else []
        assert g.entries(i, "guild_income") == expected, i
    with Session(engine) as s:
        assert all(balance_matches_ledger(s, p["player_id"]) for p in g.players)


def test_r8_9_a_player_in_a_mission_alliance_this_round_joins_a_guild_after_withdrawing(client):
    g = guild_campaign(client, 4)
    ev = g.event(4, "Bridge")
    alliance = g.ally(2, ev, 3)
    gid = g.found(0, "Iron Wolves")["id"]
    g.post(0, f"/guilds/{gid}/upgrade")
    before = g.state()
    r = g.post(2, f"/guilds/{gid}/requests")
    g.refused(r, 409, "guild_in_alliance", before)
    assert "player2 is in a mission alliance this round" in r.json()["error"]["message"]
    g.refused(g.post(0, f"/guilds/{gid}/invitations", {"player_id": g.pid(2)}), 409, "guild_in_alliance", before)
    g.refused(g.post(2, "/guilds", {"name": "Rivals"}), 409, "guild_in_alliance", before)
    # Only a member is held: an invitee who has not accepted the alliance may join.
    assert g.post(3, f"/guilds/{gid}/requests").status_code == 201
    # An invitation sent before the alliance was made waits, and cannot be accepted meanwhile.
    ev2 = g.event(5, "Ford")
    inv1 = g.invite(0, gid, 1)["id"]
    g.ally(1, ev2, 2)
    before = g.state()
    g.refused(g.post(1, f"/guilds/{gid}/invitations/{inv1}/accept"), 409, "guild_in_alliance", before)
    assert g.post(2, f"/alliances/{alliance['id']}/withdraw").status_code == 204
    inv = g.invite(0, gid, 2)["id"]
    assert g.post(2, f"/guilds/{gid}/invitations/{inv}/accept").status_code == 200
    assert g.guild(gid)["member_player_ids"] == [g.pid(0), g.pid(2)]


def test_r8_9_a_mission_ally_joins_a_guild_once_the_alliance_lapsed_at_end_round(client):
    g = guild_campaign(client, 3)
    ev = g.event(4, "Bridge")
    alliance = g.ally(1, ev, 2)
    assert g.post(2, f"/alliances/{alliance['id']}/accept").status_code == 200
    gid = g.found(0, "Iron Wolves")["id"]
    g.post(0, f"/guilds/{gid}/upgrade")
    before = g.state()
    g.refused(g.post(1, f"/guilds/{gid}/requests"), 409, "guild_in_alliance", before)
    g.refused(g.post(0, f"/guilds/{gid}/invitations", {"player_id": g.pid(2)}), 409, "guild_in_alliance", before)
    g.phase("twilight")
    g.end_round()
    assert g.post(1, f"/guilds/{gid}/requests").status_code == 201
    g.admit(0, gid, 2)
    assert g.guild(gid)["member_player_ids"] == [g.pid(0), g.pid(2)]


def test_r9_2_with_the_guilds_module_off_every_guild_call_is_refused(client):
    g = guild_campaign(client, 2, modules={"guilds": False})
    before = g.state()
    for r in (
        g.get(0, "/guilds"),
        g.get("gm", "/guilds"),
        g.post(0, "/guilds", {"name": "Nope"}),
        g.post(0, "/guilds/1/requests"),
        g.post(0, "/guilds/1/requests/1/accept"),
        g.post(0, "/guilds/1/invitations", {"player_id": g.pid(1)}),
        g.post(0, "/guilds/1/invitations/1/decline"),
        g.post(0, "/guilds/1/upgrade"),
        g.post(0, "/guilds/1/leave"),
        g.delete(0, "/guilds/1"),
    ):
        assert (r.status_code, error_code(r)) == (409, "module_disabled"), (r.request.url, r.text)
    assert g.state() == before


def test_r8_2_refusals_name_the_campaigns_word_for_guilds(client):
    g = guild_campaign(client, 3, guild={"term": "cartel"})
    gid = g.found(0, "Iron Wolves")["id"]
    g.admit(0, gid, 1)
    r = g.post(2, f"/guilds/{gid}/requests")
    assert error_code(r) == "guild_full"
    message = r.json()["error"]["message"]
    assert "cartel" in message and "guild" not in message.lower()
    assert g.chronicle_texts("guild_founded") == ["player0 founded the cartel Iron Wolves."]
    assert [note for _, note in g.entries(0, "guild_fee")] == ["Founding · Iron Wolves"]


def test_r8_1_guild_calls_of_outsiders_are_not_found(client):
    g = guild_campaign(client, 2)
    gid = g.found(0, "Iron Wolves")["id"]
    stranger = user(client, "stranger")
    before = g.state()
    for r in (
        client.get(g.url("/guilds"), headers=stranger),
        client.post(g.url("/guilds"), json={"name": "X"}, headers=stranger),
        client.post(g.url(f"/guilds/{gid}/requests"), headers=stranger),
        client.delete(g.url(f"/guilds/{gid}"), headers=stranger),
    ):
        assert r.status_code == 404, r.text
    assert g.state() == before

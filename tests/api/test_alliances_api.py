"""Mission alliances over the API (R8.7-R8.9, R9.3, R11.2): made for an active event of the
round in Preparation or Orders, the initiator paying on creation and each ally on accepting,
declining free, withdrawing losing the fee, guild members kept out, secret to everybody else
(the GM too) until Battles and in the chronicle from then on, lapsing at End round."""

from __future__ import annotations

from sqlmodel import Session

from app.gold.service import balance_matches_ledger
from tests.builders.accounts import user
from tests.builders.guilds import ALLIANCE_FEE as FEE
from tests.builders.guilds import START, guild_campaign
from tests.builders.responses import error_code
from tests.builders.rounds import force_phase


def _ids(alliances: list[dict]) -> list[int]:
    return [a["id"] for a in alliances]


def test_r8_7_the_initiator_pays_on_creation_and_only_members_and_invitees_see_it(client, engine):
    g = guild_campaign(client, 4)
    ev = g.event(4, "Bridge")
    a = g.ally(0, ev, 1, 2)
    assert (
        a["event_id"],
        a["round"],
        a["initiator_player_id"],
        a["member_player_ids"],
        a["invited_player_ids"],
        a["status"],
    ) == (ev, 1, g.pid(0), [g.pid(0)], sorted([g.pid(1), g.pid(2)]), "active")
    assert g.entries(0, "alliance_fee") == [(-FEE, "Bridge")]
    assert g.balances() == [START - FEE, START, START, START]  # invitations are free
    # R8.8: until Battles only its members and invitees see it — not the GM, not another player.
    for who in (0, 1, 2):
        assert _ids(g.alliances(who)) == [a["id"]], who
    assert g.alliances(3) == [] and g.alliances("gm") == []
    assert g.chronicle_texts("alliance_revealed") == []
    with Session(engine) as s:
        assert balance_matches_ledger(s, g.pid(0))


def test_r8_7_each_ally_pays_on_accepting_declining_is_free(client, engine):
    g = guild_campaign(client, 4)
    ev = g.event(4, "Bridge")
    aid = g.ally(0, ev, 1, 2)["id"]
    r = g.post(1, f"/alliances/{aid}/accept")
    assert r.status_code == 200, r.text
    assert (r.json()["member_player_ids"], r.json()["invited_player_ids"]) == (sorted([g.pid(0), g.pid(1)]), [g.pid(2)])
    assert g.entries(1, "alliance_fee") == [(-FEE, "Bridge")]
    assert g.post(2, f"/alliances/{aid}/decline").status_code == 204
    assert g.balances() == [START - FEE, START - FEE, START, START]
    assert g.alliances(2) == []  # a decliner is out of it, and does not see it any more
    assert g.alliances(1)[0]["invited_player_ids"] == []
    before = g.state()
    g.refused(g.post(1, f"/alliances/{aid}/accept"), 409, "alliance_not_invited", before)
    g.refused(g.post(1, f"/alliances/{aid}/decline"), 409, "alliance_not_invited", before)
    g.refused(g.post(2, f"/alliances/{aid}/accept"), 409, "alliance_not_invited", before)
    g.refused(g.post(0, f"/alliances/{aid}/accept"), 409, "alliance_not_invited", before)
    # Outside the alliance it does not exist: the same answer as for an id that is nobody's.
    g.refused(g.post(3, f"/alliances/{aid}/accept"), 404, "not_found", before)
    g.refused(g.post(3, f"/alliances/{aid}/withdraw"), 404, "not_found", before)
    g.refused(g.post(3, "/alliances/99999/accept"), 404, "not_found", before)
    g.refused(g.post("gm", f"/alliances/{aid}/accept"), 403, "not_a_player", before)
    with Session(engine) as s:
        assert all(balance_matches_ledger(s, p["player_id"]) for p in g.players)


def test_r8_7_an_ally_who_cannot_pay_is_refused_and_the_invitation_waits(client):
    g = guild_campaign(client, 2)
    ev = g.event(2, "Bridge")
    aid = g.ally(0, ev, 1)["id"]
    assert (
        g.post("gm", "/ledger/adjustments", {"player_id": g.pid(1), "amount": FEE - 1 - START, "reason": "Poor"}).status_code
        == 201
    )
    before = g.state()
    g.refused(g.post(1, f"/alliances/{aid}/accept"), 409, "not_enough_gold", before)
    assert g.alliances(1)[0]["invited_player_ids"] == [g.pid(1)]


def test_r8_7_withdrawing_loses_the_fee_and_the_initiator_withdrawing_ends_it(client):
    g = guild_campaign(client, 4)
    ev = g.event(4, "Bridge")
    aid = g.ally(0, ev, 1, 2, 3)["id"]
    for i in (1, 2):
        assert g.post(i, f"/alliances/{aid}/accept").status_code == 200
    before = g.state()
    g.refused(g.post(3, f"/alliances/{aid}/withdraw"), 409, "alliance_not_member", before)  # invited, not a member
    assert g.post(1, f"/alliances/{aid}/withdraw").status_code == 204
    assert g.balance(1) == START - FEE  # the fee is lost
    assert g.alliances(0)[0]["member_player_ids"] == sorted([g.pid(0), g.pid(2)])
    assert g.alliances(0)[0]["status"] == "active" and g.alliances(1) == []
    before = g.state()
    g.refused(g.post(1, f"/alliances/{aid}/accept"), 409, "alliance_not_invited", before)  # no way back in
    g.refused(g.post(1, f"/alliances/{aid}/withdraw"), 409, "alliance_not_member", before)
    # The initiator withdraws: the alliance ends for everybody; nobody gets anything back.
    assert g.post(0, f"/alliances/{aid}/withdraw").status_code == 204
    [seen] = g.alliances(2)
    assert seen["status"] == "ended"
    assert g.balances() == [START - FEE, START - FEE, START - FEE, START]
    before = g.state()
    g.refused(g.post(3, f"/alliances/{aid}/accept"), 409, "alliance_over", before)
    g.refused(g.post(2, f"/alliances/{aid}/withdraw"), 409, "alliance_over", before)
    # Nobody stands together at the event any more: player 2 may make a new one there.
    assert g.ally(2, ev, 3)["initiator_player_id"] == g.pid(2)


def test_r8_7_an_alliance_is_made_in_preparation_or_orders_for_an_active_event_of_the_round(client, engine):
    g = guild_campaign(client, 3)
    bridge, ford, gone = g.event(3, "Bridge"), g.event(4, "Ford"), g.event(4, "Gone")
    assert g.client.delete(g.url(f"/events/{gone}"), headers=g.gm).status_code == 200  # the GM ended it
    before = g.state()
    g.refused(
        g.post(0, "/alliances", {"event_id": gone, "invite_player_ids": [g.pid(1)]}), 409, "alliance_event_inactive", before
    )
    g.refused(g.post(0, "/alliances", {"event_id": 99999, "invite_player_ids": [g.pid(1)]}), 404, "not_found", before)
    g.refused(g.post(0, "/alliances", {"event_id": bridge, "invite_player_ids": [g.pid(0)]}), 422, "alliance_invite_self", before)
    g.refused(g.post(0, "/alliances", {"event_id": bridge, "invite_player_ids": [g.pid(1), 99999]}), 404, "not_found", before)
    g.refused(g.post(0, "/alliances", {"event_id": bridge, "invite_player_ids": []}), 422, "validation_error", before)
    g.refused(g.post("gm", "/alliances", {"event_id": bridge, "invite_player_ids": [g.pid(1)]}), 403, "not_a_player", before)
    g.ally(0, bridge, 1)  # Preparation
    before = g.state()
    g.refused(
        g.post(0, "/alliances", {"event_id": bridge, "invite_player_ids": [g.pid(2)]}), 409, "alliance_already_at_event", before
    )
    g.phase("orders")
    g.ally(0, ford, 2)  # Orders; another event
    for phase in ("battles", "settlement", "twilight"):
        force_phase(engine, g.cid, phase)
        before = g.state()
        r = g.post(1, "/alliances", {"event_id": ford, "invite_player_ids": [g.pid(2)]})
        g.refused(r, 409, "alliance_phase", before)
        assert r.json()["error"]["message"] == "Mission alliances are made and joined only in Preparation and Orders."
        aid = g.alliances(2)[0]["id"]
        g.refused(g.post(2, f"/alliances/{aid}/accept"), 409, "alliance_phase", before)
        g.refused(g.post(2, f"/alliances/{aid}/decline"), 409, "alliance_phase", before)
        g.refused(g.post(0, f"/alliances/{aid}/withdraw"), 409, "alliance_phase", before)


def test_r8_7_an_alliance_for_an_event_of_another_round_is_refused(client):
    g = guild_campaign(client, 2)
    later = g.post("gm", "/events", {"place_id": g.places[2]["id"], "title": "Once", "duration": 1}).json()["id"]
    g.phase("twilight")
    g.end_round()  # the one-round event is over
    before = g.state()
    g.refused(
        g.post(0, "/alliances", {"event_id": later, "invite_player_ids": [g.pid(1)]}), 409, "alliance_event_inactive", before
    )


def test_r8_7_an_initiator_without_the_fee_makes_no_alliance(client):
    g = guild_campaign(client, 2, start=FEE - 1)
    ev = g.event(2, "Bridge")
    before = g.state()
    g.refused(g.post(0, "/alliances", {"event_id": ev, "invite_player_ids": [g.pid(1)]}), 409, "not_enough_gold", before)


def test_r8_9_guild_members_neither_make_nor_are_invited_to_nor_accept_mission_alliances(client):
    g = guild_campaign(client, 4)
    ev = g.event(4, "Bridge")
    gid = g.found(0, "Iron Wolves")["id"]
    before = g.state()
    r = g.post(0, "/alliances", {"event_id": ev, "invite_player_ids": [g.pid(2)]})
    g.refused(r, 409, "alliance_guild_member", before)
    assert "player0" in r.json()["error"]["message"] and "mission alliances" in r.json()["error"]["message"]
    r = g.post(2, "/alliances", {"event_id": ev, "invite_player_ids": [g.pid(3), g.pid(0)]})
    g.refused(r, 409, "alliance_guild_member", before)
    assert "player0" in r.json()["error"]["message"]
    # Invited before joining a guild (an invitee is not held, R8.9): accepting is refused.
    aid = g.ally(2, ev, 1)["id"]
    g.admit(0, gid, 1)
    before = g.state()
    g.refused(g.post(1, f"/alliances/{aid}/accept"), 409, "alliance_guild_member", before)
    assert g.post(1, f"/alliances/{aid}/decline").status_code == 204


def test_r8_8_r7_6_an_alliance_lapses_at_end_round(client):
    g = guild_campaign(client, 3)
    ev = g.post("gm", "/events", {"place_id": g.places[3]["id"], "title": "Long siege", "duration": 3}).json()["id"]
    aid = g.ally(0, ev, 1, 2)["id"]
    assert g.post(1, f"/alliances/{aid}/accept").status_code == 200
    g.phase("twilight")
    g.end_round()
    assert g.campaign()["round"] == 2
    [seen] = g.alliances(2)  # public since its Battles; the unanswered invitee sees it like everybody
    assert (seen["id"], seen["status"], seen["round"]) == (aid, "lapsed", 1)
    assert [a["status"] for a in g.alliances("gm")] == ["lapsed"]
    before = g.state()
    g.refused(g.post(2, f"/alliances/{aid}/accept"), 409, "alliance_over", before)
    g.refused(g.post(1, f"/alliances/{aid}/withdraw"), 409, "alliance_over", before)
    # The event goes on; a new alliance for it is a new one, paid again.
    again = g.ally(0, ev, 1)
    assert again["round"] == 2 and g.entries(0, "alliance_fee") == [(-FEE, "Long siege"), (-FEE, "Long siege")]


def test_r8_8_r11_1_at_battles_the_alliance_goes_to_the_chronicle_and_becomes_public(client):
    g = guild_campaign(client, 4)
    ev, other = g.event(4, "Bridge"), g.event(5, "Ford")
    aid = g.ally(0, ev, 1, 2)["id"]
    assert g.post(1, f"/alliances/{aid}/accept").status_code == 200
    lonely = g.ally(3, other, 2)["id"]  # nobody joins it
    ended = g.ally(2, other, 1)["id"]
    assert g.post(1, f"/alliances/{ended}/accept").status_code == 200
    assert g.post(2, f"/alliances/{ended}/withdraw").status_code == 204  # its initiator ended it
    g.phase("orders")
    assert g.chronicle_texts("alliance_revealed") == [] and g.alliances("gm") == []
    g.phase("battles")
    assert g.chronicle_texts("alliance_revealed") == ["A mission alliance for Bridge: player0 with player1."]
    assert _ids(g.alliances("gm")) == [aid]
    assert _ids(g.alliances(3)) == [lonely, aid]  # their own (nobody joined it) and the public one
    assert _ids(g.alliances(0)) == [aid]  # not the one nobody joined, not the one its initiator ended
    # Public are its members; whom else it invited stays with those in it.
    seen = {who: next(a for a in g.alliances(who) if a["id"] == aid) for who in ("gm", 0, 1, 2, 3)}
    assert all(a["member_player_ids"] == sorted([g.pid(0), g.pid(1)]) for a in seen.values())
    assert [seen[who]["invited_player_ids"] for who in ("gm", 0, 1, 2, 3)] == [[], [g.pid(2)], [g.pid(2)], [g.pid(2)], []]
    # The chronicle is for members of the campaign only.
    assert client.get(g.url("/alliances"), headers=user(client, "outsider")).status_code == 404


def test_r8_8_r11_2_the_gms_view_of_a_ledger_leaves_out_alliance_fees_until_battles(client):
    g = guild_campaign(client, 2)
    ev = g.event(2, "Bridge")
    aid = g.ally(0, ev, 1)["id"]
    assert g.post(1, f"/alliances/{aid}/accept").status_code == 200

    def seen_by_gm(i):
        return [e["kind"] for e in g.get("gm", f"/ledger?player_id={g.pid(i)}").json()["items"]]

    assert [k for k in g.get(0, "/ledger").json()["items"] if k["kind"] == "alliance_fee"]  # the owner sees their own
    assert "alliance_fee" not in seen_by_gm(0) and "alliance_fee" not in seen_by_gm(1)
    g.phase("orders")
    assert "alliance_fee" not in seen_by_gm(0)
    g.phase("battles")
    assert seen_by_gm(0).count("alliance_fee") == 1 and seen_by_gm(1).count("alliance_fee") == 1


def test_r9_3_with_the_module_off_every_alliance_call_is_refused(client):
    g = guild_campaign(client, 2, modules={"mission_alliances": False})
    ev = g.event(2, "Bridge")
    before = g.state()
    for r in (
        g.get(0, "/alliances"),
        g.get("gm", "/alliances"),
        g.post(0, "/alliances", {"event_id": ev, "invite_player_ids": [g.pid(1)]}),
        g.post(0, "/alliances/1/accept"),
        g.post(0, "/alliances/1/decline"),
        g.post(0, "/alliances/1/withdraw"),
    ):
        assert (r.status_code, error_code(r)) == (409, "module_disabled"), (r.request.url, r.text)
    assert g.state() == before


def test_r8_2_with_the_word_alliance_for_guilds_mission_alliances_are_pacts(client):
    g = guild_campaign(client, 3, guild={"term": "alliance"})
    ev = g.event(3, "Bridge")
    g.found(0, "Iron Wolves")
    r = g.post(0, "/alliances", {"event_id": ev, "invite_player_ids": [g.pid(1)]})
    message = r.json()["error"]["message"]
    assert error_code(r) == "alliance_guild_member" and "pacts" in message and "mission" not in message
    aid = g.ally(1, ev, 2)["id"]
    assert g.post(2, f"/alliances/{aid}/accept").status_code == 200
    g.phase("battles")
    assert g.chronicle_texts("alliance_revealed") == ["A pact for Bridge: player1 with player2."]

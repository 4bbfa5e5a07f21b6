"""Invitations and the roster (R1.4)."""

from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join
from tests.builders.maps import add_place
from tests.builders.responses import error_code


def setup_campaign(client, **body):
    gm = user(client, "gamemaster")
    return gm, create_campaign(client, gm, **body)["id"]


def test_r1_4_invite_accept_and_decline(client):
    gm, cid = setup_campaign(client)
    anna, borys = user(client, "anna"), user(client, "borys")
    for nick in ("anna", "Borys"):
        assert client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": nick}, headers=gm).status_code == 201
    assert [i["campaign_id"] for i in client.get("/api/v1/me", headers=anna).json()["invitations"]] == [cid]
    # An invitee may see the campaign to decide.
    assert client.get(f"/api/v1/campaigns/{cid}", headers=anna).status_code == 200
    r = client.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=anna)
    assert r.status_code == 200 and r.json()["nickname"] == "anna"
    assert client.post(f"/api/v1/campaigns/{cid}/invitations/decline", headers=borys).status_code == 204
    players = client.get(f"/api/v1/campaigns/{cid}/players", headers=gm).json()
    assert [p["nickname"] for p in players] == ["anna"]
    assert client.get(f"/api/v1/campaigns/{cid}", headers=borys).status_code == 404
    r = client.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=borys)
    assert r.status_code == 404
    me = client.get("/api/v1/me", headers=anna).json()
    assert me["campaigns"][0]["role"] == "player" and me["invitations"] == []


def test_r1_4_invitation_refusals(client):
    gm, cid = setup_campaign(client, max_players=2)
    cases = [("nobody", 422, "user_unknown"), ("gamemaster", 422, "gm_cannot_play")]
    join(client, gm, cid, "anna")
    cases.append(("anna", 409, "already_player"))
    user(client, "borys")
    assert client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": "borys"}, headers=gm).status_code == 201
    cases.append(("borys", 409, "already_invited"))
    user(client, "celina")
    cases.append(("celina", 409, "campaign_full"))
    for nickname, status, code in cases:
        r = client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": nickname}, headers=gm)
        assert r.status_code == status and error_code(r) == code, nickname
    anna = user(client, "anna2")
    r = client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": "anna2"}, headers=anna)
    assert r.status_code == 404  # not a member: not told the campaign exists
    invitations = client.get(f"/api/v1/campaigns/{cid}/invitations", headers=gm).json()
    assert invitations == [{"nickname": "borys", "status": "pending"}]


def test_r1_4_declined_can_be_invited_again(client):
    gm, cid = setup_campaign(client)
    anna = user(client, "anna")
    client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": "anna"}, headers=gm)
    client.post(f"/api/v1/campaigns/{cid}/invitations/decline", headers=anna)
    assert client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": "anna"}, headers=gm).status_code == 201
    assert client.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=anna).status_code == 200


def test_r1_4_roster_closes_at_hideout_selection_and_pending_invitations_lapse(client):
    gm, cid = setup_campaign(client)
    for i in range(3):
        add_place(client, gm, cid, f"P{i}")
    join(client, gm, cid, "anna")
    join(client, gm, cid, "borys")
    celina = user(client, "celina")
    client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": "celina"}, headers=gm)
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm).status_code == 200
    r = client.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=celina)
    assert r.status_code == 404
    assert client.get(f"/api/v1/campaigns/{cid}/invitations", headers=gm).json() == [{"nickname": "celina", "status": "lapsed"}]
    user(client, "dawid")
    r = client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": "dawid"}, headers=gm)
    assert r.status_code == 409 and error_code(r) == "roster_closed"
    assert len(client.get(f"/api/v1/campaigns/{cid}/players", headers=gm).json()) == 2


def test_r1_4_max_players_cannot_drop_below_the_roster(client):
    gm, cid = setup_campaign(client)
    join(client, gm, cid, "anna")
    join(client, gm, cid, "borys")
    user(client, "celina")
    client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": "celina"}, headers=gm)
    r = client.patch(f"/api/v1/campaigns/{cid}", json={"max_players": 2}, headers=gm)
    assert r.status_code == 422 and error_code(r) == "max_players_below_roster"
    assert client.patch(f"/api/v1/campaigns/{cid}", json={"max_players": 3}, headers=gm).status_code == 200

"""R12.12 late joiners over the API: during Preparation of a running campaign the GM invites a
new player; they accept, claim a free ⚑ place, get the starting gold (one ledger entry), and
the chronicle says so. Outside Preparation every step is refused and changes nothing."""

from __future__ import annotations

from sqlmodel import Session, func, select

from app.campaigns.models import Invitation, Player
from app.gold.models import LedgerEntry
from app.maps.models import Hideout
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase

START = 400


def _api(cid: int, path: str = "") -> str:
    return f"/api/v1/campaigns/{cid}{path}"


def _state(engine, cid: int) -> tuple:
    with Session(engine) as s:
        return (
            s.exec(select(func.count()).select_from(Player).where(Player.campaign_id == cid)).one(),
            sorted((i.user_id, i.status) for i in s.exec(select(Invitation).where(Invitation.campaign_id == cid)).all()),
            s.exec(select(func.count()).select_from(Hideout).where(Hideout.campaign_id == cid)).one(),
            s.exec(select(func.count()).select_from(LedgerEntry).where(LedgerEntry.campaign_id == cid)).one(),
        )


def _chronicle(client, cid, headers) -> list[dict]:
    return client.get(_api(cid, "/chronicle"), headers=headers).json()["items"]


def test_r12_12_a_late_joiner_claims_a_free_place_and_gets_the_starting_gold(client, engine):
    gm, cid, players, places = running_campaign(client, 2, 4, starting_gold=START)
    dora = user(client, "dora")
    r = client.post(_api(cid, "/invitations"), json={"nickname": "dora"}, headers=gm)
    assert r.status_code == 201, r.text
    r = client.post(_api(cid, "/invitations/accept"), headers=dora)
    assert r.status_code == 200, r.text
    pid = r.json()["player_id"]
    assert r.json()["hideouts"] == [] and r.json()["gold"] == 0  # the gold comes with the place
    r = client.post(_api(cid, "/hideouts"), json={"place_id": places[2]["id"]}, headers=dora)
    assert r.status_code == 201, r.text
    assert r.json()["hideouts"] == [places[2]["id"]] and r.json()["gold"] == START
    ledger = client.get(_api(cid, "/ledger"), headers=dora).json()["items"]
    assert [(e["amount"], e["kind"]) for e in ledger] == [(START, "start")]
    texts = [e["text"] for e in _chronicle(client, cid, players[0]["headers"])]
    assert "dora joins the campaign in round 1 and sets up a hideout at Place 2." in texts
    assert pid in [p["player_id"] for p in client.get(_api(cid, "/players"), headers=gm).json()]
    # One place only: a second claim is refused and changes nothing.
    before = _state(engine, cid)
    r = client.post(_api(cid, "/hideouts"), json={"place_id": places[3]["id"]}, headers=dora)
    assert (r.status_code, error_code(r)) == (409, "hideout_already_chosen")
    r = client.post(_api(cid, "/hideouts"), json={"place_id": places[3]["id"]}, headers=players[0]["headers"])
    assert (r.status_code, error_code(r)) == (409, "hideout_already_chosen")
    assert _state(engine, cid) == before


def test_r12_12_outside_preparation_no_one_joins_and_nothing_changes(client, engine):
    gm, cid, players, places = running_campaign(client, 2, 4, starting_gold=START)
    eve, finn = user(client, "eve"), user(client, "finn")
    assert client.post(_api(cid, "/invitations"), json={"nickname": "finn"}, headers=gm).status_code == 201
    assert client.post(_api(cid, "/invitations/accept"), headers=finn).status_code == 200
    assert client.post(_api(cid, "/invitations"), json={"nickname": "eve"}, headers=gm).status_code == 201
    to_phase(client, gm, cid, "orders")
    before = _state(engine, cid)
    user(client, "gwen")
    for r in (
        client.post(_api(cid, "/invitations"), json={"nickname": "gwen"}, headers=gm),
        client.post(_api(cid, "/invitations/accept"), headers=eve),
        client.post(_api(cid, "/hideouts"), json={"place_id": places[2]["id"]}, headers=finn),
    ):
        assert (r.status_code, error_code(r)) == (409, "late_join_phase"), r.text
    assert _state(engine, cid) == before
    assert client.get(_api(cid, "/ledger"), headers=finn).json()["items"] == []

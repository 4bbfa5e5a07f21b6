"""Gold transfers (SPEC R8.11, R9.5, R11.2) through the API: gold moves from one player to
another in one transaction; only the two of them see it — not another player, not the GM
(who, while transfers are on, is shown no balance at all), not an outsider, not anonymous; every
refusal leaves gold, ledger and transfers as they were."""

from __future__ import annotations

import pytest
from sqlmodel import Session, func, select

from app.campaigns.models import Player
from app.gold.models import LedgerEntry, Transfer
from app.gold.service import balance_matches_ledger
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join, running_trio
from tests.builders.maps import add_place
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase

MARKER = "zq-secret-note-7f3a"  # a unique note: it must show only to the two parties
AMOUNT = 37  # 400 − 37 = 363 and 400 + 37 = 437: numbers that appear nowhere else


def transfers_url(cid: int) -> str:
    return f"/api/v1/campaigns/{cid}/transfers"


def send(client, cid: int, sender: dict, to: int, amount, note: str = ""):
    return client.post(transfers_url(cid), json={"to_player_id": to, "amount": amount, "note": note}, headers=sender["headers"])


def snapshot(engine, cid: int | None = None) -> dict:
    """Everybody's gold, every ledger entry and every transfer: what a refusal must not change."""
    with Session(engine) as s:
        return {
            "gold": dict(s.exec(select(Player.id, Player.gold).order_by(Player.id)).all()),
            "ledger": s.exec(
                select(LedgerEntry.id, LedgerEntry.player_id, LedgerEntry.amount, LedgerEntry.balance_after).order_by(
                    LedgerEntry.id
                )
            ).all(),
            "transfers": s.exec(select(func.count()).select_from(Transfer)).one(),
        }


def ledger_adds_up(engine) -> None:
    """R3.8: every player's gold is the sum of their ledger entries."""
    with Session(engine) as s:
        for pid in s.exec(select(Player.id)).all():
            assert balance_matches_ledger(s, pid), pid


def shown_ledger(client, cid: int, headers: dict, player_id: int | None = None) -> dict:
    r = client.get(
        f"/api/v1/campaigns/{cid}/ledger",
        params={"per_page": 200, **({"player_id": player_id} if player_id else {})},
        headers=headers,
    )
    assert r.status_code == 200, r.text
    return r.json()


def assert_adds_up(ledger: dict) -> None:
    """What a viewer is shown adds up on its own: the balance is the sum of the shown amounts
    and each shown balance is the running sum of the shown entries, oldest first."""
    running = 0
    for item in sorted(ledger["items"], key=lambda e: e["id"]):
        running += item["amount"]
        assert item["balance_after"] == running, (item, running)
    assert ledger["balance"] == running == sum(e["amount"] for e in ledger["items"])
    assert ledger["total"] == len(ledger["items"])


# --- R8.11: gold moves, and only the two parties see it -----------------------------------------


def test_r8_11_r9_5_a_transfer_moves_gold_in_one_transaction(client, engine):
    gm, cid, (anna, borys, cecylia) = running_trio(client)
    r = send(client, cid, anna, borys["player_id"], AMOUNT, f"  {MARKER}  ")
    assert r.status_code == 201, r.text
    out = r.json()
    assert out["from_player_id"] == anna["player_id"] and out["to_player_id"] == borys["player_id"]
    assert out["amount"] == AMOUNT and out["note"] == MARKER and out["round"] == 1
    with Session(engine) as s:
        assert s.get(Player, anna["player_id"]).gold == 400 - AMOUNT
        assert s.get(Player, borys["player_id"]).gold == 400 + AMOUNT
        assert s.get(Player, cecylia["player_id"]).gold == 400
        rows = s.exec(select(Transfer)).all()
        assert [(t.from_player_id, t.to_player_id, t.amount, t.note) for t in rows] == [
            (anna["player_id"], borys["player_id"], AMOUNT, MARKER)
        ]
        entries = s.exec(select(LedgerEntry).where(LedgerEntry.kind == "transfer").order_by(LedgerEntry.id)).all()
        assert [(e.player_id, e.amount, e.balance_after) for e in entries] == [
            (anna["player_id"], -AMOUNT, 400 - AMOUNT),
            (borys["player_id"], AMOUNT, 400 + AMOUNT),
        ]
    ledger_adds_up(engine)
    # Each party sees it in their own ledger, named and with the note, and in their gold.
    mine = shown_ledger(client, cid, anna["headers"])
    assert mine["balance"] == 400 - AMOUNT
    sent = [e for e in mine["items"] if e["kind"] == "transfer"]
    assert [(e["amount"], e["note"]) for e in sent] == [(-AMOUNT, f"To borys: {MARKER}")]
    theirs = shown_ledger(client, cid, borys["headers"])
    assert theirs["balance"] == 400 + AMOUNT
    assert [(e["amount"], e["note"]) for e in theirs["items"] if e["kind"] == "transfer"] == [(AMOUNT, f"From anna: {MARKER}")]
    assert_adds_up(mine)
    assert_adds_up(theirs)
    assert client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()["gold"] == 400 - AMOUNT
    assert client.get(f"/api/v1/campaigns/{cid}/company", headers=borys["headers"]).json()["gold"] == 400 + AMOUNT
    # The note is in the reader's language (R11.3): a Polish reader gets the Polish words.
    polish = client.get(f"/api/v1/campaigns/{cid}/ledger", headers={**borys["headers"], "Accept-Language": "pl"}).json()
    assert [e["note"] for e in polish["items"] if e["kind"] == "transfer"] == [f"Od: anna: {MARKER}"]


def test_r8_11_a_transfer_without_a_note_names_the_other_party(client):
    gm, cid, (anna, borys, _c) = running_trio(client)
    assert send(client, cid, anna, borys["player_id"], 5).status_code == 201
    assert [e["note"] for e in shown_ledger(client, cid, anna["headers"])["items"] if e["kind"] == "transfer"] == ["To borys"]
    assert [e["note"] for e in shown_ledger(client, cid, borys["headers"])["items"] if e["kind"] == "transfer"] == ["From anna"]


def test_r8_11_r11_2_both_parties_list_the_transfer_and_nobody_else_does(client):
    gm, cid, (anna, borys, cecylia) = running_trio(client)
    outsider = user(client, "outsider")
    assert send(client, cid, anna, borys["player_id"], AMOUNT, MARKER).status_code == 201
    assert send(client, cid, cecylia, anna["player_id"], 3).status_code == 201  # cecylia's own, with anna
    for party in (anna, borys):
        page = client.get(transfers_url(cid), headers=party["headers"]).json()
        notes = [t["note"] for t in page["items"]]
        assert MARKER in notes and page["total"] == len(page["items"]) and page["page"] == 1 and page["pages"] == 1
    assert client.get(transfers_url(cid), headers=borys["headers"]).json()["total"] == 1
    assert client.get(transfers_url(cid), headers=anna["headers"]).json()["total"] == 2
    # The other player sees only their own transfer.
    seen = client.get(transfers_url(cid), headers=cecylia["headers"]).json()
    assert [(t["from_player_id"], t["amount"]) for t in seen["items"]] == [(cecylia["player_id"], 3)] and seen["total"] == 1
    assert MARKER not in str(seen)
    # The GM is no party of any transfer: refused (the GM sends and receives none).
    r = client.get(transfers_url(cid), headers=gm)
    assert r.status_code == 403 and error_code(r) == "not_a_player" and MARKER not in r.text
    # An outsider is not told that the campaign exists; anonymous must log in.
    r = client.get(transfers_url(cid), headers=outsider)
    assert r.status_code == 404 and MARKER not in r.text
    r = client.get(transfers_url(cid))
    assert r.status_code == 401 and MARKER not in r.text


def test_r8_11_transfers_list_is_paginated_newest_first(client):
    gm, cid, (anna, borys, _c) = running_trio(client)
    for amount in range(1, 6):
        assert send(client, cid, anna, borys["player_id"], amount).status_code == 201
    first = client.get(transfers_url(cid), params={"per_page": 2}, headers=borys["headers"]).json()
    assert [t["amount"] for t in first["items"]] == [5, 4] and first["pages"] == 3 and first["total"] == 5
    last = client.get(transfers_url(cid), params={"per_page": 2, "page": 3}, headers=borys["headers"]).json()
    assert [t["amount"] for t in last["items"]] == [1]
    for bad in ({"page": 0}, {"per_page": 0}, {"per_page": 201}, {"page": "x"}):
        assert client.get(transfers_url(cid), params=bad, headers=borys["headers"]).status_code == 422


# What the GM is shown of gold while transfers are on (no balance at all): test_gm_gold_R11_2.py.


def test_r8_11_r11_2_other_players_outsiders_and_anonymous_see_nothing_of_it(client):
    gm, cid, (anna, borys, cecylia) = running_trio(client)
    outsider = user(client, "outsider")
    assert send(client, cid, anna, borys["player_id"], AMOUNT, MARKER).status_code == 201
    for pid in (anna["player_id"], borys["player_id"]):
        for url in (f"/api/v1/campaigns/{cid}/ledger", f"/api/v1/campaigns/{cid}/company"):
            r = client.get(url, params={"player_id": pid}, headers=cecylia["headers"])
            assert r.status_code == 404 and MARKER not in r.text and set(r.json()) == {"error"}, url
            assert not any(n in r.json()["error"]["message"] for n in ("437", "363")), url
            r = client.get(url, params={"player_id": pid}, headers=outsider)
            assert r.status_code == 404 and MARKER not in r.text, url
            r = client.get(url, params={"player_id": pid})
            assert r.status_code == 401 and MARKER not in r.text, url
    # The players list gives the other player their own gold only.
    players = {
        p["player_id"]: p["gold"] for p in client.get(f"/api/v1/campaigns/{cid}/players", headers=cecylia["headers"]).json()
    }
    assert players == {anna["player_id"]: None, borys["player_id"]: None, cecylia["player_id"]: 400}
    assert client.get(f"/api/v1/campaigns/{cid}/players", headers=outsider).status_code == 404
    assert client.get(f"/api/v1/campaigns/{cid}/players").status_code == 401
    # Nothing in the chronicle, for anybody — not even the parties (R8.11).
    for who in (anna["headers"], borys["headers"], cecylia["headers"], gm):
        r = client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=who)
        assert r.status_code == 200 and MARKER not in r.text
        texts = [e["text"] for e in r.json()["items"]]
        assert texts and not [t for t in texts if str(AMOUNT) in t or "gold" in t.lower() or "transfer" in t.lower()], texts
    # The campaign itself counts nothing that tells of it.
    for who in (cecylia["headers"], gm):
        assert MARKER not in client.get(f"/api/v1/campaigns/{cid}", headers=who).text


# --- R9.5: refusals change nothing ---------------------------------------------------------------


@pytest.mark.parametrize(
    "amount, status, code",
    [
        (0, 422, None),
        (-5, 422, None),
        (401, 409, "not_enough_gold"),
        (10**12, 422, None),
    ],
)
def test_r8_11_r9_5_refused_amounts_leave_gold_untouched(client, engine, amount, status, code):
    gm, cid, (anna, borys, _c) = running_trio(client)
    before = snapshot(engine)
    r = send(client, cid, anna, borys["player_id"], amount, MARKER)
    assert r.status_code == status, r.text
    if code:
        assert error_code(r) == code
    assert snapshot(engine) == before


def test_r8_11_exactly_the_whole_balance_may_be_sent_and_then_nothing_more(client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client)
    assert send(client, cid, anna, borys["player_id"], 400).status_code == 201
    before = snapshot(engine)
    r = send(client, cid, anna, borys["player_id"], 1)
    assert r.status_code == 409 and error_code(r) == "not_enough_gold"
    assert r.json()["error"]["message"] == "Not enough gold: 1 needed, you have 0."
    assert snapshot(engine) == before
    ledger_adds_up(engine)


def test_r8_11_r9_5_refused_recipients_leave_gold_untouched(client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client)
    # another campaign of the same GM, with its own player
    other_cid = create_campaign(client, gm, name="Elsewhere")["id"]
    stranger = join(client, gm, other_cid, "stranger")
    before = snapshot(engine)
    cases = [
        (anna["player_id"], 422, "transfer_to_self"),
        (stranger["player_id"], 404, "not_found"),  # a player, but of another campaign
        (999_999, 404, "not_found"),  # nobody
    ]
    for to, status, code in cases:
        r = send(client, cid, anna, to, 10, MARKER)
        assert (r.status_code, error_code(r)) == (status, code), (to, r.text)
        assert MARKER not in r.text and "stranger" not in r.text
        assert snapshot(engine) == before, to


def test_r8_11_r9_5_only_a_player_of_the_campaign_sends(client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client)
    outsider = user(client, "outsider")
    before = snapshot(engine)
    r = client.post(transfers_url(cid), json={"to_player_id": borys["player_id"], "amount": 10}, headers=gm)
    assert (r.status_code, error_code(r)) == (403, "not_a_player")
    r = client.post(transfers_url(cid), json={"to_player_id": borys["player_id"], "amount": 10}, headers=outsider)
    assert (r.status_code, error_code(r)) == (404, "not_found")
    r = client.post(transfers_url(cid), json={"to_player_id": borys["player_id"], "amount": 10})
    assert r.status_code == 401
    r = client.post(transfers_url(999_999), json={"to_player_id": borys["player_id"], "amount": 10}, headers=anna["headers"])
    assert (r.status_code, error_code(r)) == (404, "not_found")
    assert snapshot(engine) == before


def test_r9_5_module_off_refuses_sending_and_listing(client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client, modules={"gold_transfers": False})
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["modules"]["gold_transfers"] is False
    before = snapshot(engine)
    r = send(client, cid, anna, borys["player_id"], 10, MARKER)
    assert (r.status_code, error_code(r)) == (409, "module_disabled")
    assert "Gold transfers" in r.json()["error"]["message"]
    r = client.get(transfers_url(cid), headers=anna["headers"])
    assert (r.status_code, error_code(r)) == (409, "module_disabled")
    polish = client.get(transfers_url(cid), headers={**anna["headers"], "Accept-Language": "pl"})
    assert polish.status_code == 409 and "module is off" not in polish.text
    assert snapshot(engine) == before


def test_r9_5_gold_is_sent_only_while_the_campaign_runs(client, engine):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    places = [add_place(client, gm, cid, f"Place {i}") for i in range(3)]
    anna, borys = join(client, gm, cid, "anna"), join(client, gm, cid, "borys")
    before = snapshot(engine)
    r = send(client, cid, anna, borys["player_id"], 10)  # setup: not running yet
    assert (r.status_code, error_code(r)) == (409, "not_running")
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm).status_code == 200
    r = send(client, cid, anna, borys["player_id"], 10)
    assert (r.status_code, error_code(r)) == (409, "not_running")
    assert snapshot(engine) == before
    for p, place in zip((anna, borys), places):
        assert (
            client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": place["id"]}, headers=p["headers"]).status_code
            == 201
        )
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "running"}, headers=gm).status_code == 200
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=gm).status_code == 200
    before = snapshot(engine)
    r = send(client, cid, anna, borys["player_id"], 10)
    assert r.status_code == 409 and error_code(r) in ("campaign_read_only", "not_running")
    assert snapshot(engine) == before
    # A finished campaign still shows each party their own (here: empty) list.
    assert client.get(transfers_url(cid), headers=anna["headers"]).json()["total"] == 0


def test_r9_5_gold_is_sent_in_every_phase_of_a_running_round(client):
    gm, cid, (anna, borys, _c) = running_trio(client)
    for phase in ("preparation", "orders", "battles"):
        if phase != "preparation":
            to_phase(client, gm, cid, phase)
        assert send(client, cid, anna, borys["player_id"], 1).status_code == 201, phase


@pytest.mark.parametrize(
    "body",
    [
        {"to_player_id": 2, "amount": "ten"},
        {"to_player_id": 2, "amount": 1.5},
        {"to_player_id": 2, "amount": True},
        {"to_player_id": 2, "amount": None},
        {"to_player_id": 2, "amount": [10]},
        {"to_player_id": 2, "amount": {"n": 10}},
        {"to_player_id": 2, "amount": 10**30},
        {"to_player_id": 2, "amount": -(10**30)},
        {"to_player_id": "borys", "amount": 10},
        {"to_player_id": None, "amount": 10},
        {"to_player_id": 0, "amount": 10},
        {"to_player_id": -2, "amount": 10},
        {"to_player_id": 10**30, "amount": 10},
        {"to_player_id": True, "amount": 10},
        {"to_player_id": 2, "amount": 10, "note": 5},
        {"to_player_id": 2, "amount": 10, "note": ["x"]},
        {"to_player_id": 2, "amount": 10, "note": "x" * 501},
        {"to_player_id": 2, "amount": 10, "from_player_id": 1},
        {"amount": 10},
        {"to_player_id": 2},
        [],
        "ten gold",
        None,
    ],
)
def test_r9_5_bad_json_is_refused_with_422_never_500(client, engine, body):
    gm, cid, (anna, borys, _c) = running_trio(client)
    if isinstance(body, dict) and body.get("to_player_id") == 2:
        body = {**body, "to_player_id": borys["player_id"]}
    before = snapshot(engine)
    r = client.post(transfers_url(cid), json=body, headers=anna["headers"])
    assert r.status_code == 422, (body, r.status_code, r.text)
    assert snapshot(engine) == before


def test_r9_5_a_body_that_is_not_json_is_refused_with_422(client, engine):
    gm, cid, (anna, borys, _c) = running_trio(client)
    before = snapshot(engine)
    for content, kind in (
        (b"{not json", "application/json"),
        (b"to_player_id=2&amount=10", "application/x-www-form-urlencoded"),
        (b"\xff\xfe", "application/json"),
    ):
        r = client.post(transfers_url(cid), content=content, headers={**anna["headers"], "Content-Type": kind})
        assert r.status_code == 422, (content, r.status_code, r.text)
    assert snapshot(engine) == before

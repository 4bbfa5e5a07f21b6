"""Gold transfers under concurrency (SPEC R8.11, R9.5, R3.8): racing transfers from one
balance never overdraw, the debit and the credit are one transaction, and every player's
gold is the sum of their ledger — on SQLite and PostgreSQL."""

from __future__ import annotations

from sqlmodel import Session, func, select

from app.campaigns.models import Player
from app.gold.models import LedgerEntry, Transfer
from tests.api.test_transfers_api import ledger_adds_up, transfers_url
from tests.builders.campaigns import running_trio
from tests.builders.responses import error_code
from tests.load.test_concurrency import race


def _send(cid: int, sender: dict, to: int, amount: int):
    return lambda c: c.post(
        transfers_url(cid), json={"to_player_id": to, "amount": amount, "note": "race"}, headers=sender["headers"]
    )


def _gold(engine) -> dict[int, int]:
    with Session(engine) as s:
        return dict(s.exec(select(Player.id, Player.gold)).all())


def test_r8_11_r9_5_twenty_racing_transfers_from_one_balance_never_overdraw(client, make_client, engine):
    gm, cid, (anna, borys, cecylia) = running_trio(client)  # 400 gold each
    calls = [_send(cid, anna, (borys, cecylia)[i % 2]["player_id"], 30) for i in range(20)]
    results = race(make_client, calls)
    statuses = sorted(r.status_code for r in results)
    assert statuses.count(201) == 13 and statuses.count(409) == 7, statuses  # 13 × 30 = 390 ≤ 400 < 14 × 30
    assert {error_code(r) for r in results if r.status_code == 409} == {"not_enough_gold"}
    gold = _gold(engine)
    assert gold[anna["player_id"]] == 10
    assert gold[borys["player_id"]] + gold[cecylia["player_id"]] == 800 + 390
    assert sum(gold.values()) == 1200  # no gold made or lost
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Transfer)).one() == 13
        assert s.exec(select(func.count()).select_from(LedgerEntry).where(LedgerEntry.kind == "transfer")).one() == 26
        # Each of the sender's balances is one step of 30 below the one before: none was skipped.
        after = s.exec(
            select(LedgerEntry.balance_after)
            .where(LedgerEntry.player_id == anna["player_id"], LedgerEntry.kind == "transfer")
            .order_by(LedgerEntry.id)
        ).all()
        assert after == [400 - 30 * k for k in range(1, 14)]
    ledger_adds_up(engine)
    assert client.get(transfers_url(cid), headers=anna["headers"]).json()["total"] == 13
    assert client.get(f"/api/v1/campaigns/{cid}/ledger", headers=anna["headers"]).json()["balance"] == 10
    # The GM still sees no transfer, and with transfers on no balance at all (R11.2): a figure
    # that left transfers out could go negative and so tell of one.
    for p in (anna, borys, cecylia):
        shown = client.get(f"/api/v1/campaigns/{cid}/ledger", params={"player_id": p["player_id"]}, headers=gm).json()
        assert shown["balance"] is None and {e["balance_after"] for e in shown["items"]} == {None}
        assert sum(e["amount"] for e in shown["items"]) == 400 and all(e["kind"] != "transfer" for e in shown["items"])


def test_r8_11_crossing_transfers_all_land_and_the_ledgers_agree(client, make_client, engine):
    """Players sending to each other at once: every transfer lands (nobody runs short), no
    deadlock, no lost update."""
    gm, cid, (anna, borys, cecylia) = running_trio(client)
    trio = (anna, borys, cecylia)
    calls = [_send(cid, trio[i % 3], trio[(i + 1) % 3]["player_id"], 10 + i) for i in range(18)]
    statuses = [r.status_code for r in race(make_client, calls)]
    assert statuses == [201] * 18, statuses
    gold = _gold(engine)
    expected = {p["player_id"]: 400 for p in trio}
    for i in range(18):
        expected[trio[i % 3]["player_id"]] -= 10 + i
        expected[trio[(i + 1) % 3]["player_id"]] += 10 + i
    assert gold == expected
    ledger_adds_up(engine)


def test_r8_11_racing_transfers_and_purchases_share_one_balance(client, make_client, engine):
    """Transfers and shop purchases draw on the same gold: together they never overdraw."""
    gm, cid, (anna, borys, _c) = running_trio(client)
    assert (
        client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=anna["headers"]).status_code
        == 200
    )
    price = next(p["points"] for p in client.get("/api/v1/catalog/factions/orcs").json()["profiles"] if p["key"] == "orcs.ax")
    buy = lambda c: c.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": "orcs.ax"}, headers=anna["headers"])  # noqa: E731
    calls = [_send(cid, anna, borys["player_id"], 40), buy] * 10
    results = race(make_client, calls)
    assert all(r.status_code in (201, 409) for r in results), [r.status_code for r in results]
    sent = sum(1 for r in results[0::2] if r.status_code == 201)
    bought = sum(1 for r in results[1::2] if r.status_code == 201)
    gold = _gold(engine)
    assert gold[anna["player_id"]] == 400 - 40 * sent - price * bought >= 0
    # A refusal came only from a balance too small for it, and the balance only went down.
    if sent < 10:
        assert gold[anna["player_id"]] < 40
        assert {error_code(r) for r in results[0::2] if r.status_code == 409} == {"not_enough_gold"}
    if bought < 10:
        assert gold[anna["player_id"]] < price
        assert {error_code(r) for r in results[1::2] if r.status_code == 409} == {"not_enough_gold"}
    assert gold[borys["player_id"]] == 400 + 40 * sent
    ledger_adds_up(engine)

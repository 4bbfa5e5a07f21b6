"""SPEC R11.2, row "company, gold balance, ledger": with the gold transfers module on, the GM
sees a player's ledger without its transfers and without any balance — no figure the GM is
shown is worked out from a transfer (players list, company, ledger: `gold`, `balance` and
`balance_after` are null; the pages say the balance is private). The GM's adjustments still
work; a deduction the player cannot cover is refused without saying the balance or the
shortfall, and changes nothing. Without the module, the GM's view is as it was."""

from __future__ import annotations

import re

from sqlmodel import Session, select

from app.campaigns.models import Player
from app.gold.models import LedgerEntry
from tests.api.test_transfers_api import AMOUNT, MARKER, assert_adds_up, ledger_adds_up, send, shown_ledger, snapshot
from tests.builders.campaigns import running_trio
from tests.builders.companies import buy
from tests.builders.pages import login, post
from tests.builders.responses import error_code

PRIVATE_EN = "The balance is private while gold transfers are on"
PRIVATE_PL = "Saldo jest prywatne, póki przekazy złota są włączone"


def adjust(client, cid: int, gm: dict, player_id: int, amount: int, reason: str = "fine", **headers):
    return client.post(
        f"/api/v1/campaigns/{cid}/ledger/adjustments",
        json={"player_id": player_id, "amount": amount, "reason": reason},
        headers={**gm, **headers},
    )


def real_gold(engine, *player_ids: int) -> dict[int, int]:
    with Session(engine) as s:
        return {pid: s.get(Player, pid).gold for pid in player_ids}


def without_tokens(html: str) -> str:
    """A page without its hex tokens (CSRF, static file versions), where any digits may occur."""
    return re.sub(r"[0-9a-f]{8,}", "", html)


def gm_figures(client, cid: int, gm: dict, player_id: int) -> tuple:
    ledger = shown_ledger(client, cid, gm, player_id)
    company = client.get(f"/api/v1/campaigns/{cid}/company", params={"player_id": player_id}, headers=gm).json()
    players = {p["player_id"]: p["gold"] for p in client.get(f"/api/v1/campaigns/{cid}/players", headers=gm).json()}
    return ledger, company["gold"], players[player_id]


def test_R11_2_with_transfers_on_the_gm_sees_no_balance_and_no_transfer(client, engine):
    """Real balance 2, which the GM's old figures showed as -18: now the GM sees no figure at
    all, in the API (ledger, company, players list) — only the entries that are not transfers."""
    gm, cid, (anna, borys, cecylia) = running_trio(client)
    assert adjust(client, cid, gm, anna["player_id"], -380).status_code == 201  # anna: 20
    assert send(client, cid, anna, borys["player_id"], 18, MARKER).status_code == 201  # anna: 2, borys: 418
    buy(client, cid, borys, "orcs.ax", faction="orcs")  # an entry written after the transfer
    assert real_gold(engine, anna["player_id"])[anna["player_id"]] == 2
    for party in (anna, borys, cecylia):
        ledger, company_gold, players_gold = gm_figures(client, cid, gm, party["player_id"])
        assert ledger["balance"] is None and company_gold is None and players_gold is None, party["nickname"]
        assert ledger["items"] and all(e["balance_after"] is None for e in ledger["items"])
        assert all(e["kind"] != "transfer" for e in ledger["items"])
        assert MARKER not in str(ledger) and "-18" not in str(ledger)
        assert ledger["total"] == len(ledger["items"])
    kinds = [e["kind"] for e in shown_ledger(client, cid, gm, anna["player_id"])["items"]]
    assert kinds == ["gm_adjustment", "start"]  # newest first; the transfer is not there
    # The parties still see everything, with their balances, and it adds up.
    for party in (anna, borys):
        own = shown_ledger(client, cid, party["headers"])
        assert own["balance"] == real_gold(engine, party["player_id"])[party["player_id"]]
        assert any(e["kind"] == "transfer" for e in own["items"])
        assert_adds_up(own)
        assert client.get(f"/api/v1/campaigns/{cid}/company", headers=party["headers"]).json()["gold"] == own["balance"]
    mine = {p["player_id"]: p["gold"] for p in client.get(f"/api/v1/campaigns/{cid}/players", headers=anna["headers"]).json()}
    assert mine == {anna["player_id"]: 2, borys["player_id"]: None, cecylia["player_id"]: None}


def test_R11_2_the_gms_adjustments_work_blind_and_a_refusal_says_no_figure(client, engine):
    """A credit and a covered deduction go through (answered without a balance after); a
    deduction the player cannot cover is refused in English and Polish without the balance or
    the shortfall, and changes nothing."""
    gm, cid, (anna, borys, _c) = running_trio(client)
    assert send(client, cid, anna, borys["player_id"], AMOUNT, MARKER).status_code == 201  # borys: 437
    r = adjust(client, cid, gm, borys["player_id"], 10, "prize")
    assert r.status_code == 201 and r.json()["balance_after"] is None and r.json()["amount"] == 10  # borys: 447
    before = snapshot(engine)
    for amount in (-448, -10_000):
        for language, words in (("en", "not have enough gold"), ("pl", "nie ma dość złota")):
            r = adjust(client, cid, gm, borys["player_id"], amount, **{"Accept-Language": language})
            assert (r.status_code, error_code(r)) == (409, "gm_deduction_uncovered"), r.text
            message = r.json()["error"]["message"]
            assert words in message and not re.search(r"\d", message), message  # no balance, no shortfall
            assert set(r.json()) == {"error"}
    assert snapshot(engine) == before
    # The whole real balance may be taken — more than the 410 the GM's old figures allowed.
    r = adjust(client, cid, gm, borys["player_id"], -447)
    assert r.status_code == 201 and r.json()["balance_after"] is None
    assert real_gold(engine, borys["player_id"]) == {borys["player_id"]: 0}
    with Session(engine) as s:  # the stored figures are the real ones, not what the GM was shown
        stored = s.exec(
            select(LedgerEntry.balance_after).where(LedgerEntry.kind == "gm_adjustment").order_by(LedgerEntry.id)
        ).all()
    assert stored == [447, 0]
    assert shown_ledger(client, cid, borys["headers"])["balance"] == 0
    assert_adds_up(shown_ledger(client, cid, borys["headers"]))
    ledger_adds_up(engine)


def test_R11_2_without_the_transfers_module_the_gm_sees_balances_as_before(client, engine):
    gm, cid, (anna, _b, _c) = running_trio(client, modules={"gold_transfers": False})
    assert adjust(client, cid, gm, anna["player_id"], -380).status_code == 201
    ledger, company_gold, players_gold = gm_figures(client, cid, gm, anna["player_id"])
    assert ledger["balance"] == company_gold == players_gold == 20
    assert [e["balance_after"] for e in ledger["items"]] == [20, 400]
    before = snapshot(engine)
    r = adjust(client, cid, gm, anna["player_id"], -21)
    assert (r.status_code, error_code(r)) == (409, "not_enough_gold")
    assert r.json()["error"]["message"] == "Not enough gold: 21 needed, you have 20."
    assert snapshot(engine) == before
    assert adjust(client, cid, gm, anna["player_id"], -20).json()["balance_after"] == 0


def test_R11_2_the_gms_pages_show_no_balance_and_say_why_in_polish(client, engine):
    """The companies list, a company and a ledger, as the GM's pages: no figure of the
    player's gold, and the reason, translated."""
    gm, cid, (anna, borys, _c) = running_trio(client)
    assert adjust(client, cid, gm, anna["player_id"], -13).status_code == 201  # anna: 387
    assert send(client, cid, anna, borys["player_id"], 6, MARKER).status_code == 201  # anna: 381, borys: 406
    login(client, "gamemaster")
    pages = (
        f"/campaigns/{cid}/companies",
        f"/campaigns/{cid}/company?player_id={anna['player_id']}",
        f"/campaigns/{cid}/ledger?player_id={anna['player_id']}",
        f"/campaigns/{cid}/ledger?player_id={borys['player_id']}",
    )
    for language, private in (("en", PRIVATE_EN), ("pl", PRIVATE_PL)):
        for page in pages:
            r = client.get(page, headers={"Accept-Language": language})
            assert r.status_code == 200, (page, r.text)
            assert private in r.text, (language, page)
            assert MARKER not in r.text
            # Neither a real balance (381, 406) nor the GM's old figure for anna (387).
            assert not re.findall(r"\b(381|406|387)\b", without_tokens(r.text)), (language, page)
    # A refused deduction on the ledger page says no figure either.
    before = snapshot(engine)
    r = post(
        client,
        f"/campaigns/{cid}/ledger/adjustments",
        {"player_id": anna["player_id"], "amount": "-500", "reason": "fine"},
        token_from=f"/campaigns/{cid}/ledger?player_id={anna['player_id']}",
    )
    assert r.status_code == 409 and "does not have enough gold" in r.text
    assert not re.findall(r"\b(381|387|119|113)\b", without_tokens(r.text)) and "needed" not in r.text
    assert snapshot(engine) == before

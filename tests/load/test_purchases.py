"""Gold under concurrency (R3.8): 20 simultaneous purchases by a player who can afford 7
buy exactly 7, and the ledger agrees — on SQLite and PostgreSQL."""

from sqlmodel import Session, func, select

from app.companies.models import CompanyModel
from app.gold.models import LedgerEntry
from app.gold.service import balance_matches_ledger
from tests.builders.accounts import user
from tests.builders.campaigns import join
from tests.load.test_concurrency import race


def test_r3_8_twenty_simultaneous_purchases_buy_exactly_what_gold_allows(client, make_client, engine):
    grunt = min(
        (p for p in client.get("/api/v1/catalog/factions/basileans").json()["profiles"] if "Grunt" in p["types"]),
        key=lambda p: p["points"],
    )
    gm = user(client, "gamemaster")
    cid = client.post(
        "/api/v1/campaigns", json={"name": "Rush", "starting_gold": grunt["points"] * 7 + grunt["points"] - 1}, headers=gm
    ).json()["id"]
    anna = join(client, gm, cid, "anna")
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "basileans"}, headers=anna["headers"])
    calls = [
        lambda c: c.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": grunt["key"]}, headers=anna["headers"])
    ] * 20
    statuses = sorted(r.status_code for r in race(make_client, calls))
    assert statuses.count(201) == 7 and statuses.count(409) == 13, statuses
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(CompanyModel)).one() == 7
        purchases = s.exec(select(func.count()).select_from(LedgerEntry).where(LedgerEntry.kind == "purchase")).one()
        assert purchases == 7
        assert balance_matches_ledger(s, anna["player_id"])
    assert client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()["gold"] == grunt["points"] - 1


def test_r3_8_concurrent_sales_of_one_model_refund_once(client, make_client, engine):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Sell"}, headers=gm).json()["id"]
    anna = join(client, gm, cid, "anna")
    h = anna["headers"]
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=h)
    key = client.get("/api/v1/catalog/factions/orcs").json()["profiles"][0]["key"]
    model = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": key}, headers=h).json()
    calls = [lambda c: c.delete(f"/api/v1/campaigns/{cid}/company/models/{model['id']}", headers=h)] * 6
    statuses = sorted(r.status_code for r in race(make_client, calls))
    assert statuses == [200, 404, 404, 404, 404, 404]
    assert client.get(f"/api/v1/campaigns/{cid}/company", headers=h).json()["gold"] == 400
    with Session(engine) as s:
        assert balance_matches_ledger(s, anna["player_id"])

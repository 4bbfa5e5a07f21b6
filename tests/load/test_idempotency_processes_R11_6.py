"""R11.6 across processes: one Idempotency-Key sent to two `hideout serve` processes on one
database at the same moment acts once, and both answer the first answer.

The claim is a committed `idempotency_key` row made before the request acts
(app/idempotency/service.py), so the process that loses the race for the row waits for the
winner's kept answer instead of acting. Threads in one process (tests/api) share nothing a
second process would not; these are two real servers. SQLite (one file, two processes) or the
PostgreSQL of TEST_DATABASE_URL (a database of the test's own)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from app.companies.models import CompanyModel
from app.core.db import make_engine
from app.gold.models import LedgerEntry, Transfer
from app.idempotency.models import IdempotencyKey
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join, running_campaign
from tests.load.fault_helpers import ON_POSTGRESQL, own_postgres_database
from tests.load.servers import REPO, HideoutProcess, start_servers

# Several rounds, each with a fresh key: every one must act exactly once.
ROUNDS = 6


@pytest.fixture
def database(tmp_path) -> Iterator[str]:
    """A fresh database migrated once by `hideout migrate`, so that the two servers starting
    together do not race each other's migrations."""

    def migrated(url: str) -> str:
        env = {**os.environ, "HIDEOUT_DATABASE_URL": url, "HIDEOUT_VAR_DIR": str(tmp_path / "var")}
        env.pop("TEST_DATABASE_URL", None)
        subprocess.run(
            [sys.executable, "-m", "app.cli", "migrate"], cwd=REPO, env=env, check=True, timeout=120, capture_output=True
        )
        return url

    if ON_POSTGRESQL:
        with own_postgres_database("idem") as url:
            yield migrated(url)
    else:
        yield migrated(f"sqlite:///{tmp_path / 'hideout.sqlite3'}")


@pytest.fixture
def servers(tmp_path, database) -> Iterator[list[HideoutProcess]]:
    started = start_servers(tmp_path, database, count=2)
    try:
        yield started
    finally:
        for server in started:
            server.stop()
    for server in started:
        assert "Traceback" not in server.log(), server.log()[-3000:]


@pytest.fixture
def engine(database) -> Iterator[Engine]:
    """The test's own view of the servers' database (the suite's `engine` is another one)."""
    made = make_engine(database)
    yield made
    made.dispose()


def at_once(servers: list[HideoutProcess], method: str, path: str, **kwargs) -> list[httpx.Response]:
    """The same request to each server, released together; the answers in server order."""
    clients = [httpx.Client(base_url=s.url, timeout=60, transport=httpx.HTTPTransport(retries=0)) for s in servers]
    for c in clients:  # connected beforehand, so that the requests leave as close together as can be
        assert c.get("/").status_code < 500
    answers: list[httpx.Response | None] = [None] * len(clients)
    start = threading.Barrier(len(clients))

    def tap(i: int) -> None:
        start.wait()
        answers[i] = clients[i].request(method, path, **kwargs)

    threads = [threading.Thread(target=tap, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    for c in clients:
        c.close()
    assert all(a is not None for a in answers), "a server never answered"
    return answers  # type: ignore[return-value]


def count(engine: Engine, table, *where) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one()


def one_acted(answers: list[httpx.Response], status: int) -> None:
    """Both answers are the first answer: the same status and body; the one that acted says
    nothing more, the other was answered from the kept answer."""
    assert [a.status_code for a in answers] == [status, status], [a.text for a in answers]
    assert answers[0].json() == answers[1].json()
    assert sorted(a.headers.get("idempotent-replayed", "") for a in answers) == ["", "true"]


def test_r11_6_one_key_sent_to_two_server_processes_at_once_buys_once(servers, engine):
    with httpx.Client(base_url=servers[0].url, timeout=30) as api:
        gm = user(api, "gamemaster")
        cid = create_campaign(api, gm, name="Two doors")["id"]
        anna = join(api, gm, cid, "anna")
        assert (
            api.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=anna["headers"]).status_code
            == 200
        )
        gold = api.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()["gold"]
    url = f"/api/v1/campaigns/{cid}/company/models"
    for n in range(1, ROUNDS + 1):
        headers = {**anna["headers"], "Idempotency-Key": f"double-tap-{n}"}
        answers = at_once(servers, "POST", url, json={"profile": "orcs.krusher"}, headers=headers)
        one_acted(answers, 201)
        # Exactly one model and one purchase in the ledger for each key.
        assert count(engine, CompanyModel) == n
        assert count(engine, LedgerEntry, LedgerEntry.campaign_id == cid, LedgerEntry.kind == "purchase") == n
        assert count(engine, IdempotencyKey, IdempotencyKey.key == f"api:double-tap-{n}") == 1
    with httpx.Client(base_url=servers[1].url, timeout=30) as api:
        company = api.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()
    assert len(company["models"]) == ROUNDS and company["gold"] == gold - 34 * ROUNDS


def test_r11_6_one_key_sent_to_two_server_processes_at_once_transfers_gold_once(servers, engine):
    with httpx.Client(base_url=servers[0].url, timeout=30) as api:
        gm, cid, (anna, borys), _ = running_campaign(api, 2, names=("anna", "borys"))
        before = [api.get(f"/api/v1/campaigns/{cid}/ledger", headers=p["headers"]).json()["balance"] for p in (anna, borys)]
    url = f"/api/v1/campaigns/{cid}/transfers"
    body = {"to_player_id": borys["player_id"], "amount": 10, "note": "for the ale"}
    for n in range(1, ROUNDS + 1):
        headers = {**anna["headers"], "Idempotency-Key": f"gift-{n}"}
        one_acted(at_once(servers, "POST", url, json=body, headers=headers), 201)
        assert count(engine, Transfer) == n
        # One debit and one credit a key.
        assert count(engine, LedgerEntry, LedgerEntry.campaign_id == cid, LedgerEntry.kind == "transfer") == 2 * n
    with httpx.Client(base_url=servers[1].url, timeout=30) as api:
        after = [api.get(f"/api/v1/campaigns/{cid}/ledger", headers=p["headers"]).json()["balance"] for p in (anna, borys)]
    assert after == [before[0] - 10 * ROUNDS, before[1] + 10 * ROUNDS]

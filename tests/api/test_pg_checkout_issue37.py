"""Issue 37 with issue 20's promise kept: a pooled PostgreSQL connection is checked at checkout
without a round trip (app/core/pg_alive.py), and one the server ended while it rested in the
pool is given up for a new one, so the next request does not fail. PostgreSQL only
(TEST_DATABASE_URL); the SQLite run has no pool of server connections to check."""

import time

import pytest
from sqlalchemy import text

from app.core.db import make_engine
from app.core.pg_alive import readable
from bench import pg_checkout
from tests.load.fault_helpers import ON_POSTGRESQL, TEST_DB, admin_connect

pytestmark = pytest.mark.skipif(not ON_POSTGRESQL, reason="needs a PostgreSQL server (TEST_DATABASE_URL)")


def _backend(engine, marker: str) -> int:
    with engine.connect() as conn:
        return conn.execute(text(f"SELECT pg_backend_pid() /* {marker} */")).scalar_one()


def _last_query(pid: int) -> str:
    with admin_connect() as admin:
        return admin.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()[0]


def test_issue37_a_checkout_sends_nothing_to_the_server():
    engine = make_engine(TEST_DB)
    try:
        pid = _backend(engine, "first")
        resting = _last_query(pid)  # the pool's reset on return, after our statement
        assert resting.upper() in ("ROLLBACK", "COMMIT") or "first" in resting
        with engine.connect() as conn:  # the same pooled connection, checked out again
            assert conn.connection.dbapi_connection.info.backend_pid == pid
            # A ping (`SELECT 1`) would have been the backend's last query by now.
            assert _last_query(pid) == resting
    finally:
        engine.dispose()


def test_issue37_issue20_a_connection_ended_while_resting_is_given_up_not_failed():
    engine = make_engine(TEST_DB)
    try:
        pid = _backend(engine, "before")
        with engine.connect() as conn:
            fd = conn.connection.dbapi_connection.pgconn.socket
        with admin_connect() as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()[0]
        deadline = time.monotonic() + 5
        while not readable(fd) and time.monotonic() < deadline:
            time.sleep(0.01)
        # The next unit of work gets a new connection and its statement runs.
        assert _backend(engine, "after") != pid
    finally:
        engine.dispose()


def test_issue37_bench_pg_checkout_measures_both_engines(monkeypatch, capsys):
    """bench/pg_checkout.py runs here in a quick form, so that it cannot rot (its figures mean
    nothing in the suite)."""
    monkeypatch.setattr(pg_checkout, "ROUNDS", 2)
    monkeypatch.setattr(pg_checkout, "UNITS", 3)
    pg_checkout.main(["--url", TEST_DB])
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3 and printed[1].startswith("checkout looks at the socket") and printed[2].startswith("pool_pre_ping")
    assert all(float(line.split()[-1]) > 0 for line in printed[1:])

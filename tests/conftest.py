"""Shared fixtures: a real database built by the Alembic migrations, the real app over
httpx, each test isolated by emptying every table afterwards."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re

os.environ.setdefault("HIDEOUT_FAST_HASHING", "1")

import pytest
from sqlalchemy import event, text

from app.core import templating
from app.core.db import make_engine
from app.core.migrate import upgrade
from app.core.settings import Settings
from app.main import create_app
from app.maps.view import Drawings
from app.versions import remembered
from app.wiring import wire
from tests import builders
from tests.builders import memo
from tests.one_hop_client import OneHopClient as TestClient
from tests.statements import StatementCounter

wire()  # the same composition as the server and every CLI command (app/wiring.py)

TEST_DB = os.environ.get("TEST_DATABASE_URL", "")
MARKUP_ON_SQLITE = pytest.mark.skip(
    reason="markup: a page's markup is the same on either database (the SQLite run checks it; "
    "this run's secrecy walks draw every page on PostgreSQL)"
)


# The slowest of the `load` tests, slowest first (measured with --durations): started first among
# them, they do not leave one worker finishing a long test alone at the end of the run.
SLOWEST_FIRST = (
    "tests/load/test_kill9.py",
    "tests/load/test_club_night.py",
    "tests/secrecy/test_matrix.py",
    "tests/load/test_keep_alive.py",
    "tests/load/test_graceful_shutdown.py",
    "tests/secrecy/test_differential.py",
    "tests/load/test_idempotency_processes_R11_6.py",
    "tests/load/test_backup_restore.py",
    "tests/security/test_mail_and_webhooks.py",
    "tests/security/test_files.py",
    "tests/load/test_live_workers.py",
    "tests/load/test_database_outage.py",
    "tests/load/test_deploy_doc.py",
)


_RANK = {path: rank for rank, path in enumerate(SLOWEST_FIRST)}


def _run_order(item) -> tuple[int, int]:
    if not item.get_closest_marker("load"):
        return (0, 0)
    return (1, _RANK.get(item.nodeid.split("::", 1)[0], len(SLOWEST_FIRST)))


@pytest.hookimpl(trylast=True)  # after tests/load/conftest.py has marked its tests `load`
def pytest_collection_modifyitems(items) -> None:
    """Issue 31: one session a database, the fast tests first and the `load` ones after them
    (a session's start, its imports and its database, costs each worker seconds). The sort is
    stable, so each group keeps the order the files have. And the PostgreSQL run spent a tenth
    of its time checking markup again (the Nu checker, descriptions, form keys, a campaign's
    words), which no database changes."""
    items.sort(key=_run_order)
    if not TEST_DB.startswith("postgresql"):
        return
    for item in items:
        if item.get_closest_marker("markup"):
            item.add_marker(MARKUP_ON_SQLITE)


def _reset_postgres(url: str) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
        # The suite needs no commit to survive a crash of the server: waiting for each commit's
        # WAL flush was most of its time. (Durability itself is tested by tests/load on
        # databases of their own, with the server's defaults.)
        conn.execute(text(f'ALTER DATABASE "{engine.url.database}" SET synchronous_commit = off'))
    engine.dispose()


def _worker_database(url: str, worker: str) -> str:
    """With pytest-xdist, each worker gets a database of its own on the same server."""
    from sqlalchemy.engine import make_url

    base = make_url(url)
    name = f"{base.database}_{worker}"
    engine = make_engine(url).execution_options(isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        if conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first() is None:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def database_url(tmp_path_factory) -> str:
    if TEST_DB.startswith("postgresql"):
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        url = _worker_database(TEST_DB, worker) if worker else TEST_DB
        _reset_postgres(url)
        upgrade(url)
        return url
    path = tmp_path_factory.mktemp("db") / "test.sqlite3"
    url = f"sqlite:///{path}"
    upgrade(url)
    return url


@pytest.fixture(scope="session")
def settings(database_url, tmp_path_factory) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key="test-secret-key-that-is-long-enough",
        var_dir=tmp_path_factory.mktemp("var"),
        fast_hashing=True,
        background_jobs=False,  # a test runs the scheduler and the sender itself, with its own clock
        sqlite_synchronous="NORMAL",  # no power cut in the suite; tests/load starts servers with FULL
        revalidation_check=True,  # every page drawn twice under one viewer's key must be the same
    )


@pytest.fixture(scope="session")
def app(settings):
    return create_app(settings)


@pytest.fixture(scope="session")
def engine(app):
    return app.state.engine


@pytest.fixture(autouse=True)
def _isolate(request):
    engine = request.getfixturevalue("engine") if "app" in request.fixturenames else None
    if engine is not None:
        memo.begin_test(engine)
        # A remembered world is the same campaign, down to its creation time, as the one an
        # earlier test drew: each test starts with no map drawn, as a campaign built anew had.
        request.getfixturevalue("app").state.map_drawings = Drawings()
        # Its change counters too are as an earlier test left them: no page is known unchanged.
        request.getfixturevalue("app").state.revalidations.forget()
        remembered.memory.forget()
        remembered.memory.check = True  # an app made with a server's settings turned it off
    yield
    if engine is None:
        return
    memo.end_test()
    memo.empty_database(engine)


@pytest.fixture
def client(app):
    with TestClient(app, base_url="http://testserver") as c:
        yield c


@pytest.fixture
def make_client(app):
    """Several independent browsers/integrators in one test."""
    clients = []

    def factory(address: str | None = None):
        """`address`: the client's IP, for tests of what is counted per address."""
        c = TestClient(app, base_url="http://testserver", **({"client": (address, 40000)} if address else {}))
        c._memo_address = address
        c.__enter__()
        clients.append(c)
        return c

    yield factory
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def drawn(monkeypatch) -> list[str]:
    """The names of the templates drawn while the test runs (a page drawn, or answered without)."""
    names: list[str] = []
    real = templating.env.get_template

    def counted(name, *args, **kwargs):
        names.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(templating.env, "get_template", counted)
    return names


@pytest.fixture
def count_statements(engine):
    """`with count_statements() as c: ...; c.count` counts SQL statements run."""
    return lambda: StatementCounter(engine)


def _builder_modules():
    return [
        importlib.import_module(f"tests.builders.{m.name}") for m in pkgutil.iter_modules(builders.__path__) if m.name != "memo"
    ]


memo.remember_builders(*_builder_modules())

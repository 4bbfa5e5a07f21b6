"""Issue 28, item 10 (R28.10): the SQLite database, `hideout backup` copies and `hideout
export` files are created readable by their owner only (0600) and `var/` 0700, whatever the
umask — under the usual 022 they came out 0644, readable by every user of the host — and a
database made so before is made private when the server or a command starts."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text
from structlog.testing import capture_logs

from app.core import db as db_module
from app.core.db import make_engine
from app.core.security import SESSION_COOKIE
from app.core.settings import PACKAGE, Settings
from app.main import create_app
from tests.load.fault_helpers import sqlite_run_only

ROOT = Path(__file__).resolve().parents[2]  # the checkout


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def hideout(tmp_path, *args):
    """The `hideout` command as a shell with the common umask runs it, on a database in var/."""
    env = {"PATH": "/usr/bin:/bin", "HIDEOUT_VAR_DIR": str(tmp_path / "var"), "HIDEOUT_FAST_HASHING": "1"}
    r = subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        umask=0o022,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return r


@pytest.mark.load
@sqlite_run_only  # the commands' files are SQLite's and var/'s
def test_R28_10_the_database_backups_and_exports_are_the_owners_alone_even_written_over_readable_files(tmp_path):
    hideout(tmp_path, "demo")
    var = tmp_path / "var"
    assert mode(var) == 0o700
    assert mode(var / "hideout.sqlite3") == 0o600
    hideout(tmp_path, "backup", str(tmp_path / "backups" / "copy.sqlite3"))
    assert mode(tmp_path / "backups") == 0o700 and mode(tmp_path / "backups" / "copy.sqlite3") == 0o600
    with sqlite3.connect(tmp_path / "backups" / "copy.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM campaign").fetchone() == (1,)
    hideout(tmp_path, "export", "1", str(tmp_path / "campaign.json"))
    assert mode(tmp_path / "campaign.json") == 0o600 and b'"campaign"' in (tmp_path / "campaign.json").read_bytes()

    # Files that were there before, readable by everyone, are made private when written over.
    for name in ("over.sqlite3", "over.json"):
        (tmp_path / name).write_bytes(b"")
        os.chmod(tmp_path / name, 0o644)
    hideout(tmp_path, "backup", str(tmp_path / "over.sqlite3"))
    hideout(tmp_path, "export", "1", str(tmp_path / "over.json"))
    assert mode(tmp_path / "over.sqlite3") == 0o600 and mode(tmp_path / "over.json") == 0o600


def test_R28_10_a_new_sqlite_database_and_its_wal_files_are_0600(tmp_path):
    old = os.umask(0o022)
    try:
        engine = make_engine(f"sqlite:///{tmp_path / 'new' / 'db.sqlite3'}")
        with engine.begin() as conn:  # WAL mode: the -wal and -shm files exist while it is open
            conn.execute(text("CREATE TABLE t (x INTEGER)"))
            conn.execute(text("INSERT INTO t VALUES (1)"))
            made = [p for p in (tmp_path / "new").iterdir()]
            assert {p.name for p in made} >= {"db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm"}
            assert all(mode(p) == 0o600 for p in made), {p.name: oct(mode(p)) for p in made}
        engine.dispose()
        assert mode(tmp_path / "new") == 0o700
    finally:
        os.umask(old)


def _old_database(tmp_path, file_mode: int) -> Path:
    """A database made before issue 28, with a -wal and -shm left by its last process."""
    path = tmp_path / "db.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x INTEGER)")
    for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm"):
        (tmp_path / name).touch()
        os.chmod(tmp_path / name, file_mode)
    return path


@pytest.mark.parametrize("file_mode", [0o644, 0o640, 0o666])
def test_R28_10_an_existing_readable_database_is_made_private_at_start_and_said_once(tmp_path, file_mode):
    path = _old_database(tmp_path, file_mode)
    with capture_logs() as logs:
        make_engine(f"sqlite:///{path}").dispose()
        make_engine(f"sqlite:///{path}").dispose()  # a second start: nothing left to change, nothing said
    files = [path, tmp_path / "db.sqlite3-wal", tmp_path / "db.sqlite3-shm"]
    assert {p.name: mode(p) for p in files} == {p.name: 0o600 for p in files}
    said = [e for e in logs if e["event"].startswith("sqlite_")]
    assert [e["event"] for e in said] == ["sqlite_files_made_private"]
    assert said[0]["changed"] == {str(p): f"{oct(file_mode)} -> 0o600" for p in files}


def test_R28_10_the_server_makes_a_0644_database_private_when_it_starts(tmp_path):
    var = tmp_path / "var"
    var.mkdir(mode=0o700)
    path = _old_database(var, 0o644)
    app = create_app(Settings(var_dir=var, database_url=f"sqlite:///{path}", secret_key="test-secret-key-that-is-long-enough"))
    try:
        assert mode(path) == 0o600 and mode(var / "db.sqlite3-wal") == 0o600
    finally:
        app.state.engine.dispose()


@pytest.mark.parametrize("file_mode", [0o600, 0o400])
def test_R28_10_a_database_already_private_is_left_as_it_is(tmp_path, file_mode):
    path = tmp_path / "db.sqlite3"
    sqlite3.connect(path).close()
    os.chmod(path, file_mode)
    with capture_logs() as logs:
        make_engine(f"sqlite:///{path}").dispose()
    assert mode(path) == file_mode and not [e for e in logs if e["event"].startswith("sqlite_")]


def test_R28_10_a_database_this_process_does_not_own_is_a_warning_not_a_failure(tmp_path, monkeypatch):
    path = _old_database(tmp_path, 0o644)

    def not_the_owner(target, _mode):
        raise PermissionError(1, "Operation not permitted", str(target))

    # The suite may run as root, who may chmod anything: the refusal a non-owner gets, by hand.
    monkeypatch.setattr(db_module.os, "chmod", not_the_owner)
    with capture_logs() as logs:
        engine = make_engine(f"sqlite:///{path}")
    monkeypatch.undo()
    with engine.connect() as conn:  # it starts and works
        assert conn.execute(text("SELECT count(*) FROM t")).scalar() == 0
    engine.dispose()
    assert mode(path) == 0o644
    warned = [e for e in logs if e["event"] == "sqlite_file_readable_by_others"]
    assert [e["path"] for e in warned] == [str(path), str(path) + "-wal", str(path) + "-shm"]
    assert all(e["log_level"] == "warning" and e["mode"] == "0o644" for e in warned)
    assert not [e for e in logs if e["event"] == "sqlite_files_made_private"]


def test_R28_10_var_is_created_0700(tmp_path):
    old = os.umask(0o022)
    try:
        Settings(var_dir=tmp_path / "a" / "var", database_url="").resolved_database_url()
    finally:
        os.umask(old)
    assert mode(tmp_path / "a" / "var") == 0o700 and mode(tmp_path / "a") == 0o700


# --- R28.10: the service worker's saved pages when the session ended elsewhere -------------------

SW_HARNESS = ROOT / "tests" / "security" / "sw_session_check.js"


def run_worker(answer: str) -> dict:
    r = subprocess.run(
        ["node", str(SW_HARNESS), str(PACKAGE / "static" / "sw.js"), answer],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_R28_10_the_worker_drops_saved_pages_when_me_says_the_session_has_ended():
    ended = run_worker("401")
    assert ended["asked"] == [{"address": "/api/v1/me", "credentials": "same-origin"}] and ended["left"] == []
    # Still logged in, or offline (nobody to ask): the copies stay.
    for answer in ("200", "offline"):
        assert run_worker(answer)["left"] == ["/__hideout/viewer", "https://hideout.test/campaigns/1"]


def test_R28_10_me_answers_401_to_a_session_that_has_ended(client):
    """What the worker keys on: /api/v1/me with a session cookie that no longer counts."""
    client.cookies.set(SESSION_COOKIE, "ended-elsewhere")
    assert client.get("/api/v1/me").status_code == 401

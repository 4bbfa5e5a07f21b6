"""Issue 28, item 10 (R28.10): the SQLite database, `hideout backup` copies and `hideout
export` files are created readable by their owner only (0600) and `var/` 0700, whatever the
umask — under the usual 022 they came out 0644, readable by every user of the host."""

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

from app.core.db import make_engine
from app.core.security import SESSION_COOKIE
from app.core.settings import PACKAGE, Settings

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
def test_R28_10_the_database_backups_and_exports_are_the_owners_alone(tmp_path):
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


@pytest.mark.load
def test_R28_10_writing_over_a_readable_file_makes_it_private(tmp_path):
    hideout(tmp_path, "demo")
    for name in ("copy.sqlite3", "campaign.json"):
        (tmp_path / name).write_bytes(b"")
        os.chmod(tmp_path / name, 0o644)
    hideout(tmp_path, "backup", str(tmp_path / "copy.sqlite3"))
    hideout(tmp_path, "export", "1", str(tmp_path / "campaign.json"))
    assert mode(tmp_path / "copy.sqlite3") == 0o600 and mode(tmp_path / "campaign.json") == 0o600


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


def test_R28_10_an_existing_database_keeps_the_mode_its_admin_chose(tmp_path):
    path = tmp_path / "db.sqlite3"
    sqlite3.connect(path).close()
    os.chmod(path, 0o640)
    make_engine(f"sqlite:///{path}").dispose()
    assert mode(path) == 0o640


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

"""The `hideout` command: migrate, demo (idempotent), backup, and the secret key guard."""

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.settings import Settings
from tests.load.fault_helpers import sqlite_run_only

pytestmark = sqlite_run_only  # each command here runs on an SQLite file of its own

ROOT = Path(__file__).resolve().parents[2]  # the checkout


def run_cli(tmp_path, *args, env_extra=None):
    env = {
        "PATH": "/usr/bin:/bin",
        "HIDEOUT_VAR_DIR": str(tmp_path / "var"),
        "HIDEOUT_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.sqlite3'}",
        "HIDEOUT_FAST_HASHING": "1",
        **(env_extra or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.load
def test_r1_6_demo_is_created_once_in_round_one_and_backup_copies_it(tmp_path):
    first = run_cli(tmp_path, "demo")
    assert first.returncode == 0, first.stderr
    assert "Demo campaign created." in first.stdout and "master / vanguard-demo" in first.stdout
    second = run_cli(tmp_path, "demo")
    assert "already exists" in second.stdout
    backup = run_cli(tmp_path, "backup", str(tmp_path / "copy.sqlite3"))
    assert backup.returncode == 0, backup.stderr
    with sqlite3.connect(tmp_path / "copy.sqlite3") as conn:
        rows = conn.execute("SELECT status, round, phase FROM campaign").fetchall()
        hideouts = conn.execute("SELECT count(*) FROM hideout").fetchone()[0]
    assert rows == [("running", 1, "preparation")] and hideouts == 3


def test_backup_of_postgres_points_to_pg_dump(tmp_path):
    r = run_cli(tmp_path, "backup", "x", env_extra={"HIDEOUT_DATABASE_URL": "postgresql://u@127.0.0.1:1/db"})
    assert r.returncode == 2 and "pg_dump" in r.stdout


def test_known_secret_keys_are_refused(tmp_path):
    for key in ("changeme", "secret", "short"):
        with pytest.raises(SystemExit):
            Settings(secret_key=key, var_dir=tmp_path).resolved_secret_key()
    generated = Settings(var_dir=tmp_path).resolved_secret_key()
    assert len(generated) >= 40 and Settings(var_dir=tmp_path).resolved_secret_key() == generated
    r = run_cli(tmp_path, "serve", "--no-demo", env_extra={"HIDEOUT_SECRET_KEY": "changeme"})
    assert r.returncode != 0 and "known or too short" in (r.stderr + r.stdout)


@pytest.mark.load
def test_v2_import_catalog_command_is_idempotent_and_the_app_serves_the_result(tmp_path):
    from app.catalog.catalog import CatalogStore

    fixtures = ROOT / "tests" / "fixtures" / "battlescribe"
    first = run_cli(tmp_path, "import-catalog", str(fixtures))
    assert first.returncode == 0, first.stderr
    assert "added" in first.stdout
    second = run_cli(tmp_path, "import-catalog", str(fixtures))
    assert second.returncode == 0 and " 0 added" in second.stdout and " 0 changed" in second.stdout
    store = CatalogStore(tmp_path / "var" / "catalog")
    assert any(key.startswith("bs.") for key in store.get().factions)
    broken = run_cli(tmp_path, "import-catalog", str(tmp_path / "missing.cat"))
    assert broken.returncode != 0 and "Import failed" in broken.stderr

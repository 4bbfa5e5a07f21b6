"""Issue 20, item 3: the SQLite database's disk fills up under a real `hideout serve` process.
Writes answer 503 with the error body (never a 500), reads still work, nothing already committed
is lost, and once there is room again writes work without a restart.

Two ways to fill a disk, each run where it can be:
  tmpfs  a tiny tmpfs mounted for the database (needs root), filled with a file;
  fsize  RLIMIT_FSIZE set on the running server (prlimit), which ignores SIGXFSZ as systemd
         services do not, so a write past the limit fails with EFBIG instead of killing it.
"""

from __future__ import annotations

import resource
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing, contextmanager
from pathlib import Path

import httpx
import pytest

from tests.builders.campaigns import running_campaign
from tests.builders.pages import login
from tests.load.fault_helpers import sqlite_run_only
from tests.load.servers import REPO, START_TIMEOUT, free_port, server_env
from tests.load.test_database_outage import ledger_audit

# Writes tried until the disk is found full: the write-ahead log may first fill its own slack.
MAX_WRITES = 400


@contextmanager
def serve(database: Path, var: Path):
    """`hideout serve` with SIGXFSZ ignored and its output drained from a pipe (a log file would
    itself be cut by the file size limit): (process, url, output lines)."""
    env = server_env(f"sqlite:///{database}", var)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--no-demo"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGXFSZ, signal.SIG_IGN),
    )
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                if httpx.get(url + "/", timeout=2).status_code < 500:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start ({proc.poll()}):\n{''.join(lines)[-3000:]}")
            time.sleep(0.1)
        yield proc, url, lines
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


@contextmanager
def tiny_tmpfs(where: Path, size: str = "8m"):
    where.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, text=True, timeout=10
    )
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs here (not root?): {r.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=10)


def checkpoint(database: Path) -> None:
    """Empties the write-ahead log into the database and truncates it, so the next write must grow
    a file: a full disk is then met at once instead of after the log's slack."""
    with closing(sqlite3.connect(database)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()


def fill(mode: str, database: Path, pid: int) -> object:
    """Leaves no room for the database to grow; returns what `make_room` needs."""
    checkpoint(database)
    if mode == "tmpfs":
        filler = database.parent / "filler"
        with filler.open("wb") as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
        return filler
    limit = database.stat().st_size
    # The soft limit only: raising it again needs no privilege.
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    return None


def make_room(mode: str, pid: int, filler) -> None:
    if mode == "tmpfs":
        filler.unlink()
    else:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


@sqlite_run_only
@pytest.mark.parametrize("mode", ["tmpfs", "fsize"])
def test_issue20_sqlite_full_disk_answers_503_keeps_every_commit_and_writes_again_after(tmp_path, mode):
    if mode == "tmpfs":
        holder = tiny_tmpfs(tmp_path / "disk")
    else:
        (tmp_path / "disk").mkdir()
        holder = contextmanager(lambda: (yield tmp_path / "disk"))()
    with holder as disk:
        database = disk / "hideout.sqlite3"
        with serve(database, tmp_path / "var") as (proc, url, lines), httpx.Client(base_url=url, timeout=10) as api:
            gm, cid, players, _places = running_campaign(api, 2)
            pid = players[0]["player_id"]

            def adjust(note: str):
                return api.post(
                    f"/api/v1/campaigns/{cid}/ledger/adjustments",
                    headers=gm,
                    json={"player_id": pid, "amount": 1, "reason": note},
                )

            browser = httpx.Client(base_url=url, timeout=10)
            login(browser, "player1")  # a login writes: done while there is room
            acknowledged = []
            for i in range(5):
                assert adjust(f"before-{i}").status_code == 201
                acknowledged.append(f"before-{i}")
            filler = fill(mode, database, proc.pid)
            refused = None
            try:
                for i in range(MAX_WRITES):
                    r = adjust(f"full-{i}")
                    assert r.status_code in (201, 503), (r.status_code, r.text, "".join(lines)[-3000:])
                    if r.status_code == 201:
                        acknowledged.append(f"full-{i}")
                    else:
                        refused = r
                        break
                assert refused is not None, f"{MAX_WRITES} writes on a full disk all succeeded"
                assert refused.json()["error"]["code"] == "database_unavailable"
                assert refused.headers["retry-after"]
                # Still full: reads answer, from the API and the pages.
                ledger = api.get(f"/api/v1/campaigns/{cid}/ledger", params={"player_id": pid}, headers=gm)
                assert ledger.status_code == 200, ledger.text
                shown = {e["note"] for e in ledger.json()["items"]}
                assert set(acknowledged[-5:]) <= shown
                assert api.get(f"/api/v1/campaigns/{cid}", headers=players[1]["headers"]).status_code == 200
                page = browser.get(f"/campaigns/{cid}")
                assert page.status_code == 200, page.text[:2000]
                again = adjust("still-full")
                assert again.status_code == 503, again.text
            finally:
                make_room(mode, proc.pid, filler)
                browser.close()
            # Room again: the same server writes, no restart.
            assert adjust("after").status_code == 201
            acknowledged.append("after")
            log = "".join(lines)
        assert proc.returncode is not None
        assert "unhandled_error" not in log and "Traceback" not in log, log[-3000:]
        with closing(sqlite3.connect(database)) as db:
            notes = [
                r[0]
                for r in db.execute(
                    "SELECT note FROM ledger_entry WHERE player_id = ? AND kind = 'gm_adjustment' ORDER BY id", (pid,)
                )
            ]
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert notes == acknowledged
        assert ledger_audit(f"sqlite:///{database}") == []
        print(f"\n{mode}: {len(acknowledged) - 6} writes fitted after the fill, then 503")

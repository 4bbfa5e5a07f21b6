"""Issue 20, item 4: backups taken while a real server is written to are consistent, and a
restore brings back exactly what was backed up: the ledger audit passes and the pages read the
same (CSRF tokens aside). SQLite: `hideout backup` during load, `hideout restore FILE` (refused
for a file that is no Hideout database of a known migration, and while the server runs, changing
nothing). PostgreSQL: the README's pg_dump and pg_restore lines (the same as docs/deploy.md's),
run as written.
"""

from __future__ import annotations

import difflib
import os
import re
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import httpx

from app.cli import RESTORE_IN_USE, RESTORE_POSTGRESQL, RESTORE_REFUSED, known_revisions
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy
from tests.builders.pages import login
from tests.load.fault_helpers import own_postgres_database, sqlite_run_only
from tests.load.servers import start_servers
from tests.load.test_database_outage import ledger_audit, needs_postgres
from tools.check_deploy_doc import DOC, read_blocks

README = DOC.parents[1] / "README.md"

TIMEOUT = 60
PAGES = (
    "/campaigns/{cid}",
    "/campaigns/{cid}/ledger",
    "/campaigns/{cid}/chronicle",
    "/campaigns/{cid}/company",
    "/campaigns/{cid}/places",
)
# Per login or per request: CSRF tokens, the viewer's key (from the secret key, new at every start
# here), the live stream's starting time.
CLUB_KEY = "the-club-keeps-this-key-across-a-restore"
VOLATILE = [
    re.compile(p)
    for p in (
        r'name="csrf_token" value="[0-9a-f]+"',
        r'"X-CSRF-Token": "[0-9a-f]+"',
        r'name="hideout-viewer" content="[0-9a-f]+"',
        r"since=\d+",
    )
]


def hideout_here(monkeypatch, capsys, database_url: str, *args: str) -> tuple[int, str]:
    """`hideout ARGS` in this process (a new interpreter costs seconds; the deploy guide's check
    runs the real command): its exit code and what it printed."""
    from app.cli import main
    from app.core.settings import get_settings

    monkeypatch.setenv("HIDEOUT_DATABASE_URL", database_url)
    get_settings.cache_clear()
    try:
        code = main(list(args))
    finally:
        get_settings.cache_clear()
    out = capsys.readouterr()
    return code, out.out + out.err


def cli_env(database_url: str, var: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIDEOUT_") and k != "TEST_DATABASE_URL"}
    env.update(HIDEOUT_DATABASE_URL=database_url, HIDEOUT_VAR_DIR=str(var))
    return env


def pages(url: str, cid: int) -> dict[str, str]:
    """What player0 reads on a few pages, without what differs at every request."""
    with httpx.Client(base_url=url, timeout=10) as browser:
        login(browser, "player0")
        found = {}
        for path in PAGES:
            r = browser.get(path.format(cid=cid))
            assert r.status_code == 200, (path, r.status_code)
            body = r.text
            for pattern in VOLATILE:
                body = pattern.sub("", body)
            found[path] = body
        return found


def same_pages(after: dict[str, str], before: dict[str, str]) -> None:
    for path, body in before.items():
        diff = list(difflib.unified_diff(body.splitlines(), after[path].splitlines(), lineterm="", n=1))
        assert not diff, f"{path} reads differently after the restore:\n" + "\n".join(diff[:60])


def populate(api: httpx.Client):
    gm, cid, players, _places = running_campaign(api, 2)
    buy(api, cid, players[0], "orcs.krusher", "orcs.ax", faction="orcs")
    buy(api, cid, players[1], "basileans.veteran-sergeant", "basileans.man-at-arms", faction="basileans")
    for i, p in enumerate(players):
        for n in range(3):
            r = api.post(
                f"/api/v1/campaigns/{cid}/ledger/adjustments",
                headers=gm,
                json={"player_id": p["player_id"], "amount": 10 + n, "reason": f"seed-{i}-{n}"},
            )
            assert r.status_code == 201, r.text
    return gm, cid, players


def adjustments(database_url: str) -> set[str]:
    from sqlalchemy import text

    from app.core.db import make_engine

    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return set(conn.execute(text("SELECT note FROM ledger_entry WHERE kind = 'gm_adjustment'")).scalars())
    finally:
        engine.dispose()


class Writer:
    """GM adjustments in a loop while a backup is taken."""

    def __init__(self, url: str, gm: dict, cid: int, pid: int):
        self.stop, self.acknowledged = threading.Event(), []
        self.thread = threading.Thread(target=self._run, args=(url, gm, cid, pid), daemon=True)
        self.thread.start()

    def _run(self, url, gm, cid, pid) -> None:
        with httpx.Client(base_url=url, timeout=10) as c:
            i = 0
            while not self.stop.is_set():
                r = c.post(
                    f"/api/v1/campaigns/{cid}/ledger/adjustments",
                    headers=gm,
                    json={"player_id": pid, "amount": 1, "reason": f"load-{i}"},
                )
                assert r.status_code == 201, r.text
                self.acknowledged.append(f"load-{i}")
                i += 1

    def join(self) -> None:
        self.stop.set()
        self.thread.join(timeout=15)


@contextmanager
def mid_load(url: str, gm: dict, cid: int, pid: int) -> Iterator[Writer]:
    """The block runs while a Writer writes, once its first 5 writes are acknowledged: a backup
    taken in it is taken mid-load. The writer is stopped after the block."""
    writer = Writer(url, gm, cid, pid)
    try:
        while len(writer.acknowledged) < 5:
            assert writer.thread.is_alive()
            threading.Event().wait(0.02)
        yield writer
    finally:
        writer.join()


@sqlite_run_only
def test_issue20_sqlite_backup_under_load_and_restore_bring_back_the_same_campaign(tmp_path, monkeypatch, capsys):
    (tmp_path / "var").mkdir()
    database = tmp_path / "var" / "hideout.sqlite3"
    url = f"sqlite:///{database}"
    (server,) = start_servers(tmp_path, url, secret_key=CLUB_KEY)
    try:
        with httpx.Client(base_url=server.url, timeout=10) as api:
            gm, cid, players = populate(api)
            with mid_load(server.url, gm, cid, players[0]["player_id"]) as writer:
                code, said = hideout_here(monkeypatch, capsys, url, "backup", str(tmp_path / "during.sqlite3"))
                assert code == 0, said
            assert len(writer.acknowledged) > 5
            # A consistent snapshot: a whole database at one moment, its books balanced.
            with closing(sqlite3.connect(tmp_path / "during.sqlite3")) as db:
                assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert ledger_audit(f"sqlite:///{tmp_path / 'during.sqlite3'}") == []

            code, said = hideout_here(monkeypatch, capsys, url, "backup", str(tmp_path / "quiet.sqlite3"))
            assert code == 0, said
            before = pages(server.url, cid)
            backed_up = adjustments(url)
            r = api.post(
                f"/api/v1/campaigns/{cid}/ledger/adjustments",
                headers=gm,
                json={"player_id": players[1]["player_id"], "amount": 99, "reason": "after-the-backup"},
            )
            assert r.status_code == 201

            # Refused while the server has the database open; nothing changes.
            code, said = hideout_here(monkeypatch, capsys, url, "restore", str(tmp_path / "quiet.sqlite3"))
            assert code == RESTORE_IN_USE and "Stop the server" in said, said
            assert "after-the-backup" in adjustments(url)
    finally:
        server.stop()

    # Refused: not a database, not Hideout's, a migration this code does not know.
    (tmp_path / "notes.sqlite3").write_text("not a database")
    with closing(sqlite3.connect(tmp_path / "other.sqlite3")) as db, db:
        db.execute("CREATE TABLE t (x)")
    (tmp_path / "future.sqlite3").write_bytes((tmp_path / "quiet.sqlite3").read_bytes())
    with closing(sqlite3.connect(tmp_path / "future.sqlite3")) as db, db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")
    for name, reason in (
        ("notes", "not a Hideout SQLite database"),
        ("other", "not a Hideout SQLite database"),
        ("future", "does not know"),
        ("missing", "does not exist"),
    ):
        code, said = hideout_here(monkeypatch, capsys, url, "restore", str(tmp_path / f"{name}.sqlite3"))
        assert code == RESTORE_REFUSED and reason in said and "not changed" in said, (name, said)
    code, said = hideout_here(
        monkeypatch, capsys, "postgresql://nobody@127.0.0.1:1/none", "restore", str(tmp_path / "quiet.sqlite3")
    )
    assert code == RESTORE_POSTGRESQL and "pg_restore" in said
    assert "after-the-backup" in adjustments(url)
    assert not list(database.parent.glob("*.before-restore-*"))

    code, said = hideout_here(monkeypatch, capsys, url, "restore", str(tmp_path / "quiet.sqlite3"))
    assert code == 0, said
    assert f"migration {known_revisions()[0]}" in said
    (kept,) = database.parent.glob("hideout.sqlite3.before-restore-*")
    assert "after-the-backup" in adjustments(f"sqlite:///{kept}")
    assert adjustments(url) == backed_up
    assert ledger_audit(url) == []
    serves_the_same_pages(tmp_path, url, cid, before)


def serves_the_same_pages(tmp_path, url: str, cid: int, before) -> None:
    """A server started on the restored database (with the club's own key: the live stream's
    resume point is sealed with it) shows the pages as they were backed up."""
    (server,) = start_servers(tmp_path, url, secret_key=CLUB_KEY)
    try:
        same_pages(pages(server.url, cid), before)
    finally:
        server.stop()


def doc_block(*needles: str) -> str:
    """The one command block of docs/deploy.md that holds every needle."""
    (block,) = [b.text for b in read_blocks(DOC.read_text()) if b.kind == "run" and all(n in b.text for n in needles)]
    return block


def readme_line(start: str) -> str:
    """The README's backup line that starts so, without its comment; it must be the guide's."""
    (line,) = [line.split("    #")[0].strip() for line in README.read_text().splitlines() if line.startswith(start)]
    assert line == doc_block(start).strip(), "the README and docs/deploy.md give different backup lines"
    return line


@needs_postgres
def test_issue20_postgresql_dump_and_restore_as_the_readme_says_bring_back_the_same_campaign(tmp_path):
    dump, restore = readme_line("pg_dump "), readme_line("pg_restore ")

    def run(block: str, database_url: str) -> None:
        r = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            cwd=tmp_path,
            env={**env, "HIDEOUT_DATABASE_URL": database_url},
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        assert r.returncode == 0, r.stderr

    with own_postgres_database("restore") as url:
        env = cli_env(url, tmp_path / "var")
        (server,) = start_servers(tmp_path, url, secret_key=CLUB_KEY)
        try:
            with httpx.Client(base_url=server.url, timeout=10) as api:
                gm, cid, players = populate(api)
                with mid_load(server.url, gm, cid, players[0]["player_id"]):
                    run(dump, url)  # "any time, the server keeps running"
                # The dump taken mid-load is a consistent snapshot: restored elsewhere, its books balance.
                with own_postgres_database("restore_scratch") as scratch:
                    run(restore, scratch)
                    assert ledger_audit(scratch) == []
                    assert {f"seed-{i}-{n}" for i in range(2) for n in range(3)} <= adjustments(scratch) <= adjustments(url)
                # A quiet dump (the same day's file, replaced), then the campaign moves on.
                run(dump, url)
                before, backed_up = pages(server.url, cid), adjustments(url)
                r = api.post(
                    f"/api/v1/campaigns/{cid}/ledger/adjustments",
                    headers=gm,
                    json={"player_id": players[1]["player_id"], "amount": 99, "reason": "after-the-backup"},
                )
                assert r.status_code == 201
        finally:
            server.stop()
        run(restore, url)  # as the guide says: the server stopped
        assert adjustments(url) == backed_up
        assert ledger_audit(url) == []
        serves_the_same_pages(tmp_path, url, cid, before)


def test_issue20_the_readmes_backup_lines_are_the_ones_ci_runs_from_the_guide():
    # The PostgreSQL lines run above; the SQLite ones run as the guide's blocks (test_deploy_doc).
    for start in ("pg_dump ", "pg_restore ", "hideout backup ", "hideout restore "):
        assert readme_line(start).startswith(start)

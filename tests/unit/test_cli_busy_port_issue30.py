"""Issue 30 item 5: `hideout serve` (`make run`) on a busy port says so and exits non-zero,
instead of printing "Hideout runs at …" and then failing to listen."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from app import cli
from app import server as app_server

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _served(monkeypatch) -> list:
    """Nothing past the check may run: migrating, the demo, uvicorn."""
    calls: list = []
    monkeypatch.setattr(cli, "_migrate", lambda: calls.append("migrate"))
    monkeypatch.setattr(cli, "_demo", lambda: calls.append("demo"))
    monkeypatch.setattr(cli, "_serve", lambda *a, **k: calls.append("run"))
    return calls


def test_issue30_serve_on_a_busy_port_says_so_and_exits_non_zero(monkeypatch, capsys):
    calls = _served(monkeypatch)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = cli.main(["serve", "--host", "127.0.0.1", "--port", str(port)])
    out = capsys.readouterr()
    assert code == 1 and calls == []
    assert f"cannot listen on 127.0.0.1:{port}" in out.err and "in use" in out.err and f"PORT={port + 1}" in out.err
    assert "Hideout runs at" not in out.out + out.err


def test_issue30_serve_on_a_free_port_runs(monkeypatch, capsys):
    calls = _served(monkeypatch)
    monkeypatch.setattr(
        cli,
        "get_settings",
        lambda: type(
            "S",
            (),
            {
                "resolved_secret_key": lambda self: "k",
                "resolved_database_url": lambda self: "sqlite:///x",
                "log_json": False,
                "log_level": "INFO",
            },
        )(),
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert cli.main(["serve", "--host", "127.0.0.1", "--port", str(port), "--no-demo"]) == 0
    assert calls == ["migrate", "run"] and f"Hideout runs at http://127.0.0.1:{port}" in capsys.readouterr().out


@pytest.mark.parametrize("host", ["nonexistent.invalid"])
def test_issue30_an_address_that_is_not_this_machines_is_refused_too(monkeypatch, capsys, host):
    calls = _served(monkeypatch)
    assert cli.main(["serve", "--host", host, "--port", "8000"]) == 1 and calls == []
    assert f"cannot listen on {host}:8000" in capsys.readouterr().err


def test_issue37_serve_replaces_itself_with_a_fresh_serving_process(monkeypatch):
    """`hideout serve` execs `python -m app.server` once migrated (same process id, signals and
    output), so the serving process holds no migration tool, demo or command-line code."""
    execs: list = []
    monkeypatch.setattr(cli.os, "name", "posix")
    monkeypatch.setattr(cli.os, "execv", lambda path, argv: execs.append((path, argv)))
    monkeypatch.setattr(app_server, "run", lambda *a: execs.append(("in process", a)))
    cli._serve("0.0.0.0", 8080, 2)
    assert execs[0] == (
        sys.executable,
        [sys.executable, "-m", "app.server", "--host", "0.0.0.0", "--port", "8080", "--workers", "2"],
    )
    monkeypatch.setattr(cli.os, "name", "nt")  # exec would start another process there: served in this one
    execs.clear()
    cli._serve("127.0.0.1", 8000, 1)
    assert execs == [("in process", ("127.0.0.1", 8000, 1))]


def test_issue31_serve_without_the_demo_imports_no_domain_before_it_execs(tmp_path):
    """`hideout serve --no-demo` migrates and execs: the domains, the wiring and the demo are the
    served process's to import (they were 0.7 s of each server start); with the demo,
    the command composes the domains, as every other command does."""
    probe = (
        "import os, sys; from app import cli\n"
        "os.execv = lambda *a: print(sorted(m for m in ('app.wiring', 'app.demo', 'app.campaigns.service') if m in sys.modules)) or sys.exit(0)\n"
        "cli.main(sys.argv[1:])"
    )
    env = {
        **os.environ,
        "HIDEOUT_VAR_DIR": str(tmp_path),
        "HIDEOUT_DATABASE_URL": f"sqlite:///{tmp_path / 'probe.sqlite3'}",
        "HIDEOUT_SECRET_KEY": "probe-secret-key-that-is-long-enough",
        "HIDEOUT_FAST_HASHING": "1",
    }
    port = str(_free_port())
    for flags, imported in ((["--no-demo"], "[]"), ([], "['app.campaigns.service', 'app.demo', 'app.wiring']")):
        done = subprocess.run(
            [sys.executable, "-c", probe, "serve", "--port", port, *flags],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip().splitlines()[-1] == imported, done.stdout


def test_issue37_the_serving_process_imports_no_migration_tool_demo_or_command(tmp_path):
    # rich and watchfiles: optional imports of structlog and uvicorn that serving never uses;
    # psycopg (with its libpq, 10 MB) and SQLAlchemy's PostgreSQL dialect: a server on SQLite
    # (the default database here) has no use for them.
    unused = (
        "('alembic', 'app.demo', 'app.cli', 'app.exports.cli', 'app.season.cli', 'rich', 'watchfiles', "
        "'psycopg', 'sqlalchemy.dialects.postgresql')"
    )
    probe = f"import sys, app.server, app.asgi; print(sorted(m for m in {unused} if sys.modules.get(m) is not None))"
    env = {**os.environ, "HIDEOUT_VAR_DIR": str(tmp_path), "HIDEOUT_SECRET_KEY": "probe-secret-key-that-is-long-enough"}
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"

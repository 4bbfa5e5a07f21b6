"""Issue 30 item 5: `hideout serve` (`make run`) on a busy port says so and exits non-zero,
instead of printing "Hideout runs at …" and then failing to listen."""

from __future__ import annotations

import socket

import pytest

from app import cli


def _served(monkeypatch) -> list:
    """Nothing past the check may run: migrating, the demo, uvicorn."""
    calls: list = []
    monkeypatch.setattr(cli, "_migrate", lambda: calls.append("migrate"))
    monkeypatch.setattr(cli, "_demo", lambda: calls.append("demo"))
    monkeypatch.setattr(cli.uvicorn, "run", lambda *a, **k: calls.append("run"))
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
    monkeypatch.setattr(cli, "configure_logging", lambda **k: None)
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

"""Issue 31: one composition for every entry point. `hideout tick` from cron once skipped the
alliances and webhooks modules, so that a deadline moving a campaign to Battles put mission
allies on separate sides and queued no webhook. Now every port is plugged by app/wiring.py,
which the server, every CLI command and the tests run, and an unplugged port refuses."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, select, update

import app
from app.core.db import utcnow
from app.core.ports import NotWired, Port
from app.season.models import PhaseDeadline
from app.webhooks.models import WebhookDelivery
from app.wiring import wire
from tests.builders.guilds import guild_campaign, make_alliance, orders, sides_of

ROOT = Path(__file__).resolve().parents[2]


def _tick(settings, tmp_path) -> subprocess.CompletedProcess:
    """`hideout tick` as cron runs it: a new process, its own environment, outside the checkout."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HIDEOUT_DATABASE_URL": settings.database_url,
        "HIDEOUT_VAR_DIR": str(settings.var_dir),
        "HIDEOUT_SECRET_KEY": settings.secret_key,
    }
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "tick"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


def test_issue31_r8_8_hideout_tick_at_an_orders_deadline_keeps_mission_allies_on_one_side_and_queues_webhooks(
    client, engine, settings, tmp_path, monkeypatch
):
    monkeypatch.setattr(settings, "webhook_allow_private", True)  # a receiver on this machine, never called
    g = guild_campaign(client, 3)
    bridge = g.event(3, "Bridge")
    make_alliance(g, 0, bridge, 1)
    for i in range(3):
        g.band(i)
    orders(g, p0=("event", bridge), p1=("event", bridge), p2=("event", bridge))
    hook = client.post(g.url("/webhooks"), json={"url": "http://127.0.0.1:9/hook", "secret": "s" * 16}, headers=g.gm)
    assert hook.status_code == 201, hook.text
    ends = (utcnow() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert client.put(g.url("/deadline"), json={"ends_at": ends, "auto_advance": True}, headers=g.gm).status_code == 200
    with Session(engine) as s:  # the deadline passes
        s.exec(update(PhaseDeadline).values(ends_at=utcnow() - timedelta(minutes=1)))
        s.commit()
        queued_before = len(s.exec(select(WebhookDelivery)).all())

    done = _tick(settings, tmp_path)

    assert done.returncode == 0, done.stderr
    assert "Advanced: 1" in done.stdout, done.stdout
    assert g.campaign()["phase"] == "battles"
    [battle] = g.battles()
    assert sides_of(battle) == sorted([sorted([g.pid(0), g.pid(1)]), [g.pid(2)]])  # allies stand together
    with Session(engine) as s:
        assert len(s.exec(select(WebhookDelivery)).all()) > queued_before  # the phase change is told


def _ports() -> list[tuple[str, Port]]:
    found = []
    for info in pkgutil.walk_packages(app.__path__, "app."):
        if ".migrations" in info.name:
            continue
        module = importlib.import_module(info.name)
        found += [(f"{info.name}.{name}", value) for name, value in vars(module).items() if isinstance(value, Port)]
    return found


def test_issue31_wire_plugs_every_port_the_code_declares():
    wire()
    ports = _ports()
    assert len(ports) >= 14, [name for name, _ in ports]
    assert [name for name, port in ports if not port.wired] == []


def test_issue31_an_unwired_port_refuses_instead_of_answering_nothing():
    port = Port[int]("an example")
    with pytest.raises(NotWired, match="app.wiring.wire"):
        port()
    port.plug(1, 2)
    assert port() == (1, 2)

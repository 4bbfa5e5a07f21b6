"""R11.4 live updates across processes (PostgreSQL's LISTEN/NOTIFY): a change made in one
uvicorn worker, or in another `hideout serve` on the same database, reaches the streams held by
every other process. Heartbeats are set far beyond the waits, so only a wake can deliver."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.builders.campaigns import running_campaign
from tests.load.fault_helpers import own_postgres_database
from tests.load.servers import REPO, HideoutProcess, start_servers
from tests.load.test_live_shutdown import SHUTDOWN_BOUND, Stream, stream_url

TEST_DB = os.environ.get("TEST_DATABASE_URL", "")
if not TEST_DB.startswith("postgresql"):
    pytest.skip(
        "streams in other processes are woken by PostgreSQL's NOTIFY: the PostgreSQL run covers this", allow_module_level=True
    )

# Streams beyond the per-user bound: the tries below may open many for three users on one worker.
QUIET = {"HIDEOUT_LIVE_HEARTBEAT_SECONDS": "600", "HIDEOUT_LIVE_MAX_STREAMS_PER_USER": "64"}
# Enough tries that the kernel's spreading of connections puts some on each worker. Which worker
# accepts is a race between their wakeups; while the rest of the suite keeps a core busy, the same
# worker can win many times running (16 in a row once), so a try after the first few waits a moment.
MAX_STREAMS = 48
MIN_STREAMS = 6
CHANGES = ("orders", "preparation", "orders", "preparation")


@pytest.fixture
def database(tmp_path):
    """A fresh database of this test's own on the test server, migrated by `hideout migrate`,
    dropped afterwards."""
    with own_postgres_database("live") as url:
        env = {**os.environ, "HIDEOUT_DATABASE_URL": url, "HIDEOUT_VAR_DIR": str(tmp_path / "var")}
        subprocess.run(
            [sys.executable, "-m", "app.cli", "migrate"], cwd=REPO, env=env, check=True, timeout=60, capture_output=True
        )
        yield url


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def holders(server: HideoutProcess, streams: list[Stream]) -> dict[int, int]:
    """How many of `streams` each worker process holds (by the sockets in /proc)."""
    remote_port = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] == "01" and int(cols[1].rsplit(":", 1)[1], 16) == server.port:  # established, server side
                remote_port[cols[9]] = int(cols[2].rsplit(":", 1)[1], 16)
    ports = {s.port for s in streams}
    counts = {}
    for pid in _children(server.proc.pid):
        try:
            fds = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue
        held = sum(1 for fd in fds if fd.startswith("socket:[") and remote_port.get(fd[8:-1]) in ports)
        if held:
            counts[pid] = held
    return counts


def test_r11_4_phase_changes_reach_streams_on_every_worker(tmp_path, database):
    (server,) = start_servers(tmp_path, database, workers=2, env=QUIET)
    streams: list[Stream] = []
    try:
        with httpx.Client(base_url=server.url, timeout=10) as api:
            gm, cid, players, _places = running_campaign(api, 2)
            viewers = [gm] + [p["headers"] for p in players]
            placed: dict[int, int] = {}
            while len(streams) < MIN_STREAMS or len(placed) < 2:
                assert len(streams) < MAX_STREAMS, f"every stream went to one worker: {placed}"
                if len(streams) >= MIN_STREAMS:
                    time.sleep(0.05)
                streams.append(Stream(stream_url(server, cid), viewers[len(streams) % len(viewers)]))
                placed = holders(server, streams)
            # The changes are made in one worker; the streams of the other hear of them by NOTIFY.
            for phase in CHANGES:
                r = api.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": phase}, headers=gm)
                assert r.status_code == 200, r.text
        for s in streams:
            assert [s.until("phase")["phase"] for _ in CHANGES] == list(CHANGES)
        # Shutdown with the LISTEN connections open stays within the bound, streams ended cleanly.
        assert server.stop() < SHUTDOWN_BOUND
        for s in streams:
            assert s.ended.wait(1) and s.clean, s.error
    finally:
        for s in streams:
            s.close()
        server.stop()


def test_r11_4_a_change_through_one_server_reaches_a_stream_on_another(tmp_path, database):
    servers = start_servers(tmp_path, database, count=2, env=QUIET)
    with ExitStack() as stack:
        for server in servers:
            stack.callback(server.stop)
        one, two = servers
        api_one = stack.enter_context(httpx.Client(base_url=one.url, timeout=10))
        api_two = stack.enter_context(httpx.Client(base_url=two.url, timeout=10))
        gm, cid, players, _places = running_campaign(api_two, 2)
        on_one = Stream(stream_url(one, cid), players[0]["headers"])
        on_two = Stream(stream_url(two, cid), players[1]["headers"])
        stack.callback(on_one.close)
        stack.callback(on_two.close)
        assert api_two.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": "orders"}, headers=gm).status_code == 200
        assert on_one.until("phase", timeout=3)["phase"] == "orders"
        assert on_two.until("phase", timeout=3)["phase"] == "orders"
        assert api_one.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": "preparation"}, headers=gm).status_code == 200
        assert on_two.until("phase", timeout=3)["phase"] == "preparation"
        assert on_one.until("phase", timeout=3)["phase"] == "preparation"

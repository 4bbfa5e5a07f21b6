"""R11.4 live streams against a real `hideout serve` process (SQLite): SIGTERM ends every open
stream cleanly (its chunked body is finished, not cut) and the process exits within
SHUTDOWN_BOUND; a stream whose login ends gets `event: closed` and ends.

The process and stream helpers here are shared with test_live_workers.py (PostgreSQL).
"""

from __future__ import annotations

import json
import queue
import signal
import threading
import time

import httpx
import pytest

from tests.builders.accounts import token_headers
from tests.builders.campaigns import running_campaign
from tests.builders.pages import login, post
from tests.load.fault_helpers import sqlite_run_only
from tests.load.servers import HideoutProcess, start_servers

pytestmark = sqlite_run_only  # its servers run on SQLite files of their own (PostgreSQL's streams: test_live_workers.py)

# What a club's systemd unit may rely on (docs/deploy.md sets TimeoutStopSec above it).
SHUTDOWN_BOUND = 5.0
EVENT_TIMEOUT = 5.0


class Stream:
    """One campaign stream read in a thread: its events, whether its body ended cleanly (the
    last chunk came) or was cut, and its client port (which tells the worker holding it)."""

    def __init__(self, url: str, headers: dict | None = None, cookies=None):
        self.events: queue.Queue = queue.Queue()
        self.opened, self.ended = threading.Event(), threading.Event()
        self.status: int | None = None
        self.port: int | None = None
        self.clean: bool | None = None
        self.error: Exception | None = None
        self._client = httpx.Client(timeout=httpx.Timeout(10, read=None), cookies=cookies)
        threading.Thread(target=self._run, args=(url, headers or {}), daemon=True).start()
        assert self.opened.wait(10), "the stream did not answer"
        assert self.status == 200, f"the stream answered {self.status}"

    def _run(self, url: str, headers: dict) -> None:
        try:
            with self._client.stream("GET", url, headers=headers) as r:
                self.status = r.status_code
                self.port = r.extensions["network_stream"].get_extra_info("client_addr")[1]
                self.opened.set()
                fields: dict = {}
                for line in r.iter_lines():
                    if line == "":
                        if "event" in fields:
                            self.events.put((fields["event"], json.loads(fields.get("data", "{}"))))
                        fields = {}
                    elif not line.startswith(":"):
                        name, _, value = line.partition(":")
                        fields[name] = value.removeprefix(" ")
            self.clean = True
        except (httpx.HTTPError, OSError) as exc:
            self.clean, self.error = False, exc
        finally:
            self.opened.set()
            self.ended.set()

    def until(self, kind: str, timeout: float = EVENT_TIMEOUT) -> dict:
        """The data of the next event of `kind`, skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                found, data = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {kind} event within {timeout} s") from None
            if found == kind:
                return data

    def close(self) -> None:
        self._client.close()


def stream_url(server: HideoutProcess, cid: int) -> str:
    return f"{server.url}/api/v1/campaigns/{cid}/stream"


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'hideout.sqlite3'}"


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One server and campaign for the logout tests: (server, api client, campaign id)."""
    tmp = tmp_path_factory.mktemp("live_logout")
    (server,) = start_servers(tmp, f"sqlite:///{tmp / 'hideout.sqlite3'}")
    try:
        with httpx.Client(base_url=server.url, timeout=10) as api:
            _gm, cid, _players, _places = running_campaign(api, 2)
            yield server, api, cid
    finally:
        server.stop()


def test_r11_4_sigterm_ends_open_streams_cleanly_and_the_server_within_the_bound(tmp_path, sqlite_url):
    (server,) = start_servers(tmp_path, sqlite_url)
    streams = []
    try:
        with httpx.Client(base_url=server.url, timeout=10) as api:
            gm, cid, players, _places = running_campaign(api, 2)
            streams = [Stream(stream_url(server, cid), h) for h in (gm, players[0]["headers"], players[1]["headers"])]
            # The streams are live (woken by a commit) when the signal comes.
            assert api.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": "orders"}, headers=gm).status_code == 200
            for s in streams:
                assert s.until("phase")["phase"] == "orders"
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        server.exits_cleanly_within(SHUTDOWN_BOUND, "SIGTERM")
        elapsed = time.monotonic() - started
        for s in streams:
            assert s.ended.wait(1), "a stream outlived its server"
            assert s.clean, f"a stream was cut instead of ended: {s.error!r}"
        assert "timeout graceful shutdown exceeded" not in server.log()
        assert elapsed < SHUTDOWN_BOUND
    finally:
        for s in streams:
            s.close()
        server.stop()


def test_r11_4_revoking_the_streams_token_closes_it(shared):
    server, api, cid = shared
    headers = token_headers(api, "player0")
    stream = Stream(stream_url(server, cid), headers)
    try:
        assert api.delete("/api/v1/auth/tokens/current", headers=headers).status_code == 204
        assert stream.until("closed")["reason"] == "logged_out"
        assert stream.ended.wait(EVENT_TIMEOUT) and stream.clean
    finally:
        stream.close()


def test_r11_4_logging_out_of_the_page_closes_its_stream(shared):
    server, _api, cid = shared
    with httpx.Client(base_url=server.url, timeout=10) as browser:
        login(browser, "player1")
        stream = Stream(stream_url(server, cid), cookies=browser.cookies)
        try:
            assert post(browser, "/logout").status_code == 303
            closed = stream.until("closed")
            assert closed["reason"] == "logged_out" and closed["message"]
            assert stream.ended.wait(EVENT_TIMEOUT) and stream.clean
        finally:
            stream.close()

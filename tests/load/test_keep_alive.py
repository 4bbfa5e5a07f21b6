"""Issue 20, item 1: an idle phone keeps its connection. With uvicorn's default of 5 s, the
club night's members (who read a page for a few seconds between taps) met a connection reset
when a tap crossed the server closing their idle connection; `hideout serve` keeps it
KEEP_ALIVE_SECONDS."""

from __future__ import annotations

import http.client
import socket
import time

import pytest

from app.server import KEEP_ALIVE_SECONDS
from tests.load.fault_helpers import ON_POSTGRESQL
from tests.load.servers import HideoutProcess

if ON_POSTGRESQL:
    pytest.skip(
        "how long the server keeps a connection does not depend on the database: the SQLite run covers it",
        allow_module_level=True,
    )

IDLE = 7.0  # longer than uvicorn's default keep-alive of 5 s


def _still_open(sock: socket.socket) -> bool:
    """Nothing to read and no end of stream: the server has not closed its side."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    finally:
        sock.setblocking(True)


def test_issue20_an_idle_connection_is_kept_between_a_members_taps(tmp_path):
    assert KEEP_ALIVE_SECONDS > 60, "a proxy in front must give up on an idle connection before the server does"
    server = HideoutProcess(tmp_path, f"sqlite:///{tmp_path / 'hideout.sqlite3'}")
    server.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/login")
        first = conn.getresponse()
        first.read()
        assert first.status == 200
        sock = conn.sock
        time.sleep(IDLE)
        assert _still_open(sock), f"the server closed an idle connection within {IDLE} s"
        conn.request("GET", "/login")
        second = conn.getresponse()
        second.read()
        assert second.status == 200
        assert conn.sock is sock, "the second tap needed a new connection"
        conn.close()
    finally:
        server.stop()

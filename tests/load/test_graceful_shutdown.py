"""Issue 20, item 6: graceful shutdown of a real `hideout serve` (SQLite). On SIGTERM the server
stops taking connections, ends its live streams at once, finishes the requests in flight — they
answer 2xx and their writes are kept — and exits within EXIT_BOUND of the last one; a request
that never finishes is cut at the server's graceful timeout (GRACEFUL_SECONDS), writes nothing,
and the process is gone by GRACEFUL_SECONDS + EXIT_BOUND. test_live_shutdown.py covers the
streams-only case; here the requests in flight are what the server waits for.

A request is "in flight" for sure when its headers and half its body have been read by the
server (the kernel's receive queue of its socket is empty) and the rest is still to come."""

from __future__ import annotations

import json
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from app.core.db import make_engine
from app.server import GRACEFUL_SECONDS
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy
from tests.load.fault_helpers import ON_POSTGRESQL
from tests.load.servers import HideoutProcess
from tests.load.test_live_shutdown import SHUTDOWN_BOUND, Stream, stream_url

if ON_POSTGRESQL:
    pytest.skip("the server's stop does not depend on the database: the SQLite run covers it", allow_module_level=True)

# The process exits this soon after its last request is done (the stop itself, as in
# test_live_shutdown.py).
EXIT_BOUND = SHUTDOWN_BOUND
IN_FLIGHT = 3
WAIT = 5.0


def _server_read_all(server_port: int, client_port: int) -> bool:
    """Whether the server accepted this connection and read everything sent on it."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            cols = line.split()
            local, remote = int(cols[1].rsplit(":", 1)[1], 16), int(cols[2].rsplit(":", 1)[1], 16)
            if local == server_port and remote == client_port and cols[3] == "01":
                return int(cols[4].split(":")[1], 16) == 0
    return False


class SlowPurchase:
    """A purchase sent in two halves over a raw socket: the server holds it in flight between."""

    def __init__(self, server: HideoutProcess, cid: int, headers: dict, profile: str):
        body = json.dumps({"profile": profile}).encode()
        self.rest = body[len(body) // 2 :]
        head = (
            f"POST /api/v1/campaigns/{cid}/company/models HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Authorization: {headers['Authorization']}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT + GRACEFUL_SECONDS)
        self.sock.sendall(head + body[: len(body) // 2])
        port = self.sock.getsockname()[1]
        deadline = time.monotonic() + WAIT
        while not _server_read_all(server.port, port):
            assert time.monotonic() < deadline, "the server did not read the request's first half"
            time.sleep(0.01)

    def finish(self) -> tuple[int, dict, dict]:
        """Sends the rest; the status, headers and JSON body of the answer."""
        self.sock.sendall(self.rest)
        return self.answer()

    def answer(self) -> tuple[int, dict, dict] | None:
        """The answer, once the server has closed the connection; None if it closed without one."""
        data = b""
        while chunk := self.sock.recv(65536):  # the server closes after answering: it is stopping
            data += chunk
        if not data:
            return None
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        headers = {k.lower(): v for k, v in headers.items()}
        is_json = headers.get("content-type", "").startswith("application/json")
        return int(lines[0].split()[1]), headers, json.loads(body) if is_json else {"text": body.decode(errors="replace")}

    def close(self) -> None:
        self.sock.close()


def _connect_refused(server: HideoutProcess) -> bool:
    try:
        httpx.get(server.url + "/", timeout=1)
    except httpx.ConnectError:
        return True
    except httpx.HTTPError:
        return False
    return False


def _poll(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def _gold_and_models(database_url: str, player_id: int) -> tuple[int, int, int]:
    engine = make_engine(database_url)
    try:
        with engine.connect() as db:
            return db.execute(
                text(
                    "SELECT gold, (SELECT coalesce(sum(amount), 0) FROM ledger_entry WHERE player_id = :p), "
                    "(SELECT count(*) FROM company_model m JOIN company c ON c.id = m.company_id WHERE c.player_id = :p) "
                    "FROM player WHERE id = :p"
                ),
                {"p": player_id},
            ).one()
    finally:
        engine.dispose()


@pytest.fixture
def serving(tmp_path):
    """A server with a running campaign: (server, database url, gm, campaign id, an orc player)."""
    url = f"sqlite:///{tmp_path / 'hideout.sqlite3'}"
    server = HideoutProcess(tmp_path, url)
    server.start()
    try:
        with httpx.Client(base_url=server.url, timeout=10) as api:
            gm, cid, players, _places = running_campaign(api, 2)
            buy(api, cid, players[0], faction="orcs")
        yield server, url, gm, cid, players[0]
    finally:
        server.stop()


def test_issue20_sigterm_finishes_requests_in_flight_ends_streams_and_exits_within_the_bound(serving):
    server, url, gm, cid, player = serving
    streams = [Stream(stream_url(server, cid), h) for h in (gm, player["headers"])]
    slow = [SlowPurchase(server, cid, player["headers"], "orcs.ax") for _ in range(IN_FLIGHT)]
    try:
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        # The streams end at once and cleanly, while the purchases still keep the server up.
        for s in streams:
            assert s.ended.wait(2), "a live stream outlived SIGTERM by 2 s"
            assert s.clean, f"a stream was cut instead of ended: {s.error!r}"
        streams_ended = time.monotonic() - signalled
        _poll(lambda: _connect_refused(server), 2, "the server still takes new connections after SIGTERM")
        assert server.proc.poll() is None, "the server exited with requests in flight"
        answers = [p.finish() for p in slow]
        last_answer = time.monotonic()
        for status, headers, body in answers:
            assert status == 201, (status, body)
            assert headers.get("connection") == "close"
        server.exits_cleanly_within(EXIT_BOUND, "its last request")
        exited = time.monotonic() - last_answer
        log = server.log()
        assert "timeout graceful shutdown exceeded" not in log and "Traceback" not in log, log[-3000:]
        gold, ledger, models = _gold_and_models(url, player["player_id"])
        # The purchases answered during shutdown were committed, each paid once.
        assert models == IN_FLIGHT and gold == ledger == 400 - IN_FLIGHT * 12, (models, gold, ledger)
        print(f"streams ended {streams_ended:.2f} s after SIGTERM; exit {exited:.2f} s after the last answer")
    finally:
        for p in slow:
            p.close()
        for s in streams:
            s.close()


def test_issue20_a_request_that_never_finishes_is_cut_at_the_graceful_timeout(serving):
    server, url, _gm, cid, player = serving
    hung = SlowPurchase(server, cid, player["headers"], "orcs.ax")
    try:
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        server.exits_cleanly_within(GRACEFUL_SECONDS + EXIT_BOUND, "SIGTERM")
        elapsed = time.monotonic() - signalled
        # It waited for the request as long as promised, then cut it.
        assert elapsed >= GRACEFUL_SECONDS - 0.5, elapsed
        assert "timeout graceful shutdown exceeded" in server.log()
        hung.sock.settimeout(2)
        try:
            answer = hung.answer()
        except ConnectionResetError:
            answer = None
        # It is told so in the error body, not with uvicorn's bare 500.
        assert answer is not None, "the cut request got no answer"
        status, headers, body = answer
        assert status == 503 and body["error"]["code"] == "server_stopping", answer
        assert "check whether" in body["error"]["message"].lower(), body
        gold, ledger, models = _gold_and_models(url, player["player_id"])
        assert (models, gold, ledger) == (0, 400, 400)
        print(f"a hung request held the stop for {elapsed:.2f} s")
    finally:
        hung.close()

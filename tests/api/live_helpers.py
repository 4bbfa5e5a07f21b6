"""Live stream helpers (R11.4): the app served by a real uvicorn in a thread (a stream never
ends, so it needs a real server), and a listener that reads a stream in the background."""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def stream_server(app):
    """Base URL of the session's app, served by uvicorn in a thread (same database)."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", access_log=False, timeout_graceful_shutdown=2
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline, "the stream server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    from app.core.live import broker

    broker.close_all()  # as SIGTERM does under `hideout serve`
    server.should_exit = True
    thread.join(5)


@dataclass
class Event:
    kind: str
    data: dict
    id: str | None


@dataclass
class Listener:
    """Reads one stream in a thread; `next()` waits for its next event, `silent()` checks that
    none comes."""

    url: str
    headers: dict
    events: queue.Queue = field(default_factory=queue.Queue)
    comments: list = field(default_factory=list)
    status: int | None = None
    ended: threading.Event = field(default_factory=threading.Event)
    opened: threading.Event = field(default_factory=threading.Event)
    body: str = ""
    headers: dict = field(default_factory=dict)

    def start(self) -> Listener:
        threading.Thread(target=self._run, daemon=True).start()
        assert self.opened.wait(10), "the stream did not answer"
        return self

    def _run(self) -> None:
        # http.client, so that close() can shut the socket from another thread (a blocked read
        # then ends, and the server sees the client leave).
        url = urlsplit(self.url)
        self._conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        try:
            self._conn.request("GET", url.path + (f"?{url.query}" if url.query else ""), headers=self.headers)
            r = self._conn.getresponse()
            if r.status != 200:
                self.body = r.read().decode()
            self.status = r.status
            self.headers = {k.lower(): v for k, v in r.getheaders()}
            if r.status != 200:
                self.opened.set()
                return
            self._conn.sock.settimeout(None)
            # The stream subscribes before its first line: once it is read, events reach it.
            first = r.readline().decode()
            assert first.startswith("retry:"), first
            r.readline()
            self.opened.set()
            fields: dict = {}
            while True:
                raw = r.readline()
                if not raw:
                    return
                line = raw.decode().rstrip("\r\n")
                if line == "":
                    if "event" in fields:
                        self.events.put(Event(fields["event"], json.loads(fields.get("data", "{}")), fields.get("id")))
                    fields = {}
                elif line.startswith(":"):
                    self.comments.append((time.monotonic(), line))
                else:
                    name, _, value = line.partition(":")
                    fields[name] = value[1:] if value.startswith(" ") else value
        except (OSError, ValueError, http.client.HTTPException):
            pass
        finally:
            self.opened.set()
            self.ended.set()

    def next(self, timeout: float = 5.0) -> Event:
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s") from None

    def until(self, kind: str, timeout: float = 5.0) -> Event:
        """The next event of `kind`, skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            ev = self.next(max(0.01, deadline - time.monotonic()))
            if ev.kind == kind:
                return ev

    def silent(self, seconds: float = 0.6) -> None:
        try:
            ev = self.events.get(timeout=seconds)
        except queue.Empty:
            return
        raise AssertionError(f"expected silence, got {ev}")

    def drain(self) -> list[Event]:
        found = []
        while not self.events.empty():
            found.append(self.events.get_nowait())
        return found

    def close(self) -> None:
        sock = getattr(getattr(self, "_conn", None), "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.ended.wait(5)
        self._conn.close()


@pytest.fixture
def listen(stream_server):
    """`listen(cid, headers, **query)` opens a stream and returns its Listener."""
    opened = []

    def open_(cid: int, headers: dict, query: str = "") -> Listener:
        listener = Listener(f"{stream_server}/api/v1/campaigns/{cid}/stream{query}", headers).start()
        opened.append(listener)
        return listener

    yield open_
    for listener in opened:
        listener.close()
    # The server lets go of each stream as its client leaves; wait for that, so that no stream
    # still reads while the next test empties the tables (or counts against a user's cap).
    from app.core.live import broker

    deadline = time.monotonic() + 10
    while broker.count() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert broker.count() == 0, "a stream outlived its client"

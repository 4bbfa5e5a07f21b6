"""A TestClient whose requests cross into the app's event loop once.

Starlette's own transport makes about ten calls across threads for every request (an event,
a stream, a cancel scope, the task, the wait, each body chunk, the close), each one waking
the portal's loop: 2–3 ms a request, more than most of the app's own answers cost and about
a third of the suite's time (issue 31). Here a request is one call into the portal: the app
runs with a receive and a send that gather the whole answer, which comes back at once.

What it cannot gather (an answer that never ends, a websocket, a client that does not raise
the app's errors) goes through Starlette's transport as before: the live stream's path
(its tests read it from a real server, tests/api/live_helpers.py), websockets, and a client
made with raise_server_exceptions=False."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import unquote

import httpx
from starlette.testclient import TestClient


class _OneHop(httpx.BaseTransport):
    def __init__(self, inner: Any, owner: TestClient) -> None:
        self.inner = inner
        self.owner = owner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        portal = self.owner.portal
        if (
            portal is None
            or request.url.scheme not in ("http", "https")
            or request.url.path.endswith("/stream")
            or not self.inner.raise_server_exceptions
        ):
            return self.inner.handle_request(request)
        status, headers, body, debug = portal.call(self._run, request, self._scope(request))
        response = httpx.Response(status, headers=headers, stream=httpx.ByteStream(body), request=request)
        if debug is not None:
            response.extensions["http.response.debug"] = debug
        return response

    def _scope(self, request: httpx.Request) -> dict[str, Any]:
        """The scope Starlette's transport builds, for the same request."""
        url = request.url
        headers = [] if "host" in request.headers else [(b"host", url.netloc)]
        headers += [(key.lower().encode(), value.encode()) for key, value in request.headers.multi_items()]
        return {
            "type": "http",
            "http_version": "1.1",
            "method": request.method,
            "path": unquote(url.path),
            "raw_path": url.raw_path.split(b"?", 1)[0],
            "root_path": self.inner.root_path,
            "scheme": url.scheme,
            "query_string": url.query,
            "headers": headers,
            "client": self.inner.client,
            "server": [url.raw_host.decode("ascii"), url.port or {"http": 80, "https": 443}[url.scheme]],
            "extensions": {"http.response.debug": {}},
            "state": self.inner.app_state.copy(),
        }

    async def _run(self, request: httpx.Request, scope: dict[str, Any]):
        body = request.read()
        sent = False
        done = asyncio.Event()
        start: dict[str, Any] = {}
        chunks: list[bytes] = []
        debug: dict[str, Any] | None = None

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body}
            await done.wait()  # an app listening for the client to leave hears it once it has answered
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal debug
            kind = message["type"]
            if kind == "http.response.start":
                assert not start, 'Received multiple "http.response.start" messages.'
                start.update(message)
            elif kind == "http.response.body":
                assert start, 'Received "http.response.body" without "http.response.start".'
                chunks.append(bytes(message.get("body", b"")))
                if not message.get("more_body", False):
                    done.set()
            elif kind == "http.response.debug":
                debug = message["info"]

        try:
            await self.owner.app(scope, receive, send)
        finally:
            done.set()
        if not start:
            raise AssertionError("TestClient did not receive any response.")
        headers = [(key.decode(), value.decode()) for key, value in start.get("headers", [])]
        content = b"" if request.method == "HEAD" else b"".join(chunks)
        return start["status"], headers, content, debug


class OneHopClient(TestClient):
    """starlette.testclient.TestClient, one thread crossing a request (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._transport = _OneHop(self._transport, self)
        # Pages and answers come back as drawn: the app does not compress what the client would
        # only decompress again (issue 31: a tenth of a page's cost in the suite). A test of
        # compression asks for gzip itself (tests/web/test_http_caching.py); the browser tests and
        # the servers of tests/load speak gzip as browsers and clients do.
        self.headers["accept-encoding"] = "identity"

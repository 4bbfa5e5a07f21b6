"""What a browser may keep of an answer, and how it revalidates a page (issue 17, issue 27
item 7, issue 28 item 10; SPEC R11.2).

- A campaign page's ETag is a digest of the page as drawn for this viewer: it changes exactly
  when what the viewer receives changes, never because something hidden from them changed (an
  ETag made of the campaign's change counters told a phone polling its dashboard whenever
  another player sent a secret order, bought, or was paid by the GM). A request whose
  If-None-Match names it gets a 304 without the body. Issue 37: where the viewer's key shows
  that nothing they may see has changed since the page was drawn for the same request, the
  304 comes from memory without the route (app/core/revalidation.py); the key moves only with
  what the viewer may see, so that work, too, is the same whatever others did in secret.
- Whatever is drawn for someone logged in, carries a flash message (a new API token is shown
  in one) or hands out a token answers `private, no-store`: no shared cache and no browser
  cache keeps it (the service worker's offline copies live in the Cache API, which is not an
  HTTP cache and is emptied at logout). Answers that say otherwise themselves (static files,
  map images under hashed URLs, the live stream, exports) keep their own word; HTML pages are
  always overridden.
"""

from __future__ import annotations

import hashlib
import time

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.logging import REQUEST_ID_HEADER, log_answered, request_id_of
from app.core.revalidation import STATE, Revalidations, Unchanged

NO_STORE = "private, no-store"
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
FAILED = "hideout_revalidation_failed"  # the suite's check, raised once the page is sent
# Dropped from a 304: it has no body (RFC 9110 15.4.5 keeps ETag, Cache-Control, Vary, cookies).
BODY_HEADERS = {"content-type", "content-length", "content-encoding"}


def body_etag(body: bytes) -> str:
    """Weak: GZipMiddleware (outside) sends the same page compressed or not."""
    return 'W/"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _matches(if_none_match: str, etag: str) -> bool:
    """Weak comparison (RFC 9110 13.1.2), as a cache revalidates with either form."""
    wanted = etag.removeprefix("W/")
    return any(tag.strip() == "*" or tag.strip().removeprefix("W/") == wanted for tag in if_none_match.split(","))


def _private(scope: Scope) -> bool:
    state = scope.get("state") or {}
    if state.get("user") is not None or state.get("flash_taken"):
        return True
    # POST /api/v1/auth/tokens answers a new token to someone not (yet) logged in.
    return scope.get("method") in WRITE_METHODS


class PageCache:
    """Pure ASGI, outside the cookies-and-headers middleware (so that a 304 keeps its cookies
    and security headers) and inside compression (so that the digest is of the page itself)."""

    def __init__(self, app: ASGIApp, revalidations: Revalidations | None = None) -> None:
        self.app = app
        self.revalidations = revalidations

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.revalidations is not None and await self._unchanged(scope, send):
            return
        start: Message | None = None
        chunks: list[bytes] = []

        async def send_cached(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                html = headers.get("content-type", "").startswith("text/html")
                if _private(scope) and (html or "cache-control" not in headers):
                    headers["Cache-Control"] = NO_STORE
                if html and message["status"] == 200 and (scope.get("state") or {}).get("page_etag"):
                    start = message  # held until the whole page is drawn
                    return
                await send(message)
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            await _send_page(scope, start, b"".join(chunks), send, self.revalidations)

        await self.app(scope, receive, send_cached)
        if (scope.get("state") or {}).get(FAILED):
            raise scope["state"][FAILED]

    async def _unchanged(self, scope: Scope, send: Send) -> bool:
        """Answers 304 from memory where the page is known unchanged for this viewer
        (app/core/revalidation.py); otherwise leaves the request's keys for `_send_page`."""
        assert self.revalidations is not None
        started = time.perf_counter()
        asked = _asked(scope)
        key = await self.revalidations.key(scope, bool(asked))
        if key is None:
            return False
        drawn = self.revalidations.unchanged(key, scope["app"].state.settings.revalidation_check)
        if drawn is None or not _matches(asked, drawn.etag):
            scope.setdefault("state", {})[STATE] = key
            return False
        request_id = request_id_of(scope)
        headers = [
            *drawn.headers,
            (b"etag", drawn.etag.encode("latin-1")),
            (REQUEST_ID_HEADER.lower().encode(), request_id.encode()),
        ]
        await send({"type": "http.response.start", "status": 304, "headers": headers})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        log_answered(scope, 304, started, request_id)
        return True


def page_etag_of(scope: Scope, body: bytes) -> str:
    """The page's ETag: of its bytes alone (tests put back an ETag of other things here, to
    see the differential secrecy walk fail)."""
    return body_etag(body)


def _asked(scope: Scope) -> str:
    return dict(scope.get("headers") or []).get(b"if-none-match", b"").decode("latin-1")


def _unbodied(headers: list) -> list:
    return [(k, v) for k, v in headers if k.decode("latin-1").lower() not in BODY_HEADERS]


async def _send_page(scope: Scope, start: Message, body: bytes, send: Send, revalidations: Revalidations | None) -> None:
    headers = MutableHeaders(scope=start)
    etag = headers["ETag"] = page_etag_of(scope, body)
    asked = _asked(scope)
    state = scope.get("state") or {}
    key = state.get(STATE)
    if revalidations is not None and key is not None and not state.get("timely") and "set-cookie" not in headers:
        kept = [(k, v) for k, v in _unbodied(start["headers"]) if k != REQUEST_ID_HEADER.lower().encode()]
        try:
            revalidations.remember(key, etag, body, kept, scope["app"].state.settings.revalidation_check)
        except Unchanged as stale:  # raised once the page is sent: a layer inside would log it away
            state[FAILED] = stale
    if asked and _matches(asked, etag):
        start["status"] = 304
        start["headers"] = _unbodied(start["headers"])
        body = b""
    await send(start)
    await send({"type": "http.response.body", "body": body, "more_body": False})

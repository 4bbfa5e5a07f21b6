"""Logs through structlog: one line per request, JSON lines or readable console lines.

`configure_logging` routes structlog and the standard library (uvicorn, SQLAlchemy
warnings) through one handler on stderr. `RequestLogMiddleware` gives every request an id
(an incoming `X-Request-ID` when it is a short safe token), binds it to every log line of
the request, answers with it in `X-Request-ID`, writes one `request` line (method, path,
status, time in ms) and turns an unexpected exception into the 500 answer, logging its
traceback once and without local variables.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
import secrets
import sys
import time
from collections.abc import Awaitable, Callable

import structlog
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from structlog.typing import Processor

REQUEST_ID_HEADER = "X-Request-ID"
_SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# A path that is itself a credential (a one-tap confirm link, R12.2) is logged without it.
_SECRET_PATH = re.compile(r"^(/confirm/)[^/]+")


def logged_path(path: str) -> str:
    return _SECRET_PATH.sub(r"\1…", path)


log = structlog.get_logger("hideout")
_STD = logging.getLogger("hideout")
_LEVELS = {"info": logging.INFO, "error": logging.ERROR}


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the moment (a test may capture it)."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self):  # type: ignore[override]
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def configure_logging(*, json: bool = False, level: str = "INFO") -> None:
    """Idempotent: a second call replaces the first one's handler."""
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[structlog.stdlib.filter_by_level, *shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    if json:
        # format_exc_info writes the plain traceback text: frames and source lines, never
        # the values of local variables (which may hold passwords or tokens).
        final: list[Processor] = [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
    else:
        final = [structlog.dev.ConsoleRenderer(colors=False, exception_formatter=structlog.dev.plain_traceback)]
    handler = _StderrHandler()
    handler.hideout = True  # type: ignore[attr-defined]
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *final],
        )
    )
    global _request_line
    _request_line = (handler, (*shared, *final))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "hideout", False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # Requests are logged once, by RequestLogMiddleware; outgoing HTTP (webhooks) only
    # when something goes wrong.
    logging.getLogger("uvicorn.access").disabled = True
    logging.getLogger("httpx").setLevel(logging.WARNING)


# The request line's handler and its whole chain of processors (`configure_logging`).
_request_line: tuple[logging.Handler, tuple[Processor, ...]] | None = None


def _log_request(method_name: str, **fields) -> None:
    """The request line, as `log.info("request", ...)` (or `log.error`) writes it, the same
    text from the same processors, written to the handler's stream at once: the standard
    library's way there (two log records, the caller's frame, the formatter's copy) was about
    half of the line's cost, and every request writes one (issue 37)."""
    if _request_line is None:
        (log.error if method_name == "error" else log.info)("request", **fields)
        return
    if not _STD.isEnabledFor(_LEVELS[method_name]):
        return
    handler, processors = _request_line
    event: dict = {**fields, "event": "request"}
    for processor in processors:
        event = processor(_STD, method_name, event)  # type: ignore[assignment]
    handler.acquire()
    try:
        handler.stream.write(f"{event}{handler.terminator}")  # type: ignore[attr-defined]
        handler.flush()
    finally:
        handler.release()


def log_request_line(scope, status: int, started: float) -> None:
    """The request line every answer writes: an error's at the error level."""
    duration_ms = round((time.perf_counter() - started) * 1000, 1)
    _log_request(
        "error" if status >= 500 else "info",
        method=scope["method"],
        path=logged_path(scope["path"]),
        status=status,
        duration_ms=duration_ms,
    )


def log_answered(scope, status: int, started: float, request_id: str) -> None:
    """The request line of an answer given outside `RequestLogMiddleware` (a page's cheap
    revalidation, app/core/page_cache.py), with the request's id as that middleware binds it."""
    with structlog.contextvars.bound_contextvars(request_id=request_id):
        log_request_line(scope, status, started)


def request_id_of(scope) -> str:
    """The request's id: the one it brought, if safe to log, or a new one."""
    incoming = dict(scope.get("headers") or []).get(REQUEST_ID_HEADER.lower().encode())
    return request_id_for(incoming.decode("latin-1") if incoming else None)


def request_id_for(incoming: str | None) -> str:
    if incoming and _SAFE_REQUEST_ID.fullmatch(incoming):
        return incoming
    return secrets.token_hex(8)


ErrorAnswer = Callable[[Request, str], Response | Awaitable[Response]]


class RequestLogMiddleware:
    """Pure ASGI, so it sees the exception before Starlette's outermost error layer (which
    would re-raise it to the server, logging the traceback a second time)."""

    def __init__(self, app: ASGIApp, on_error: ErrorAnswer) -> None:
        self.app = app
        self.on_error = on_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        with structlog.contextvars.bound_contextvars(request_id=request_id):
            try:
                await self.app(scope, receive, send_with_id)
            except Exception:
                log.exception("unhandled_error", method=scope["method"], path=logged_path(scope["path"]))
                status = 500
                if not response_started:
                    await self._answer_error(scope, receive, send_with_id, request_id)
            except asyncio.CancelledError:
                # The server's graceful stop ran out of time with this request unfinished: it gets
                # the error body rather than uvicorn's bare 500. (A write may still have been
                # committed by its worker thread, so the message does not say nothing was done.)
                status = 503
                if not response_started:
                    await self._answer_error(scope, receive, send_with_id, request_id, "server_stopping")
                raise
            finally:
                log_request_line(scope, status, started)

    async def _answer_error(
        self, scope: Scope, receive: Receive, send: Send, request_id: str, code: str = "internal_error"
    ) -> None:
        try:
            response = self.on_error(Request(scope, receive), code)
            if inspect.isawaitable(response):
                response = await response
        except Exception:
            log.exception("error_page_failed")
            response = PlainTextResponse(f"Internal server error (request {request_id}).", status_code=500)
        await response(scope, receive, send)

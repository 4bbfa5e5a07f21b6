"""Where a page request's CPU goes, part by part (issue 37): bench.report's campaign (40 players
in Battles) and its map of 300 places, as their GM, each page drawn, sent straight to the app's
ASGI callable as bench/request_cpu.py sends it. Each part is timed with `time.thread_time()`
(its own thread's CPU, whatever the other threads do) by wrappers put around it for this run:

- the event loop's thread: the middleware layers' own work (the outermost layer's time less
  the router's), within it the request's log line; FastAPI's solving of the route's
  dependencies; sending the answer out through the layers (gzip, the ETag, headers);
- the route's worker thread (the route, its login, its reads, its template), and within it the
  login (`lookup_session`: its statement, the ORM making its rows into objects, the session's
  connection), the route's statements and those the template asks for as it draws (a
  statement: `Connection.execute`, SQLAlchemy's work and the driver's), the template's
  drawing, and the rest of the route's own work (its rows made into the page's values, the
  rules, ending the unit of work).

A part's figure is its CPU per request; an indented part is a part of the one above it. The
loop's thread less its parts is routing, FastAPI's handler and the thread hop's bookkeeping;
the whole request less the two threads is the event loop's own scheduling and the bench's
scaffolding. The wrappers cost a few microseconds each: read the shares, and compare figures
of one run.

Run: `python -m bench.request_split [--requests 500] [--page dashboard ...]` (printed by
`make bench`).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import fastapi.routing
from sqlalchemy.engine import Connection

import app.core.db
import app.core.logging
from app.accounts import service as accounts
from app.core.template_output import OutputTemplate
from bench.common import page_table
from bench.request_cpu import _get, _gm_pages

PARTS = (
    ("the event loop's thread", "loop"),
    ("  the middleware layers' own work", "middleware"),
    ("    the request's log line", "log line"),
    ("  solving the route's dependencies", "dependencies"),
    ("  sending the answer (gzip, ETag, headers)", "sending"),
    ("the route's worker thread", "worker"),
    ("  the login", "login"),
    ("    its statement", "statements in login"),
    ("  the route's statements", "statements in worker"),
    ("  drawing the template", "template"),
    ("    the statements it asks for as it draws", "statements in template"),
    ("  the rest of the route's own work", "rest"),
)


class Split:
    """The CPU each part took, in seconds, summed over the requests since `spent.clear()`. A
    part timed inside another part of its thread is also counted as "part in outer"."""

    def __init__(self) -> None:
        self.spent: Counter[str] = Counter()
        self._open = threading.local()

    def timed(self, part: str, work: Callable) -> Callable:
        @functools.wraps(work)
        def run(*args, **kwargs):
            outer = getattr(self._open, "part", None)
            self._open.part = part
            start = time.thread_time()
            try:
                return work(*args, **kwargs)
            finally:
                spent = time.thread_time() - start
                self._open.part = outer
                self.spent[part] += spent
                if outer is not None:
                    self.spent[f"{part} in {outer}"] += spent

        return run

    def timed_async(self, part: str, work: Callable) -> Callable:
        async def run(*args, **kwargs):
            start = time.thread_time()
            try:
                return await work(*args, **kwargs)
            finally:
                self.spent[part] += time.thread_time() - start

        return run


@contextmanager
def _patched(split: Split) -> Iterator[None]:
    """The wrappers around the parts that are functions of a module or methods of a class, put
    back as they were afterwards (the suite runs the quick form among other tests)."""
    to_thread = app.core.db.run_in_threadpool

    async def in_worker(work, *args, **kwargs):
        return await to_thread(split.timed("worker", work), *args, **kwargs)

    wrapped = [
        (accounts, "lookup_session", split.timed("login", accounts.lookup_session)),
        (OutputTemplate, "render", split.timed("template", OutputTemplate.render)),
        (Connection, "execute", split.timed("statements", Connection.execute)),
        (app.core.logging, "_log_request", split.timed("log line", app.core.logging._log_request)),
        (fastapi.routing, "solve_dependencies", split.timed_async("dependencies", fastapi.routing.solve_dependencies)),
        (app.core.db, "run_in_threadpool", in_worker),
    ]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in wrapped]
    for owner, name, wrapper in wrapped:
        setattr(owner, name, wrapper)
    try:
        yield
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def _wrap_stack(asgi_app, split: Split) -> None:
    """The loop's share: the whole stack, and the router (the innermost layer) with the `send`
    it is given timed, so that the layers' own work is the difference."""
    outermost = asgi_app.middleware_stack
    asgi_app.middleware_stack = split.timed_async("loop", outermost)
    layer = outermost
    while not isinstance(layer.app, fastapi.routing.APIRouter):
        layer = layer.app
    router = layer.app
    sending = split.timed_async("sending", lambda send, message: send(message))
    layer.app = split.timed_async("router", lambda scope, receive, send: router(scope, receive, functools.partial(sending, send)))


async def measure(pages: dict[str, str], asgi_app, headers: list, requests: int, split: Split) -> dict[str, dict]:
    figures = {}
    for name, path in pages.items():
        for i in range(5):  # warm-up: templates compiled, statements cached
            assert await _get(asgi_app, headers, path, f"warm={i}".encode()) == 200, name
        split.spent.clear()
        start = time.process_time()
        for i in range(requests):
            await _get(asgi_app, headers, path, f"bench={i}".encode())
        process = time.process_time() - start
        spent = dict(split.spent)
        spent["middleware"] = spent.get("loop", 0) - spent.get("router", 0)
        worker_parts = ("login", "statements in worker", "template")
        spent["rest"] = spent.get("worker", 0) - sum(spent.get(part, 0) for part in worker_parts)
        figures[name] = {"process": process / requests, **{k: v / requests for k, v in spent.items()}}
    return figures


def _table(figures: dict[str, dict]) -> list[str]:
    rows = [("the whole request (every thread)", lambda name: figures[name]["process"] * 1000)]
    rows += [(label, lambda name, key=key: figures[name].get(key, 0) * 1000) for label, key in PARTS]
    return page_table("CPU per request, ms (as the GM)", list(figures), rows, 48, 12)


def main(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--page", action="append", help="only these pages (dashboard, battles, players, …, map)")
    args = parser.parse_args(argv)
    asgi_app, pages, headers = _gm_pages()
    if args.page:
        pages = {name: path for name, path in pages.items() if any(p in name for p in args.page)}
    split = Split()
    _wrap_stack(asgi_app, split)
    with _patched(split):
        lines = _table(asyncio.run(measure(pages, asgi_app, headers, args.requests, split)))
    print("\n".join(lines))
    return lines


if __name__ == "__main__":
    main()

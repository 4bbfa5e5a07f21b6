"""Where a campaign page's CPU goes, each part measured by what it adds (issue 37): bench.report's
campaign (40 players in Battles) and its map of 300 places, as their GM, each request sent
straight to the app's ASGI callable and timed with `time.process_time()` (every thread).

A profiler, or a timer wrapped around a part, charges a part with what happens to run beside
it: an asynchronous part's timer runs on while the event loop serves others, and a sampling
profiler's samples land wherever a thread waits for the GIL (both made the login look three
times what it costs). Here a part's cost is what the whole request costs more with it:

- the fixed costs: a synchronous route through the app's middleware; a campaign page that
  answers as soon as its login has read the viewer (its unit of work, the login's statement,
  the CSRF check, the ending);
- each page drawn with its reads remembered, and drawn after a change every member sees (none
  remembered): the difference is what its reads cost;
- the login again, the page's template again, and the campaign layout alone (its head, tabs
  and footer around an empty page) drawn once more in the same request, with the page's values:
  what each adds is its cost (a second login finds its rows in the session: a lower bound);
- the page answered through FastAPI's request handler instead of the lean one
  (app/core/lean_routes.py), and its template's pieces passed up through every template it
  extends instead of joined where written (app/core/template_output.py `_joined`): what each
  adds is what the lean handler and the joined pieces spare.

Run: `python -m bench.page_parts [--requests 600]` (printed by `make bench`).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager

from jinja2 import ChoiceLoader, DictLoader

from app.accounts import service as accounts
from app.core import lean_routes, template_output, templating
from app.core.template_output import OutputTemplate
from app.versions import remembered
from bench import request_cpu
from bench.common import page_table, seated_route
from bench.request_cpu import _get, _gm_pages

_LAYOUT_ALONE = "bench/layout_alone.html"
# What each part's row adds to a request: the part done a second time; or done as it was before
# issue 37 made it cheaper.
_AGAIN = ("login", "template", "layout")
_INSTEAD = ("fastapi", "pieces")


class _Again:
    """Which part the patched functions do once more, or the older way (None: none)."""

    part: str | None = None


def _fixed_routes(app) -> dict[str, str]:
    return {"sync": request_cpu._fixed_routes(app)["a synchronous route"], "seated": seated_route(app)}


@contextmanager
def _patched() -> Iterator[None]:
    login, render, loader = accounts.lookup_session, OutputTemplate.render, templating.env.loader
    lean_id, joined = lean_routes._id, template_output._joined

    def read_id(value):
        return None if _Again.part == "fastapi" else lean_id(value)  # None: FastAPI's handler answers

    def joined_or_not(block):
        # Chosen per call, without a generator of its own: unjoined, the pieces pass up exactly
        # as Jinja's own blocks pass them. Templates loaded under the loader below use it.
        whole = joined(block)
        return functools.wraps(block)(lambda context: block(context) if _Again.part == "pieces" else whole(context))

    def lookup_session(*args, **kwargs):
        if _Again.part == "login":
            login(*args, **kwargs)
        return login(*args, **kwargs)

    def draw(template, *args, **kwargs):
        if _Again.part == "template":
            render(template, *args, **kwargs)
        elif _Again.part == "layout" and template.name != _LAYOUT_ALONE:
            render(templating.env.get_template(_LAYOUT_ALONE), *args, **kwargs)
        return render(template, *args, **kwargs)

    accounts.lookup_session, OutputTemplate.render = lookup_session, draw  # type: ignore[method-assign]
    lean_routes._id, template_output._joined = read_id, joined_or_not
    alone = '{% extends "campaigns/_layout.html" %}{% block campaign %}{% endblock %}'
    templating.env.loader = ChoiceLoader([DictLoader({_LAYOUT_ALONE: alone}), loader])
    try:
        yield
    finally:
        accounts.lookup_session, OutputTemplate.render, templating.env.loader = login, render, loader  # type: ignore[method-assign]
        lean_routes._id, template_output._joined = lean_id, joined


async def _one(app, headers: list, path: str, i: int, run: str) -> float:
    """One request's CPU milliseconds, its part done again as `run` says."""
    _Again.part = run if run in (*_AGAIN, *_INSTEAD) else None
    try:
        if run == "cold":
            remembered.memory.forget()  # as after a change every member sees
        start = time.process_time()
        await _get(app, headers, path, f"bench={i}".encode())
        return (time.process_time() - start) * 1000
    finally:
        _Again.part = None


async def measure(requests: int) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Each figure a median of `requests` requests, every kind of request of a page in turn,
    request by request: the host's slower and faster stretches weigh on each alike (medians of
    runs of a kind were as far apart as the parts measured)."""
    app, pages, headers = _gm_pages()
    cid = next(iter(pages.values())).split("/")[2]
    fixed = {name: path.replace("{cid}", cid) for name, path in _fixed_routes(app).items()}
    runs = ("warm", "cold", *_AGAIN, *_INSTEAD)
    median = statistics.median
    with _patched():
        for path in (*fixed.values(), *pages.values()):
            assert await _get(app, headers, path) == 200, path
        found_fixed: dict[str, list[float]] = {name: [] for name in fixed}
        found = {}
        for name, path in pages.items():
            times: dict[str, list[float]] = {run: [] for run in runs}
            for i in range(requests):
                for run in runs:
                    times[run].append(await _one(app, headers, path, i, run))
                for fixed_name, fixed_path in fixed.items():
                    found_fixed[fixed_name].append(await _one(app, headers, fixed_path, i, "warm"))
            found[name] = {run: median(values) for run, values in times.items()}
    return {name: median(values) for name, values in found_fixed.items()}, found


def table(fixed: dict[str, float], pages: dict[str, dict[str, float]]) -> list[str]:
    seated = fixed["seated"]
    rows = [
        ("drawn after a change (nothing remembered)", lambda f: f["cold"]),
        ("drawn, its reads remembered", lambda f: f["warm"]),
        ("  a synchronous route through the app", lambda f: fixed["sync"]),
        ("  a campaign page's login and viewer alone", lambda f: seated),
        ("  of which the login's statement, at least", lambda f: f["login"] - f["warm"]),
        ("  the template", lambda f: f["template"] - f["warm"]),
        ("    of which the layout around the page", lambda f: f["layout"] - f["warm"]),
        ("  the rest of the route's work", lambda f: f["warm"] - seated - (f["template"] - f["warm"])),
        ("the reads remembered (after a change less drawn)", lambda f: f["cold"] - f["warm"]),
        ("spared by the lean handler (FastAPI's, less it)", lambda f: f["fastapi"] - f["warm"]),
        ("spared by the joined pieces (unjoined, less it)", lambda f: f["pieces"] - f["warm"]),
    ]
    figures = [(text, lambda name, figure=figure: figure(pages[name])) for text, figure in rows]
    return page_table("CPU per request, ms (GM, every thread)", list(pages), figures, 50, 11)


def main(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=600)
    args = parser.parse_args(argv)
    lines = table(*asyncio.run(measure(args.requests)))
    print("\n".join(lines))
    return lines


if __name__ == "__main__":
    main()

"""CPU per request, in process, with no client (issue 37): the demo campaign's pages for a
logged-in player (`anna`), each drawn (a query parameter of its own per request), sent straight
to the app's ASGI callable; `time.process_time()` counts every thread of the process (the worker
threads a route runs in included). No client's own work is in the figures, so they move by a
few per cent from run to run, where the ratios of `bench.report` (through Starlette's TestClient)
move by tens.

The first rows are the fixed costs a page is made of: a route alone through the middleware, a
synchronous route (one thread crossing), and a route behind the page login.

Run: `python -m bench.request_cpu [--requests 300] [--rounds 3] [--gm]` (printed by `make bench`);
`--gm`: the pages of bench.report's campaign (40 players in Battles) and its map of 300 places,
as their GM, instead; `--api`: its GM's reads of the API, with an API token.
"""

from __future__ import annotations

import argparse
import asyncio
import time

import httpx
from fastapi.responses import PlainTextResponse

from app.accounts.deps import PageLogin
from app.core.db import ended_in_route
from bench.common import GM, PASSWORD, logged_in_gm
from bench.large_campaign import build_map, build_round
from bench.profile_pages import _login, demo_app


def _fixed_routes(app) -> dict[str, str]:
    """Routes that do nothing but what their dependencies do, for the fixed costs."""

    @app.get("/bench/async")
    async def bench_async():
        return PlainTextResponse("ok")

    @app.get("/bench/sync")
    def bench_sync():
        return PlainTextResponse("ok")

    # Wrapped as the app's own routes are (app/main.py): the login is read in the route's thread.
    @app.get("/bench/login")
    @ended_in_route
    def bench_login(user: PageLogin):
        return PlainTextResponse(user.nickname)

    return {"a route alone": "/bench/async", "a synchronous route": "/bench/sync", "behind the page login": "/bench/login"}


async def _cookie(app) -> bytes:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as client:
        await _login(client)
        return "; ".join(f"{k}={v}" for k, v in client.cookies.items()).encode()


async def _get(app, headers: list, path: str, query: bytes = b"") -> int:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("testserver", 80),
        "state": {},
    }
    asked = False

    async def receive():
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client never leaves: the answer ends the request

    status = []

    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])

    await app(scope, receive, send)
    return status[0]


def _cookie_headers(cookie: bytes) -> list:
    return [(b"host", b"testserver"), (b"cookie", cookie), (b"accept-encoding", b"gzip")]


def _gm_pages() -> tuple[object, dict[str, str], list]:
    """`--gm`: bench.report's campaign (40 players in Battles) and its pages, and its map of 300
    places and 600 paths, as their GM."""
    app, client = logged_in_gm()
    cid, _ = build_round(app.state.engine, gm_nickname=GM, players=40)
    map_cid = build_map(app.state.engine, gm_nickname=GM, places=300, paths=600, players=20)
    client.get("/")  # the login's flash message
    tabs = ("", "/battles", "/players", "/chronicle", "/orders")
    pages = {f"GM, 40 players: {tab.strip('/') or 'dashboard'}": f"/campaigns/{cid}{tab}" for tab in tabs}
    pages["GM, map of 300 places"] = f"/campaigns/{map_cid}/map"
    return app, pages, _cookie_headers("; ".join(f"{k}={v}" for k, v in client.cookies.items()).encode())


def _api_reads() -> tuple[object, dict[str, str], list]:
    """`--api`: the GM's API reads of bench.report's campaign, with an API token."""
    app, client = logged_in_gm()
    cid, _ = build_round(app.state.engine, gm_nickname=GM, players=40)
    token = client.post("/api/v1/auth/tokens", json={"nickname": GM, "password": PASSWORD}).json()["token"]
    tails = ("", "/players", "/battles", "/orders", "/chronicle", "/places")
    reads = {"API: /me": "/api/v1/me"} | {f"API: campaign{tail}": f"/api/v1/campaigns/{cid}{tail}" for tail in tails}
    return app, reads, [(b"host", b"testserver"), (b"authorization", f"Bearer {token}".encode()), (b"accept-encoding", b"gzip")]


async def measure(requests: int, rounds: int, gm: bool = False, api: bool = False) -> dict[str, list[float]]:
    """Each page's CPU milliseconds per request, one figure a round."""
    if api:
        app, pages, headers = _api_reads()
    elif gm:
        app, pages, headers = _gm_pages()
    else:
        app, cid = demo_app()
        pages = {
            **_fixed_routes(app),
            "map": f"/campaigns/{cid}/map",
            "dashboard": f"/campaigns/{cid}",
            "chronicle": f"/campaigns/{cid}/chronicle",
        }
        headers = _cookie_headers(await _cookie(app))
    for name, path in pages.items():
        assert await _get(app, headers, path) == 200, name
    figures: dict[str, list[float]] = {name: [] for name in pages}
    for _ in range(rounds):
        for name, path in pages.items():
            start = time.process_time()
            for i in range(requests):
                await _get(app, headers, path, f"bench={i}".encode())
            figures[name].append((time.process_time() - start) / requests * 1000)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gm", action="store_true", help="bench.report's 40-player campaign and 300-place map, as their GM")
    parser.add_argument("--api", action="store_true", help="the GM's API reads of bench.report's campaign")
    args = parser.parse_args(argv)
    figures = asyncio.run(measure(args.requests, args.rounds, args.gm, args.api))
    title = (
        "CPU per request, the GM's API"
        if args.api
        else "CPU per request, as the GM"
        if args.gm
        else "CPU per request, demo campaign as a player"
    )
    print(f"{title:<44} {'ms (min / median of rounds)':>28}")
    for name, values in figures.items():
        values.sort()
        print(f"{name:<44} {values[0]:>13.2f} / {values[len(values) // 2]:.2f}")


if __name__ == "__main__":
    main()

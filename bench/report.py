"""One table of the ratios issue 17 asks for, each measured side by side in one run (timings
on a shared machine are noisy; ratios of interleaved runs much less so):

- page ÷ bare route, in process (one TestClient for both, its loop and threads; a request to
  the bare route before each request to the page, each figure a median): the main pages of a
  40-player campaign in Battles, and the map of 300 places and 600 paths, against a bare
  FastAPI route returning a small dict; each page drawn, drawn after a change, loaded again
  unchanged and revalidated (304): drawn, with the reads its viewer's pages share remembered
  while nothing they may see has changed (app/versions/remembered.py); drawn after a change,
  with none remembered (the first drawing after a change every member sees); loaded again, it
  is drawn again; revalidated, it is answered from memory while nothing its viewer may see
  has changed (app/core/revalidation.py; the memories' keys move only for those who may see a
  change, so their timing tells nobody of a secret, R11.2);
- a campaign page that answers as soon as its login has read the viewer ÷ bare route: the floor
  under every page's figures above (its unit of work, the login's statement, the CSRF check,
  the ending), which a page's reads and template add to (`python -m bench.page_parts`);
- first load and repeat visit, in bytes, as a browser that accepts gzip fetches them: the
  page and its static files, then again with the ETag and the cached immutable files;
- announcing battles for 2,000 and 4,000 warbands (300 and 600 destinations), and the ratio.

The bare route's figure is mostly the test client's own work (its thread, the event loop's,
a worker thread's), and it moves with where the kernel runs those threads: about 1.0–1.3 ms when
they share a CPU, 1.8–2.5 ms when they are spread over two (`taskset -c 0` holds the first
case). A page pays the same crossings on top of its own 2–3 ms of CPU, so its ratio is highest
when the threads share a CPU: read the ratios with the bare route's figure beside them.

Run: `python -m bench.report` (printed by `make bench`); `--quick` runs a small form of every
measure (the test suite runs it so the bench cannot rot; its figures mean nothing). Read each ratio, not the times: a
page at 2.0 costs twice the bare route in the same run; an announce ratio near 2.0 is linear.
"""

from __future__ import annotations

import re
import shutil
import statistics
import sys
import time

from fastapi import FastAPI
from starlette.testclient import TestClient

from app.versions import remembered
from bench import announce
from bench.common import logged_in_gm, seated_route
from bench.large_campaign import build_map, build_round

ROUNDS = 41  # an odd count: the median is one request's time
# The full sizes, and the quick form's (players, places, paths, warbands, destinations, rounds).
FULL = (40, 300, 600, announce.WARBANDS, announce.DESTINATIONS, ROUNDS)
QUICK = (6, 20, 30, 100, 20, 2)


def _beside(app, logged_in: TestClient) -> TestClient:
    """One client for the pages and for a bare FastAPI route (`/bare`, a small dict from a
    synchronous route, as a page's route is): the two take the same client, loop and worker
    threads, request for request. Two clients were two sets of threads, and the bare route's
    figure moved between 0.9 and 1.9 ms with theirs from one stretch of a run to the next."""
    bare = FastAPI()

    @bare.get("/bare")
    def bare_route():
        return {"ok": True}

    async def both(scope, receive, send):
        await (bare if scope["type"] == "http" and scope["path"] == "/bare" else app)(scope, receive, send)

    return TestClient(both, cookies=logged_in.cookies)


def _side_by_side(
    client, url: str, headers: dict | None = None, rounds: int = ROUNDS, drawn: bool = False, cold: bool = False
) -> tuple[float, float]:
    """Median milliseconds of the bare route and of the page, one request of each in turn (a
    ratio of neighbouring requests moves less than one of neighbouring runs). `drawn`: each
    page request names a query parameter of its own (which the page ignores), so that the page
    is drawn every time, whatever a cache of the request might hold; `cold`: with none of the
    viewer's reads remembered either (app/versions/remembered.py), as after a change every
    member sees."""
    base, times = [], []
    for i in range(rounds):
        start = time.perf_counter()
        assert client.get("/bare").status_code == 200
        base.append((time.perf_counter() - start) * 1000)
        target = f"{url}{'&' if '?' in url else '?'}bench={i}" if drawn else url
        if cold:
            remembered.memory.forget()  # as after a change every member sees
        start = time.perf_counter()
        r = client.get(target, headers=headers or {})
        times.append((time.perf_counter() - start) * 1000)
        assert r.status_code in (200, 304), (url, r.status_code)
    return statistics.median(base), statistics.median(times)


def _assets(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="(/static/[^"]+)"', html)


def _wire_bytes(r) -> int:
    """What travelled: the (compressed) body and the header lines."""
    raw = r.headers.get("content-length")
    body = int(raw) if raw is not None else len(r.content)
    return body + sum(len(k) + len(v) + 4 for k, v in r.headers.items())


def _first_and_repeat(client, url: str) -> tuple[int, int]:
    gz = {"Accept-Encoding": "gzip"}
    page = client.get(url, headers=gz)
    first = _wire_bytes(page) + sum(_wire_bytes(client.get(a, headers=gz)) for a in _assets(page.text))
    again = client.get(url, headers={**gz, "If-None-Match": page.headers.get("etag", "")})
    # Static files under their hash are `immutable`: a browser does not ask for them again.
    repeat = _wire_bytes(again) + sum(_wire_bytes(client.get(a, headers=gz)) for a in _assets(page.text) if "?v=" not in a)
    return first, repeat


def main(quick: bool = False) -> list[tuple[str, str, str]]:
    players, places, paths, warbands, destinations, rounds = QUICK if quick else FULL
    app, logged_in = logged_in_gm()
    client = _beside(app, logged_in)
    rows = []
    with client:
        cid, _ = build_round(app.state.engine, gm_nickname="gamemaster", players=players)
        map_cid = build_map(app.state.engine, gm_nickname="gamemaster", places=places, paths=paths, players=min(20, places // 5))
        client.get("/")  # the login's flash message
        seated = seated_route(app).replace("{cid}", str(cid))
        pages = [
            ("dashboard", f"/campaigns/{cid}"),
            ("battles", f"/campaigns/{cid}/battles"),
            ("players", f"/campaigns/{cid}/players"),
            ("chronicle", f"/campaigns/{cid}/chronicle"),
            ("orders", f"/campaigns/{cid}/orders"),
            ("map", f"/campaigns/{map_cid}/map"),
        ]
        # The floor under every campaign page: its login, viewer and unit of work, nothing else.
        base, floor = _side_by_side(client, seated, rounds=rounds, drawn=True)
        rows.append(
            (
                "a campaign page's login alone ÷ bare route",
                f"{floor / base:.1f}",
                f"{floor:.1f} ms vs {base:.2f} ms, no reads, no template",
            )
        )
        for name, url in pages:
            base, page = _side_by_side(client, url, rounds=rounds, drawn=True)
            rows.append((f"{name} ÷ bare route (in process)", f"{page / base:.1f}", f"{page:.1f} ms vs {base:.2f} ms, drawn"))
            base, cold = _side_by_side(client, url, rounds=rounds, drawn=True, cold=True)
            rows.append(
                (
                    f"{name}, drawn after a change ÷ bare route",
                    f"{cold / base:.1f}",
                    f"{cold:.1f} ms vs {base:.2f} ms, nothing remembered",
                )
            )
            base, again = _side_by_side(client, url, rounds=rounds)
            rows.append(
                (f"{name}, loaded again unchanged ÷ bare route", f"{again / base:.1f}", f"{again:.1f} ms vs {base:.2f} ms")
            )
            etag = client.get(url).headers.get("etag")
            if etag:
                base, revalidated = _side_by_side(client, url, {"If-None-Match": etag}, rounds)
                rows.append(
                    (
                        f"{name}, unchanged (304) ÷ bare route",
                        f"{revalidated / base:.1f}",
                        f"{revalidated:.1f} ms vs {base:.2f} ms",
                    )
                )
        for name, url in (pages[0], pages[-1]):
            first, repeat = _first_and_repeat(client, url)
            rows.append(
                (f"{name}: first load / repeat visit", f"{first / 1024:.0f} KB / {repeat / 1024:.1f} KB", "gzip, static cached")
            )
    announce.timed(min(200, warbands), 30)  # warm-up: imports, the catalog, the first statements
    small = announce.timed(warbands, destinations)
    large = announce.timed(warbands * 2, destinations * 2)
    rows.append(
        (
            f"announce {warbands:,} / {warbands * 2:,} warbands",
            f"{small:.2f} s / {large:.2f} s",
            f"×{large / small:.2f} for ×2 size",
        )
    )
    rows.append(
        (
            "wrk (requests/s over the network)",
            "—",
            "wrk is not installed here: the ratios above are in process"
            if not shutil.which("wrk")
            else "its table follows: `python -m bench.wrk` (in `make bench`)",
        )
    )
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'ratio / size':>18}  detail")
    for label, value, detail in rows:
        print(f"{label:<{width}}  {value:>18}  {detail}")
    return rows


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])

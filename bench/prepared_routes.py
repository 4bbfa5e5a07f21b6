"""A campaign page's context made by its route's wrapper against the same page with the context
solved by FastAPI as a dependency (issue 37, app/campaigns/deps.py `campaign_route`): the
GM's dashboard of bench.report's campaign (40 players in Battles), the same endpoint behind
both routes in one app, one request of each in turn, each request's CPU (`time.process_time`,
every thread). Read the ratio of the two: FastAPI's solving of a dependency, of its session's
and of their parameters is per request work the page does not need.

Run: `python -m bench.prepared_routes [--requests 3000]` (printed by `make bench`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from app.campaigns.deps import CampaignPage, campaign_route
from app.campaigns.pages import dashboard_page
from app.core.db import ended_in_route
from bench.request_cpu import _get, _gm_pages


def solved(page: CampaignPage):
    return dashboard_page(page)


def prepared(page: CampaignPage):
    return dashboard_page(page)


async def _measure(app, paths: dict[str, str], headers: list, requests: int) -> dict[str, list[float]]:
    for path in paths.values():
        for i in range(20):
            assert await _get(app, headers, path, f"warm={i}".encode()) == 200, path
    times: dict[str, list[float]] = {name: [] for name in paths}
    for i in range(requests):
        for name, path in sorted(paths.items(), reverse=bool(i % 2)):
            start = time.process_time()
            await _get(app, headers, path, f"bench={i}".encode())
            times[name].append((time.process_time() - start) * 1000)
    return times


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=3000)
    requests = parser.parse_args(argv).requests
    app, pages, headers = _gm_pages()
    cid = pages["GM, 40 players: dashboard"].split("/")[2]
    app.get("/bench/solved/{cid}")(ended_in_route(solved))
    app.get("/bench/prepared/{cid}")(campaign_route(prepared))
    paths = {"solved by FastAPI": f"/bench/solved/{cid}", "prepared by the route": f"/bench/prepared/{cid}"}
    times = asyncio.run(_measure(app, paths, headers, requests))
    medians = {name: statistics.median(found) for name, found in times.items()}
    print(f"{'the GM dashboard, its context':<32} {'median ms':>10} {'mean ms':>9}")
    for name, found in times.items():
        print(f"{name:<32} {medians[name]:>10.3f} {statistics.mean(found):>9.3f}")
    print(f"{'prepared ÷ solved':<32} {medians['prepared by the route'] / medians['solved by FastAPI']:>10.2f}")
    return medians


if __name__ == "__main__":
    main()

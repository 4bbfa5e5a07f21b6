"""Issue 37, the quick form of `make bench`'s ratios (R11.2's page revalidation included): the
demo campaign's dashboard and map drawn for a logged-in player, loaded again unchanged and
revalidated (304), in process against a bare FastAPI route, measured side by side. The
bounds are loose (timings on a shared machine are noisy): they catch a page that became
several times dearer, not a few per cent. `make bench` prints the real figures (bench/report.py, bench/wrk.py)."""

from __future__ import annotations

import time

from fastapi import FastAPI
from sqlmodel import select
from starlette.testclient import TestClient

from app.campaigns.models import Campaign
from app.core.db import unit_of_work
from app.demo import DEMO_NAME, DEMO_PASSWORD, DEMO_PLAYERS, create_demo

ROUNDS = 15
PAGE_BOUND = 20.0  # about 6-12× in process today; the goal is 3× (issue 37)
# Loaded again, a page is drawn again; revalidated, it is answered from memory while nothing its
# viewer may see has changed (app/core/revalidation.py: one statement and no template, which
# tests/web/test_revalidation_from_memory_issue37.py checks exactly). Here both only get the
# drawn page's loose bound: a timed test's tight bound would fail on a busy machine.
UNCHANGED_BOUND = PAGE_BOUND


def _bare() -> TestClient:
    bare = FastAPI()

    @bare.get("/bare")
    def route():
        return {"ok": True}

    return TestClient(bare)


def _timed_ms(client, url: str, headers: dict | None = None) -> float:
    start = time.perf_counter()
    r = client.get(url, headers=headers or {})
    assert r.status_code in (200, 304), (url, r.status_code)
    return (time.perf_counter() - start) * 1000


def _fastest_side_by_side(bare, client, url: str, unchanged: dict) -> dict[str, float]:
    """The fastest of ROUNDS of each, the four taken in turn in every round (another process's
    burst of work on a shared machine slows all four, and the fastest leave it out). "drawn":
    each request a query parameter of its own (the page ignores it), so that the page is drawn
    every time, whatever a cache of the request might hold."""
    times: dict[str, list[float]] = {"bare": [], "drawn": [], "again": [], "304": []}
    for i in range(ROUNDS):
        times["bare"].append(_timed_ms(bare, "/bare"))
        times["drawn"].append(_timed_ms(client, f"{url}?bench={i}"))
        times["again"].append(_timed_ms(client, url))
        times["304"].append(_timed_ms(client, url, unchanged))
    return {name: min(values) for name, values in times.items()}


def test_issue37_r11_2_pages_and_their_304s_stay_within_a_few_bare_routes(app, client):
    with unit_of_work(app.state.engine, write=True) as session:
        create_demo(session)
        cid = session.exec(select(Campaign.id).where(Campaign.name == DEMO_NAME)).one()
    token = client.get("/login").text.split('name="csrf_token" value="')[1].split('"')[0]
    client.post("/login", data={"nickname": DEMO_PLAYERS[0], "password": DEMO_PASSWORD, "csrf_token": token})
    client.get("/")  # the login's flash message
    with _bare() as bare:
        for url in (f"/campaigns/{cid}", f"/campaigns/{cid}/map"):
            first = client.get(url)
            assert first.status_code == 200 and first.headers["etag"]
            unchanged = {"If-None-Match": first.headers["etag"]}
            t = _fastest_side_by_side(bare, client, url, unchanged)
            ratios = {name: t[name] / t["bare"] for name in ("drawn", "again", "304")}
            figures = f"{url}: " + ", ".join(f"{name} {t[name]:.1f} ms ({ratios[name]:.1f}×)" for name in ratios)
            assert ratios["drawn"] <= PAGE_BOUND, figures
            assert ratios["again"] <= UNCHANGED_BOUND and ratios["304"] <= UNCHANGED_BOUND, figures
            assert client.get(url, headers=unchanged).status_code == 304

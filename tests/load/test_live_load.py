"""Live streams under load (R11.4): 60 streams open at once on one server (15 players with 4
tabs each) are all accepted, and every one of them hears each of the GM's phase changes — on
SQLite (woken in process) and PostgreSQL (woken through LISTEN/NOTIFY). The timings are
measured by bench/live_streams.py, not asserted here."""

from __future__ import annotations

import asyncio
import json
import time

import httpx

from app.core.live import broker
from tests.api.live_helpers import stream_server
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join, start_campaign
from tests.builders.maps import add_place

PLAYERS, TABS = 15, 4
TIMEOUT = 20  # seconds, for the whole exchange; a fan-out takes well under one


async def _read(http: httpx.AsyncClient, url: str, headers: dict, opened: asyncio.Future, phases: asyncio.Queue) -> None:
    async with http.stream("GET", url, headers=headers) as r:
        opened.set_result(r.status_code)
        if r.status_code != 200:
            return
        kind = None
        async for line in r.aiter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:") and kind == "phase":
                await phases.put(json.loads(line[5:]))


async def _all_hear(base: str, cid: int, gm: dict, tabs: list[dict], changes: list[str]) -> tuple[list[int], list[list[dict]]]:
    """Opens a stream per tab, then makes each phase change once every stream is open; returns
    the streams' statuses and, per change, the phase event each stream heard."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(10, read=None), limits=limits) as http:
        loop = asyncio.get_running_loop()
        opened = [loop.create_future() for _ in tabs]
        heard = [asyncio.Queue() for _ in tabs]
        url = f"/api/v1/campaigns/{cid}/stream"
        readers = [asyncio.create_task(_read(http, url, h, o, q)) for h, o, q in zip(tabs, opened, heard)]
        try:
            statuses = list(await asyncio.gather(*opened))
            received = []
            if all(s == 200 for s in statuses):
                for phase in changes:
                    r = await http.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": phase}, headers=gm)
                    assert r.status_code == 200, r.text
                    received.append(list(await asyncio.gather(*(q.get() for q in heard))))
            return statuses, received
        finally:
            for task in readers:
                task.cancel()
            await asyncio.gather(*readers, return_exceptions=True)


def _running_campaign(client, players: int) -> tuple[dict, int, list[dict]]:
    """tests.builders.campaigns.running_campaign with more players than the default cap of 6."""
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, max_players=players)["id"]
    places = [add_place(client, gm, cid, f"Home {i}") for i in range(players)]
    members = [join(client, gm, cid, f"player{i}") for i in range(players)]
    start_campaign(client, gm, cid, members, places)
    return gm, cid, members


async def _bounded(coro):
    async with asyncio.timeout(TIMEOUT):
        return await coro


def test_r11_4_sixty_streams_on_one_server_all_hear_every_phase_change(client, stream_server):
    gm, cid, players = _running_campaign(client, PLAYERS)
    tabs = [p["headers"] for p in players for _ in range(TABS)]
    statuses, received = asyncio.run(_bounded(_all_hear(stream_server, cid, gm, tabs, ["orders", "preparation"])))
    assert statuses == [200] * PLAYERS * TABS  # none refused: 4 tabs each are under the cap per user
    for phase, events in zip(["orders", "preparation"], received, strict=True):
        assert [(e["phase"], e["round"]) for e in events] == [(phase, 1)] * PLAYERS * TABS
        assert {e["message"] for e in events} == {f"Round 1: {phase.capitalize()}."}
    # The server lets go of every stream once its client leaves (no subscription leaks, none left
    # to count against the next test's cap). Nothing signals it: watch the broker, bounded.
    deadline = time.monotonic() + 10
    while broker.count() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert broker.count() == 0

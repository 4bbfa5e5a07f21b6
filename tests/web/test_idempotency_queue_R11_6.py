"""R11.6 One tap acts once, when the first tap waits in the queue of writes: its key is claimed
only once it holds its write slot, so its time in the queue never makes the claim look
abandoned (`service.ABANDONED`) to a retry, which would then act as well."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

import httpx

from app.core.db import write_slot, write_slots
from app.idempotency import service
from tests.api.test_idempotency_R11_6 import counts, shopper


def test_r11_6_a_retry_while_the_first_tap_waits_in_the_queue_acts_once(app, client, engine, monkeypatch):
    gm, cid, anna = shopper(client)
    before = counts(engine, cid)
    abandoned = service.ABANDONED
    monkeypatch.setattr(service, "ABANDONED", timedelta(seconds=0.2))
    url = f"/api/v1/campaigns/{cid}/company/models"
    tap = {"json": {"profile": "orcs.krusher"}, "headers": {**anna["headers"], "Idempotency-Key": "queued"}}

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as browser:
            async with contextlib.AsyncExitStack() as ahead:  # writes holding every write slot
                for _ in range(write_slots(app)):
                    await ahead.enter_async_context(write_slot({"app": app}))
                first = asyncio.create_task(browser.post(url, **tap))
                await asyncio.sleep(0.6)  # three times ABANDONED, still queued
                retry = asyncio.create_task(browser.post(url, **tap))
                await asyncio.sleep(0.3)
                assert not first.done() and not retry.done()
                assert counts(engine, cid) == before  # nothing acted, nothing claimed to take over
                # The writes ahead end. From here a claim is older than ABANDONED only if its
                # request really stopped: on PostgreSQL both taps then run at once, and the first
                # one's purchase may take longer than 0.2 s on a busy machine.
                monkeypatch.setattr(service, "ABANDONED", abandoned)
            return await first, await retry

    first, retry = asyncio.run(scenario())
    assert first.status_code == retry.status_code == 201, (first.text, retry.text)
    # One of them acted, the other was answered its answer (on PostgreSQL both wake at once
    # when the writes ahead end, and either may claim first).
    assert sorted(r.headers.get("idempotent-replayed", "acted") for r in (first, retry)) == ["acted", "true"]
    assert retry.json() == first.json()
    assert counts(engine, cid) == (before[0] + 1, before[1] + 1)

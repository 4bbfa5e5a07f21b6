"""A background job or a live stream cancelled at the very moment it is woken stops (found by a
hung suite during issue 37's work): on Python 3.11, `asyncio.wait_for` returned the wake-up and
swallowed the cancel, so the webhook sender went on polling and whoever awaited it (a server's
shutdown, a test) waited forever."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from app.core.live import Subscriber
from app.webhooks import sender


def test_the_webhook_sender_stops_when_cancelled_as_it_is_woken(monkeypatch):
    monkeypatch.setattr(sender, "deliver_due", lambda *_args: None)
    app = SimpleNamespace(state=SimpleNamespace(engine=None, settings=SimpleNamespace(webhook_poll_seconds=60.0)))

    async def scenario():
        job = asyncio.create_task(sender.run(app))
        for _ in range(100):  # until the job waits to be woken
            await asyncio.sleep(0.01)
            if sender._waker is not None:
                break
        await asyncio.sleep(0.05)
        _loop, woken = sender._waker
        woken.set()  # woken and cancelled in the same turn of the loop
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(job, 2)

    asyncio.run(scenario())
    assert sender._waker is None


def test_a_live_stream_stops_when_cancelled_as_it_is_woken():
    async def scenario():
        subscriber = Subscriber(asyncio.get_running_loop(), ("k",), 1)
        waiting = asyncio.create_task(subscriber.wait(60.0))
        await asyncio.sleep(0.05)
        subscriber.woken.set()
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(waiting, 2)

    asyncio.run(scenario())

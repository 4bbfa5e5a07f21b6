"""Jobs that run inside the server for as long as it runs (the season's scheduler, the webhook
sender): each is `async def job(app)`, started in the app's lifespan when
`settings.background_jobs` is true, and cancelled at shutdown."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

from app.core.ports import Port

# `async def job(app)`: wired in app/wiring.py.
jobs = Port[Callable[[Any], Coroutine[Any, Any, None]]]("background jobs")


def start(app) -> list[asyncio.Task]:
    if not app.state.settings.background_jobs:
        return []
    return [asyncio.create_task(job(app)) for job in jobs()]


async def stop(tasks: list[asyncio.Task]) -> None:
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

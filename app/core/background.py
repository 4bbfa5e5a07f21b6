"""Jobs that run inside the server for as long as it runs (the season's scheduler, the webhook
sender): each is `async def job(app)`, started in the app's lifespan when
`settings.background_jobs` is true, and cancelled at shutdown."""
from __future__ import annotations

import asyncio
import contextlib

JOBS: list = []


def add_job(job) -> None:
    if job not in JOBS:
        JOBS.append(job)


def start(app) -> list[asyncio.Task]:
    if not app.state.settings.background_jobs:
        return []
    return [asyncio.create_task(job(app)) for job in JOBS]


async def stop(tasks: list[asyncio.Task]) -> None:
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

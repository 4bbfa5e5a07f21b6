"""Issue 37: at most `Settings.session_slots` requests of one process hold a database session at
once (two by default); the others wait their turn, holding no thread, and are all answered.
Fewer requests drawing pages at once hand the interpreter lock to each other less
(`python -m bench.wrk` prints the server's CPU a request)."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pydantic
import pytest
from sqlalchemy import text

from app.accounts.deps import SessionDep
from app.core.settings import Settings
from app.main import create_app

REQUESTS = 6


def _probed_app(settings: Settings, slots: int):
    """The app with one route that holds its session a while, counting how many do at once."""
    app = create_app(settings.model_copy(update={"session_slots": slots}))
    seen = {"now": 0, "most": 0}
    lock = threading.Lock()

    @app.get("/probe/session")
    def probe(session: SessionDep):
        with lock:
            seen["now"] += 1
            seen["most"] = max(seen["most"], seen["now"])
        try:
            time.sleep(0.05)
            return {"one": session.exec(text("SELECT 1")).scalar_one()}
        finally:
            with lock:
                seen["now"] -= 1

    return app, seen


async def _at_once(app) -> list[httpx.Response]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as client:
        return await asyncio.gather(*(client.get("/probe/session") for _ in range(REQUESTS)))


@pytest.mark.parametrize("slots", [2, 4])
def test_issue37_no_more_requests_hold_a_session_at_once_than_the_slots_and_all_are_answered(settings, slots):
    app, seen = _probed_app(settings, slots)
    answers = asyncio.run(_at_once(app))
    assert [a.status_code for a in answers] == [200] * REQUESTS
    assert all(a.json() == {"one": 1} for a in answers)
    # Exactly the slots: fewer would mean requests that could run waited; more, no cap.
    assert seen["most"] == slots
    assert app.state.engine.pool.checkedout() == 0
    app.state.engine.dispose()


def test_issue37_two_session_slots_by_default_and_none_refused():
    assert Settings().session_slots == 2
    for bad in (0, -1, 31):
        with pytest.raises(pydantic.ValidationError):
            Settings(session_slots=bad)

"""Issue 37: at most `Settings.session_slots` reading requests of one process hold a database
session at once (two by default), and as many writing ones (one on SQLite, which lets one
writer in at a time); the others wait their turn, holding no thread, and are all answered. Fewer requests drawing pages at once hand the
interpreter lock to each other less (`python -m bench.slots`). Writes waiting for the
database's lock keep no page waiting: they have slots of their own."""

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
WAIT = 10  # seconds: a bound on each wait below, never reached when the caps work


class _Probe:
    """Routes that hold their session, counting how many do at once."""

    def __init__(self, settings: Settings, slots: int):
        self.app = create_app(settings.model_copy(update={"session_slots": slots}))
        self.slots, self.now, self.most = slots, 0, 0
        self.lock, self.full, self.release = threading.Lock(), threading.Event(), threading.Event()
        self.writing = 0

        @self.app.get("/probe/read")
        def read(session: SessionDep, together: bool = False):
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
                if self.now >= self.slots:
                    self.full.set()
            try:
                if together:  # wait until as many read at once as the cap lets in
                    self.full.wait(WAIT)
                return {"one": session.exec(text("SELECT 1")).scalar_one()}
            finally:
                with self.lock:
                    self.now -= 1

        @self.app.post("/probe/write")
        def write(session: SessionDep):
            # In a write's unit of work (on SQLite it holds the write lock): held until released.
            with self.lock:
                self.writing += 1
            self.release.wait(WAIT)
            return {"one": session.exec(text("SELECT 1")).scalar_one()}

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url="http://testserver")


@pytest.fixture
def probe(settings, request):
    made = _Probe(settings, request.param)
    yield made
    made.release.set()
    made.app.state.engine.dispose()


@pytest.mark.parametrize("probe", [2, 4], indirect=True)
def test_issue37_no_more_requests_read_at_once_than_the_slots_and_all_are_answered(probe):
    async def at_once():
        async with probe.client() as client:
            return await asyncio.gather(*(client.get("/probe/read?together=true") for _ in range(REQUESTS)))

    answers = asyncio.run(at_once())
    assert [a.status_code for a in answers] == [200] * REQUESTS
    assert all(a.json() == {"one": 1} for a in answers)
    # Exactly the slots: fewer would mean requests that could run waited; more, no cap.
    assert probe.most == probe.slots
    assert probe.app.state.engine.pool.checkedout() == 0


@pytest.mark.parametrize("probe", [2], indirect=True)
def test_issue37_writes_waiting_for_the_database_keep_no_page_waiting(probe):
    """Two writes hold their sessions (on SQLite the first holds the write lock and the second
    waits for it); pages are still answered meanwhile, and then the writes too."""

    async def scenario():
        async with probe.client() as client:
            writes = [asyncio.create_task(client.post("/probe/write")) for _ in range(2)]
            deadline = time.monotonic() + WAIT
            while probe.writing < 1 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)  # the second write is at the lock, or in its route
            try:
                pages = await asyncio.wait_for(asyncio.gather(*(client.get("/probe/read") for _ in range(REQUESTS))), WAIT / 2)
            finally:
                probe.release.set()
            return pages, await asyncio.gather(*writes)

    pages, writes = asyncio.run(scenario())
    assert [a.status_code for a in pages] == [200] * REQUESTS
    assert [a.status_code for a in writes] == [200, 200]
    assert probe.app.state.engine.pool.checkedout() == 0


def test_issue37_two_session_slots_by_default_and_none_refused():
    assert Settings.model_fields["session_slots"].default == 2
    for bad in (0, -1, 7):
        with pytest.raises(pydantic.ValidationError):
            Settings(session_slots=bad)

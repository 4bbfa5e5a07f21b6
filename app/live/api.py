"""`GET /api/v1/campaigns/{cid}/stream` (R11.4): server-sent events for pages and API clients
alike. The stream holds no database connection while it waits; each time it is woken (or at
each heartbeat) it opens a short read, checks that its credential and membership still hold,
and sends the new events its viewer may see (live.seen.live_events_seen_by)."""

from __future__ import annotations

import asyncio
import json
import random
import time
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass

from anyio import CapacityLimiter, to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from app.accounts import deps
from app.accounts.models import User
from app.accounts.service import credential_alive
from app.core.db import unit_of_work
from app.core.errors import N_, DomainError
from app.core.live import broker, campaign_key, open_id, seal_id, user_key
from app.core.security import SESSION_COOKIE, token_digest
from app.core.templating import request_gettext
from app.core.types import PathId
from app.live import messages, service
from app.visibility import viewer_for

router = APIRouter(tags=["live"])
RETRY_MS = 5000
POLL_THREADS = 6
CLOSED_TEXTS = {
    "logged_out": N_("You are logged out: live updates stopped."),
    "not_member": N_("You are no longer a member of this campaign."),
}
RELOAD_TEXT = N_("You missed several updates: the page is brought up to date.")


@dataclass
class Stream:
    """What a stream remembers between wakes."""

    campaign_id: int
    user_id: int
    last: int
    session_hash: str | None
    api_token_id: int | None
    gettext: object
    key: bytes


@dataclass
class Poll:
    frames: list[str]
    closed: str | None = None


def _frame(kind: str, payload: dict, sealed: str | None = None) -> str:
    head = f"id: {sealed}\n" if sealed else ""
    return f"{head}event: {kind}\ndata: {json.dumps(payload, ensure_ascii=False, separators=(',', ':'))}\n\n"


def _open(request: Request, cid: int, resume: str | None, since: int | None) -> tuple[Stream, list[str]]:
    """Who is asking (cookie or Bearer token, as every API route), and where to start."""
    settings = request.app.state.settings
    with unit_of_work(request.app.state.engine, write=False) as session:
        user = deps.api_user_optional(request, session)
        if user is None:
            raise DomainError("not_logged_in")
        viewer = viewer_for(session, user, cid)
        token = request.cookies.get(SESSION_COOKIE)
        api_token_id = getattr(request.state, "api_token_id", None)
        key = request.app.state.secret_key.encode()
        stream = Stream(
            cid,
            user.id,
            0,
            token_digest(request.app.state.secret_key, token) if token and api_token_id is None else None,
            api_token_id,
            request_gettext(request),
            key,
        )
        frames = []
        if resume is None:
            # A page says when it was drawn (a moment, which tells nothing of hidden events);
            # an API client without an id starts from now.
            stream.last = service.cursor(session, cid, before=service.moment(since) if since is not None else None)
            return stream, frames
        last = open_id(key, resume) if resume != "0" else 0
        limit = settings.live_replay_limit
        # Issue 28 item 9: only what this viewer may be told counts towards the limit.
        if (
            last is None
            or (last and not service.known(session, cid, last))
            or service.seen_after(session, viewer, last, limit) > limit
        ):
            # Too much missed (or an id we cannot place): the page reloads what it shows. The
            # id sent is the newest event this viewer may see, so that it gives nothing away.
            stream.last = service.cursor(session, cid)
            seen = service.last_seen(session, viewer)
            sealed = seal_id(key, seen) if seen else None
            frames.append(
                _frame("reload", {"kind": "reload", "campaign_id": cid, "message": stream.gettext(RELOAD_TEXT)}, sealed)
            )
        else:
            stream.last = last
    return stream, frames


def _poll(engine, settings, stream: Stream) -> Poll:
    with unit_of_work(engine, write=False) as session:
        if not credential_alive(session, settings, session_hash=stream.session_hash, api_token_id=stream.api_token_id):
            return Poll([], "logged_out")
        user = session.get(User, stream.user_id)
        try:
            viewer = viewer_for(session, user, stream.campaign_id) if user else None
        except DomainError:
            viewer = None
        if viewer is None:
            return Poll([], "not_member")
        frames = []
        # Everything new at once: a run of events hidden from this viewer must not hold back
        # (until the next heartbeat) what follows it, or the delay would tell how long it was.
        while events := service.after(session, stream.campaign_id, stream.last, service.SCAN_BATCH):
            frames += [
                _frame(t.event.kind, t.payload, seal_id(stream.key, t.event.id))
                for t in messages.tell(session, viewer, events, stream.gettext)
            ]
            stream.last = events[-1].id
            if len(events) < service.SCAN_BATCH:
                break
        return Poll(frames)


async def _frames(request: Request, stream: Stream, sub, first: list[str]) -> AsyncIterator[str]:
    settings, engine = request.app.state.settings, request.app.state.engine
    sub.woken.set()  # read once at once: what committed while this stream was opening
    broker.ensure_listener(engine)
    beat = settings.live_heartbeat_seconds
    gone = asyncio.Event()
    watcher = asyncio.get_running_loop().create_task(_watch_disconnect(request, sub, gone))
    try:
        yield f"retry: {RETRY_MS}\n\n"
        for frame in first:
            yield frame
        # Heartbeats keep their own clock: a wake by an event this viewer may not see must not
        # shift them (their timing would tell that something happened).
        # The first comes at a random point of the period, so that streams opened together
        # (every phone reconnecting after a restart) do not all poll together ever after.
        next_beat = time.monotonic() + beat * random.uniform(0.5, 1.0)
        while not broker.closing:  # at shutdown the browser reconnects to the new server, with its last id
            await sub.wait(max(0.0, next_beat - time.monotonic()))
            if broker.closing or gone.is_set():
                return
            # Polls take a few threads of their own, so that a wake of hundreds of streams never
            # holds up the pages and API calls waiting for the thread pool.
            poll = await to_thread.run_sync(_poll, engine, settings, stream, limiter=_poll_limiter())
            for frame in poll.frames:
                yield frame
            if poll.closed:
                yield _frame(
                    "closed", {"kind": "closed", "reason": poll.closed, "message": stream.gettext(CLOSED_TEXTS[poll.closed])}
                )
                return
            if time.monotonic() >= next_beat:
                yield ": keep-alive\n\n"
                next_beat += beat * max(1, int((time.monotonic() - next_beat) // beat) + 1)
    finally:
        watcher.cancel()
        broker.unsubscribe(sub)


async def _watch_disconnect(request: Request, sub, gone: asyncio.Event) -> None:
    """A closed page frees its place at once (the per-user cap counts open streams), not at the
    next heartbeat's failed write."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            gone.set()
            sub.woken.set()
            return


class EventStream(StreamingResponse):
    """Lets go of its subscriber however the answer ends: a client that left makes Starlette
    drop the iterator without closing it, and the stream would otherwise stay subscribed (and
    counted against the user's cap) until the garbage collector found it."""

    def __init__(self, content, sub, **kwargs) -> None:
        super().__init__(content, **kwargs)
        self.sub = sub

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            broker.unsubscribe(self.sub)
            await self.body_iterator.aclose()


_LIMITERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _poll_limiter() -> CapacityLimiter:
    """One per event loop (a server has one; the test suite runs several)."""
    loop = asyncio.get_running_loop()
    if loop not in _LIMITERS:
        _LIMITERS[loop] = CapacityLimiter(POLL_THREADS)
    return _LIMITERS[loop]


@router.get(
    "/campaigns/{cid}/stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "Server-sent events"}},
)
async def stream(
    cid: PathId,
    request: Request,
    after: str | None = Query(
        None,
        max_length=16,
        pattern="^[0-9a-f]{1,16}$",
        description="resume after this event id (as Last-Event-ID); 0: from the oldest kept",
    ),
    since: int | None = Query(
        None,
        ge=0,
        le=service.MAX_MOMENT_MS,
        description="start from this moment (milliseconds since 1970, up to the year 9999): what happened after it is sent",
    ),
):
    """Server-sent events for what this user may see of the campaign: `phase`, `battles`,
    `result`, `clock` (a battle clock changed), `settlement`, `letter`, `transfer`, `guild`, `alliance`, `twilight`; `reload`
    when too much was missed; `closed` when the login ends. Each event's data is JSON with
    `kind`, `campaign_id`, its public facts and a `message` for the one it concerns."""
    resume = request.headers.get("last-event-id") or after
    stream_, first = await run_in_threadpool(_open, request, cid, resume, since)
    sub = broker.subscribe(
        (campaign_key(cid), user_key(stream_.user_id)), stream_.user_id, request.app.state.settings.live_max_streams_per_user
    )
    if sub is None:
        raise DomainError("live_too_many_streams")
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}
    return EventStream(_frames(request, stream_, sub, first), sub, media_type="text/event-stream", headers=headers)

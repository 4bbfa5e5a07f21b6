"""One tap acts once (SPEC R11.6), for every write route at once.

API: a POST, PUT, PATCH or DELETE with an `Idempotency-Key` header acts once per user and
key; the same key and body answer the first answer again without acting, the same key with
another body is refused (422 `idempotency_key_reused`), and a second request while the first
is still acting waits for its answer. Pages: every form that changes something carries a
one-time key (`once`, templates/partials/field.html) made of the session's own count of acts;
a double tap, a refresh of the POST, or Back and submit again send the same key with the same
fields and are answered with what the first submission did (its redirect and its message).
Pages are no-store, so Back draws a page afresh with the next key: static/app.js keeps the key
a page first had with its history entry and puts it back after Back or Forward.

The request body is read here once and handed on unchanged; keys are kept 24 hours."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import re
from urllib.parse import parse_qs

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.db import WRITE_METHODS, write_slot
from app.core.errors import DomainError
from app.core.limits import MAX_BODY
from app.core.routing import refused_method
from app.core.security import SESSION_COOKIE, cookie_of
from app.idempotency import service
from app.idempotency.service import BUSY, REUSED, Answer, Claimed, Identity

API_PREFIX = "/api/"
FORM_FIELD = "once"
MAX_KEY = 255
# Answers that hand out a credential are never kept in the database: a kept answer would be a
# second copy of a token or a session, handed to whoever replays the key. There a key is not
# kept and a retry acts again (a second token, a second login), which docs/api.md and the
# OpenAPI document (app/openapi.py) say for these operations.
NEVER_KEPT = {"/api/v1/users", "/api/v1/auth/tokens", "/account/tokens", "/account/password", "/login", "/register"}
# ... nor answers naming a new link that is itself a credential (a one-tap confirm link, R12.2,
# the club screen's and a calendar feed's, R12.5, R12.7): their tokens are kept only as digests,
# and a kept answer would hold them in plain text for a day. A second tap is held by the page
# (static/app.js); a second screen link can be revoked, a second calendar link revokes the first.
NEVER_KEPT_LINKS = re.compile(r"^(/api/v1)?/campaigns/\d+/(battles/\d+/confirm-link|screen-links|calendar-link)$")
# Page forms that carry no one-time key, by decision: acting twice is acting once. Choosing the
# same language again sets it again; a second logout finds its session ended and answers the
# same redirect; the digest's stop button (a signed link, RFC 8058) stops a stopped digest.
# Every other form a signed-in viewer gets carries `once` (tests/web/test_form_keys_R11_6.py
# walks every page and holds this list to what the pages draw).
KEYLESS_FORMS = {
    "/language": "setting a language twice sets it once (templates/base.html)",
    "/logout": "logging out twice logs out once (templates/base.html)",
    "/digest/unsubscribe": "the digest's one-click stop: a signed link, stopping it twice stops it once",
}
# Headers of the first answer that describe that one request, not its result.
PER_REQUEST = {"date", "x-request-id", "content-length", "server"}
WAIT_STEP, WAIT_LIMIT = 0.05, 30.0
REFUSAL = "idempotency_refusal"  # read by `refuse_reused` (an app dependency) to answer in the user's words


def _form_key(headers: Headers, body: bytes) -> tuple[str, bytes] | None:
    """The form's one-time key and the body to compare (a multipart boundary differs per tap)."""
    content_type = headers.get("content-type", "")
    if content_type.startswith("application/x-www-form-urlencoded"):
        values = parse_qs(body.decode("latin-1"), keep_blank_values=True).get(FORM_FIELD)
        return (values[0], body) if values else None
    match = re.search(r"boundary=\"?([^\";]+)", content_type)
    if content_type.startswith("multipart/form-data") and match:
        boundary = match.group(1).encode()
        found = re.search(rb'name="' + FORM_FIELD.encode() + rb'"\r\n\r\n([^\r]*)\r\n', body)
        return (found.group(1).decode("latin-1"), body.replace(boundary, b"-")) if found else None
    return None


def _digest(scope: Scope, body: bytes) -> str:
    """What a key was used for: the method, the address and the body."""
    target = f"{scope['method']} {scope['path']}?{scope.get('query_string', b'').decode('latin-1')}\n"
    return hashlib.sha256(target.encode() + body).hexdigest()


def never_kept(path: str) -> bool:
    """Whether a write to `path` is never answered from a kept answer."""
    return path in NEVER_KEPT or NEVER_KEPT_LINKS.match(path) is not None


def _valid_key(key: str) -> bool:
    return bool(key.strip()) and len(key) <= MAX_KEY


class OneTapActsOnce:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in WRITE_METHODS:
            return await self.app(scope, receive, send)
        # Never kept, but a malformed key is refused as anywhere.
        if never_kept(scope["path"]):
            key = Headers(scope=scope).get("idempotency-key")
            if key is not None and not _valid_key(key):
                scope.setdefault("state", {})[REFUSAL] = "idempotency_key_invalid"
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        api = scope["path"].startswith(API_PREFIX)
        if api and not headers.get("idempotency-key"):
            return await self.app(scope, receive, send)
        body, more = await _read(receive)
        replay = _replaying(body, more, receive)
        if more:
            return await self.app(scope, replay, send)  # too large: the body limit answers
        found = await run_in_threadpool(self._key, scope, headers, body, api)
        if found is None:
            return await self.app(scope, replay, send)
        identity, key, request_hash = found
        engine = scope["app"].state.engine
        form_session = None if api else identity.session_id
        claim = functools.partial(service.claim, engine, identity.user_id, key, request_hash, form_session)
        look = functools.partial(service.look, engine, identity.user_id, key, request_hash, form_session)
        waited = 0.0
        while True:
            # The key is claimed, and looked at again, holding the request's write slot: a
            # claim is never older than the work done under it (ABANDONED), and a request in
            # the queue has claimed nothing a retry could take over.
            async with write_slot(scope):
                outcome = await run_in_threadpool(look if waited else claim)
                if isinstance(outcome, Claimed):
                    return await self._act(scope, replay, send, engine, outcome)
            if outcome != BUSY or waited >= WAIT_LIMIT:
                break
            await asyncio.sleep(WAIT_STEP)  # the first use acts meanwhile, in another process
            waited += WAIT_STEP
        if isinstance(outcome, Answer):
            return await _answer(outcome, send)
        scope.setdefault("state", {})[REFUSAL] = "idempotency_key_reused" if outcome == REUSED else "idempotency_key_busy"
        return await self.app(scope, replay, send)

    def _key(self, scope: Scope, headers: Headers, body: bytes, api: bool) -> tuple[Identity, str, str] | None:
        state = scope["app"].state
        if api:
            key = headers["idempotency-key"]
            if not _valid_key(key):  # refused whoever sends it, signed in or not
                scope.setdefault("state", {})[REFUSAL] = "idempotency_key_invalid"
                return None
            authorization = headers.get("authorization", "")
            if authorization.lower().startswith("bearer "):
                identity = service.api_identity(state.engine, state.secret_key, authorization[7:].strip())
            else:
                token = cookie_of(headers, SESSION_COOKIE)
                identity = service.session_identity(state.engine, state.secret_key, token) if token else None
            if identity is None:
                return None
            return identity, f"api:{key}", _digest(scope, body)
        token = cookie_of(headers, SESSION_COOKIE)
        form = _form_key(headers, body) if token else None
        if not token or form is None or not form[0] or len(form[0]) > 32:
            return None
        identity = service.session_identity(state.engine, state.secret_key, token)
        if identity is None:
            return None
        once, compared = form
        digest = _digest(scope, compared)
        # The body is in the key: a stale form sent with other fields is another request.
        return identity, f"form:{identity.session_id}:{once}:{digest}", digest

    async def _act(self, scope: Scope, receive: Receive, send: Send, engine, claimed: Claimed) -> None:
        started: dict = {}
        chunks: list[bytes] = []

        async def keeping(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.update(status=message["status"], headers=list(message.get("headers", [])))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, keeping)
        except BaseException:
            await run_in_threadpool(service.release, engine, claimed.id)
            raise
        status = started.get("status", 500)
        if status >= 500:
            await run_in_threadpool(service.release, engine, claimed.id)
            return
        kept = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in started["headers"]
            if k.decode("latin-1").lower() not in PER_REQUEST
        ]
        await run_in_threadpool(service.keep, engine, claimed.id, Answer(status, kept, b"".join(chunks)))


async def _read(receive: Receive) -> tuple[bytes, bool]:
    """The body up to the app's limit, and whether more is coming (past the limit: the body
    limit inside answers it)."""
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = message.get("more_body", False)
        if size > MAX_BODY or not more:
            return b"".join(chunks), more


def _replaying(body: bytes, more: bool, receive: Receive) -> Receive:
    """The app reads the body that was read here, then whatever is still coming."""
    given = False

    async def again() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return again


async def _answer(answer: Answer, send: Send) -> None:
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers]
    headers += [(b"content-length", str(len(answer.body)).encode()), (b"idempotent-replayed", b"true")]
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": answer.body})


async def refuse_reused(request: Request) -> None:
    """An app dependency: the refusals decided above, answered as every refusal is (the
    error body in the user's language, or the error page). Async, as every dependency that
    reads no database is: a sync one costs a hop to a worker thread on every request."""
    code = request.scope.get("state", {}).get(REFUSAL)
    if code and refused_method(request):  # a key sent to a method this route does not take
        raise StarletteHTTPException(405)
    if code:
        raise DomainError(code, max=MAX_KEY)

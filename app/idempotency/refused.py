"""A refused page form never leaves its error page at the form's POST address (issue 29,
SPEC R11.5, R11.6): a refresh there would post the form again.

Every page route still answers a refusal as it always did — the form's page drawn with the
errors next to their fields and the values that were sent (passwords are never drawn back).
This middleware, for every page POST at once, keeps that page and answers 303 See Other to
the page the form came from; the next GET of that address is answered with the kept page,
once, with the refusal's own status (so the error summary, role="alert", and the status stay
what they were). A refresh after that is an ordinary GET of the page.

Kept where: a logged-in viewer's page is kept in the database beside the one-tap answers
(app/idempotency, 24 h at most, taken once), under a random token held in a short cookie; a
visitor without a session (login, register) gets the page itself, compressed and signed, in
that cookie, and when it does not fit the refusal is answered in place as before. htmx
requests are left alone: htmx swaps the partial in place and a refresh loads the page by GET.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
import zlib
from urllib.parse import urlsplit

from sqlalchemy import delete, insert, select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.db import table_of, utcnow
from app.core.security import SESSION_COOKIE, cookie_of, token_digest
from app.idempotency.models import IdempotencyKey
from app.idempotency.service import _write, session_identity

SHOWN_COOKIE = "hideout_shown"
MAX_AGE = 120  # seconds: the browser follows the redirect at once
# A cookie holds about 4 KB; a visitor's page that does not fit is answered in place.
MAX_COOKIE = 3800
T = table_of(IdempotencyKey)


def _sign(secret: str, payload: str) -> str:
    return token_digest(secret, "shown:" + payload)


def _digest(target: str) -> str:
    return hashlib.sha256(target.encode()).hexdigest()


def _has_get(scope: Scope, path: str) -> bool:
    probe = {"type": "http", "method": "GET", "path": path, "root_path": "", "query_string": b"", "headers": []}
    return any(route.matches(probe)[0] == Match.FULL for route in scope["app"].router.routes)


def form_page(scope: Scope, headers: Headers) -> str:
    """The page a form was posted from: the Referer when it is this site's page, else the
    posting address itself or the nearest page above it (`/campaigns/3/company/faction` ->
    `/campaigns/3/company`)."""
    referer = urlsplit(headers.get("referer", ""))
    host = headers.get("host", "")
    if (
        referer.netloc
        and referer.netloc == host
        and referer.path.startswith("/")
        and not referer.path.startswith("//")
        and "\\" not in referer.path
        and _has_get(scope, referer.path)
    ):
        return referer.path + (f"?{referer.query}" if referer.query else "")
    path = scope["path"].rstrip("/") or "/"
    query = scope.get("query_string", b"").decode("latin-1")
    if _has_get(scope, path):
        return path + (f"?{query}" if query else "")
    while "/" in path.strip("/"):
        path = path.rsplit("/", 1)[0]
        if _has_get(scope, path):
            return path
    return "/"


def _keep_for_session(engine, secret: str, session_token: str, target: str, page: dict) -> str | None:
    identity = session_identity(engine, secret, session_token)
    if identity is None or identity.session_id is None:
        return None
    token = secrets.token_urlsafe(16)
    with _write(engine) as conn, conn.begin():
        conn.execute(
            insert(T).values(
                user_id=identity.user_id,
                key=f"shown:{identity.session_id}:{token}",
                request_hash=_digest(target),
                claimed_at=utcnow(),
                status=page["s"],
                headers=json.dumps(page["h"]),
                body=page["b"],
            )
        )
    return "s." + token


def _take_for_session(engine, secret: str, session_token: str, token: str, target: str) -> dict | None:
    identity = session_identity(engine, secret, session_token)
    if identity is None:
        return None
    key = f"shown:{identity.session_id}:{token}"
    with _write(engine) as conn, conn.begin():
        row = conn.execute(
            select(T.c.status, T.c.headers, T.c.body, T.c.request_hash).where(T.c.user_id == identity.user_id, T.c.key == key)
        ).first()
        if row is None or row.request_hash != _digest(target):
            return None
        conn.execute(delete(T).where(T.c.user_id == identity.user_id, T.c.key == key))
    return {"s": row.status, "h": json.loads(row.headers or "[]"), "b": row.body or b""}


def _keep_in_cookie(secret: str, target: str, page: dict) -> str | None:
    packed = json.dumps(
        {"t": target, "at": int(time.time()), "s": page["s"], "h": page["h"], "b": page["b"].decode("utf-8", "replace")}
    )
    payload = base64.urlsafe_b64encode(zlib.compress(packed.encode(), 9)).decode().rstrip("=")
    value = f"c.{payload}.{_sign(secret, payload)}"
    return value if len(value) <= MAX_COOKIE else None


def _take_from_cookie(secret: str, value: str, target: str) -> dict | None:
    payload, _, signature = value.rpartition(".")
    if not hmac.compare_digest(_sign(secret, payload), signature):
        return None
    try:
        data = json.loads(zlib.decompress(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))
    except (ValueError, zlib.error):
        return None
    # Signed with the time it was kept: a copied cookie is not shown again later.
    if (
        not isinstance(data, dict)
        or data.get("t") != target
        or not isinstance(data.get("at"), int)
        or not 0 <= time.time() - data["at"] <= MAX_AGE
    ):
        return None
    return {"s": int(data["s"]), "h": data.get("h") or [], "b": str(data.get("b", "")).encode()}


class RefusedFormsRedirect:
    """Pure ASGI, outside the one-tap middleware: a refusal answered again to a repeated tap
    is redirected the same way."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(("/api/", "/static/")):
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        if headers.get("hx-request"):
            return await self.app(scope, receive, send)
        if scope["method"] == "GET" and cookie_of(headers, SHOWN_COOKIE):
            return await self._show(scope, receive, send, headers)
        if scope["method"] != "POST":
            return await self.app(scope, receive, send)
        await self._post(scope, receive, send, headers)

    async def _post(self, scope: Scope, receive: Receive, send: Send, headers: Headers) -> None:
        started: dict = {}
        chunks: list[bytes] = []
        held = False

        async def holding(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start":
                answer = Headers(raw=message.get("headers", []))
                held = 400 <= message["status"] < 500 and answer.get("content-type", "").startswith("text/html")
                if held:
                    started.update(status=message["status"], headers=list(message.get("headers", [])))
                    return
            elif held and message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    await self._redirect(scope, send, headers, started, b"".join(chunks))
                return
            await send(message)

        await self.app(scope, receive, holding)

    async def _redirect(self, scope: Scope, send: Send, headers: Headers, started: dict, body: bytes) -> None:
        raw = started["headers"]
        cookies = [(k, v) for k, v in raw if k.lower() == b"set-cookie"]
        kept = [
            [k.decode("latin-1"), v.decode("latin-1")]
            for k, v in raw
            if k.lower() not in (b"set-cookie", b"content-length", b"idempotent-replayed")
        ]
        page = {"s": started["status"], "h": kept, "b": body}
        target = form_page(scope, headers)
        state = scope["app"].state
        session_token = cookie_of(headers, SESSION_COOKIE)
        if session_token:
            value = await run_in_threadpool(_keep_for_session, state.engine, state.secret_key, session_token, target, page)
        else:
            value = _keep_in_cookie(state.secret_key, target, page)
        if value is None:  # nowhere to keep it: answered in place, as before
            await send({"type": "http.response.start", "status": started["status"], "headers": raw})
            await send({"type": "http.response.body", "body": body})
            return
        response = Response(status_code=303, headers={"location": target, "cache-control": "no-store"})
        response.set_cookie(
            SHOWN_COOKIE, value, max_age=MAX_AGE, httponly=True, samesite="lax", secure=state.settings.secure_cookies
        )
        await send({"type": "http.response.start", "status": 303, "headers": response.raw_headers + cookies})
        await send({"type": "http.response.body", "body": b""})

    async def _show(self, scope: Scope, receive: Receive, send: Send, headers: Headers) -> None:
        """The kept page at the address it was sent to, once; elsewhere the request goes on."""
        value = cookie_of(headers, SHOWN_COOKIE) or ""
        query = scope.get("query_string", b"").decode("latin-1")
        target = scope["path"] + (f"?{query}" if query else "")
        state = scope["app"].state
        page = None
        if value.startswith("s.") and (session_token := cookie_of(headers, SESSION_COOKIE)):
            page = await run_in_threadpool(_take_for_session, state.engine, state.secret_key, session_token, value[2:], target)
        elif value.startswith("c."):
            page = _take_from_cookie(state.secret_key, value[2:], target)
        if page is None:
            return await self.app(scope, receive, send)
        response = Response(page["b"], status_code=page["s"])
        answer = MutableHeaders(raw=response.raw_headers)
        for name, val in page["h"]:
            answer[name] = val
        answer["cache-control"] = "no-store"
        response.delete_cookie(SHOWN_COOKIE)
        await response(scope, receive, send)

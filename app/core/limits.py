"""A cap on request bodies, checked while they stream in: a 2 GB upload is refused at its
Content-Length, or as soon as a chunked body passes the cap, never read whole (R11.5)."""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException

from app.core.errors import message_for
from app.core.i18n import choose_locale, translations
from app.core.images import MAX_BYTES

MAX_BODY = MAX_BYTES + 2 * 1024 * 1024  # the largest image plus its multipart envelope


class BodyTooLarge(HTTPException):
    """Raised from `receive` when a streamed body passes the cap; answered with 413. An HTTP
    exception, so that FastAPI's body parsing passes it on instead of calling it a bad body."""

    def __init__(self):
        super().__init__(status_code=413)


def too_large_body(accept_language: str | None) -> bytes:
    gettext = translations(choose_locale(None, None, accept_language)).gettext
    params = {"max_mb": MAX_BODY // (1024 * 1024)}
    return json.dumps(
        {"error": {"code": "body_too_large", "message": message_for("body_too_large", params, gettext), "details": []}}
    ).encode()


class BodyLimit:
    def __init__(self, app, max_bytes: int = MAX_BODY):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            body = too_large_body(headers.get(b"accept-language", b"").decode("latin-1"))
            await send(
                {
                    "type": "http.response.start",
                    "status": 413,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"connection", b"close"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return None
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge()
            return message

        return await self.app(scope, limited, send)

"""A cap on how deeply a JSON body nests (issue 28). json.loads recurses once per level: a body
of 100,000 brackets is a RecursionError, a 500, before any route could refuse it. The depth is
measured on the raw bytes first, without parsing: strings are cut out, the brackets kept and
summed as they open and close, so a hostile body costs about what parsing it would."""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any

from starlette.requests import Request

from app.core.errors import DomainError, message_for
from app.core.i18n import choose_locale, translations
from app.core.limits import BodyTooLarge, too_large_body
from app.core.security import LANG_COOKIE

MAX_DEPTH = 64
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# Every byte but brackets and braces goes; an opening one becomes +1, a closing one -1 (as a
# signed byte), so that the running sum is the depth.
_SIGNED = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")
_DROP = bytes(b for b in range(256) if b not in b"[]{}")


def too_deep(raw: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether a JSON text nests deeper than `limit`: the highest running sum of its brackets
    outside strings (a text that is no JSON at all may pass: json.loads then refuses it within
    a bounded recursion). Linear: a usual export's brackets are few (its bulk is strings), and
    12 MB of nothing but brackets costs about what json.loads would spend on them."""
    skeleton = _STRING.sub(b"", raw).translate(_SIGNED, _DROP)
    if b"\x01" * (limit + 1) in skeleton:  # the usual attack, found at once
        return True
    return max(accumulate(array("b", skeleton)), default=0) > limit


def loads(raw: bytes | str) -> Any:
    """json.loads that refuses a too deep text with `json_too_deep` (422) before parsing it;
    other bad input raises ValueError (or UnicodeDecodeError) as json.loads does."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if too_deep(data):
        raise DomainError("json_too_deep", max=MAX_DEPTH)
    return json.loads(raw)


def _is_json(headers: dict[bytes, bytes]) -> bool:
    """FastAPI reads a body as JSON when it says so, or says nothing at all."""
    kind = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    return not kind or kind == b"application/json" or (kind.startswith(b"application/") and kind.endswith(b"+json"))


async def _answer(send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class JsonDepthLimit:
    """Pure ASGI, inside BodyLimit (so the body it reads is already capped): a JSON body nested
    deeper than MAX_DEPTH is answered 422 `json_too_deep` in the error body of API.md; any other
    body goes on to the app unchanged."""

    def __init__(self, app, max_depth: int = MAX_DEPTH):
        self.app, self.max_depth = app, max_depth

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS") or not _is_json(headers):
            return await self.app(scope, receive, send)
        chunks, more = [], True
        try:
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    return await self.app(scope, _replay([message], receive), send)
                chunks.append(message.get("body", b""))
                more = message.get("more_body", False)
        except BodyTooLarge:
            return await _answer(send, 413, too_large_body(headers.get(b"accept-language", b"").decode("latin-1")))
        body = b"".join(chunks)
        if too_deep(body, self.max_depth):
            return await _answer(send, 422, _too_deep_body(scope, self.max_depth))
        return await self.app(scope, _replay([{"type": "http.request", "body": body, "more_body": False}], receive), send)


def _replay(messages: list[dict], receive):
    async def replayed():
        return messages.pop(0) if messages else await receive()

    return replayed


def _too_deep_body(scope, max_depth: int) -> bytes:
    request = Request(scope)
    gettext = translations(choose_locale(None, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))).gettext
    params = {"max": max_depth}
    return json.dumps(
        {"error": {"code": "json_too_deep", "message": message_for("json_too_deep", params, gettext), "details": []}}
    ).encode()

"""Large fragments of a page sent from their compressed form, kept (issue 37).

A map of 300 places is a page of 135 KB, nine tenths of it the drawing (paths, places, the
list of places), which is the same for every viewer until the map changes and is kept drawn
(app/maps/view.py `Drawings`). Compressing the whole page again for each request cost a
millisecond, a quarter of the page. A fragment written as `Kept` is compressed once, when first
drawn, and spliced into each page's gzip stream as it is: the rest of the page (the few KB that
differ per viewer) is compressed around it.

How: while a page is drawn (`drawing`), a `Kept` value written into it leaves a marker holding
a secret of this process (nothing a user types can make one), and the page is cut at the
markers into its parts. The response's body is the whole page, as before: everything between
the route and the compression (the page's ETag, a 304) sees the same bytes. `SplicedGzip`, just
inside the compression, sends the parts as one gzip member: each part of the page deflated on
its own and flushed to a byte boundary (Z_SYNC_FLUSH, no final block), each kept fragment as its
deflated bytes, kept, ending with the last part's final block and the CRC and size of the whole
page. A deflate stream may be cut and joined at such boundaries; no part refers back into
another, since each is deflated with no history (RFC 1951 3.2.3, RFC 1952 2.3).
"""

from __future__ import annotations

import secrets
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cached_property

from markupsafe import Markup
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Private-use characters around a secret of this process: a page's text never holds one by
# chance, and whoever writes into a page (a place's name) cannot guess it.
_MARK = "\ue000" + secrets.token_hex(12) + ":"
_END = "\ue001"
_FOUND: ContextVar[dict[str, Kept] | None] = ContextVar("hideout_kept_fragments", default=None)
STATE_KEY = "page_parts"
# RFC 1952: magic, deflate, no flags, no time, no extra flags, OS unknown.
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
# Compressed once per drawing, by the worker thread that draws it (`Kept.made`): level 9 took
# 4.7 ms for the paths of a 300-place map, level 6 1.2 ms for 4 % more bytes, and the first
# viewer after each change of the map waits for it.
KEPT_LEVEL = 6


def _deflated(data: bytes, level: int, mode: int) -> bytes:
    """Raw deflate of `data` with no history, ended by `mode` (a sync flush or the final block)."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush(mode)


class Kept(Markup):
    """Markup that is the same for many pages: outside `drawing` it is plain Markup; inside,
    it is written as its marker and sent from its deflated bytes, made once."""

    def __html__(self) -> Markup:  # type: ignore[override]  # a marker, not the fragment
        found = _FOUND.get()
        if found is None:
            return self
        key = str(id(self))
        found[key] = self  # held until the page is cut: the id is not reused meanwhile
        return Markup(f"{_MARK}{key}{_END}")

    @classmethod
    def made(cls, markup: Markup) -> Kept:
        """Kept, compressed now: in the worker thread drawing it, not on its way out through
        the event loop, which would wait for it."""
        kept = cls(markup)
        _ = kept.deflated
        return kept

    @cached_property
    def encoded(self) -> bytes:
        return str.encode(self)

    @cached_property
    def deflated(self) -> bytes:
        return _deflated(self.encoded, KEPT_LEVEL, zlib.Z_SYNC_FLUSH)


Part = str | Kept


@contextmanager
def drawing() -> Iterator[dict[str, Kept]]:
    """Around drawing a page's text: the `Kept` values written into it meanwhile, by marker."""
    found: dict[str, Kept] = {}
    token = _FOUND.set(found)
    try:
        yield found
    finally:
        _FOUND.reset(token)


def cut(html: str, found: dict[str, Kept]) -> list[Part]:
    """The page's parts in order, its markers replaced by their fragments (joined, they are the
    page); none if nothing was kept."""
    if not found:
        return []
    pieces = html.split(_MARK)
    parts: list[Part] = [pieces[0]]
    for piece in pieces[1:]:
        key, _, rest = piece.partition(_END)
        parts += (found[key], rest)
    return parts


def gzipped(parts: list[Part], level: int) -> tuple[bytes, int]:
    """One gzip member of the parts' text, and the text's size in bytes: each run of plain
    parts deflated at `level`, each kept fragment from its kept deflated bytes."""
    out: list[bytes] = [_GZIP_HEADER]
    plain: list[bytes] = []
    crc = size = 0
    for part in parts:
        data = part.encoded if isinstance(part, Kept) else part.encode()
        crc, size = zlib.crc32(data, crc), size + len(data)
        if isinstance(part, Kept):
            if plain:
                out.append(_deflated(b"".join(plain), level, zlib.Z_SYNC_FLUSH))
                plain = []
            out.append(part.deflated)
        else:
            plain.append(data)
    out.append(_deflated(b"".join(plain), level, zlib.Z_FINISH))
    out.append(struct.pack("<II", crc, size & 0xFFFFFFFF))
    return b"".join(out), size


class SplicedGzip:
    """Pure ASGI, just inside the compression (which leaves an answer that says its encoding
    alone): a page cut into parts goes out gzipped from them, if the client takes gzip. Any
    other answer passes untouched."""

    def __init__(self, app: ASGIApp, level: int) -> None:
        self.app = app
        self.level = level

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or "gzip" not in Headers(scope=scope).get("accept-encoding", ""):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        parts: list[Part] = []

        async def send_spliced(message: Message) -> None:
            nonlocal start, parts
            if message["type"] == "http.response.start" and message["status"] == 200:
                parts = (scope.get("state") or {}).get(STATE_KEY) or []
                if parts:
                    start = message  # held for the body
                    return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            held, start = start, None
            if not message.get("more_body", False):
                compressed, size = gzipped(parts, self.level)
                # The body is the page's parts unless something on its way changed it: then it
                # goes on as it is, and the compression outside does its usual work.
                if size == len(message.get("body", b"")):
                    message["body"] = compressed
                    headers = MutableHeaders(scope=held)
                    headers["Content-Encoding"] = "gzip"
                    headers["Content-Length"] = str(len(compressed))
                    headers.add_vary_header("Accept-Encoding")
            await send(held)
            await send(message)

        await self.app(scope, receive, send_spliced)

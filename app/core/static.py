"""Static files under content-hashed URLs: `static_url("app.js")` is `/static/app.js?v=<hash>`,
and a request carrying the file's current hash may be cached for a year (`immutable`); any
other request revalidates (ETag / Last-Modified from Starlette). A changed file gets a new URL,
so a phone never runs yesterday's script against today's page."""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
import re
from dataclasses import dataclass
from email.utils import formatdate
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Receive, Scope, Send

from app.core.settings import PACKAGE

STATIC_DIR = PACKAGE / "static"
_ROOT = STATIC_DIR.resolve()  # once: both checks below ran it on every static request
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


@lru_cache(maxsize=256)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256((STATIC_DIR / path).read_bytes()).hexdigest()[:12]


def file_hash(path: str) -> str | None:
    """The content hash of static/<path> (recomputed when the file changes), None if absent."""
    target = (STATIC_DIR / path).resolve()
    if not target.is_relative_to(_ROOT):
        return None
    try:
        stat = target.stat()
    except OSError:
        return None
    return _digest(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=256)
def static_url(path: str) -> str:
    """Worked out once per process: an upgrade restarts the server (issue 17:
    a page names eight files, and eight `stat`s a request are a tenth of a small page)."""
    digest = file_hash(path)
    return f"/static/{path}?v={digest}" if digest else f"/static/{path}"


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def lean(name: str, text: str) -> str:
    """Our own stylesheets and scripts as served: the comments that explain them to the next
    developer stay in the source, not on every phone's first load (issue 37: a third of their
    compressed bytes). CSS loses its comments; a script, its whole-line `//` comments; both,
    their indentation and blank lines. A script with a string over several lines (a template
    literal, a line ending in a backslash) is served as it is: its lines are not all code."""
    lines = text.split("\n")
    if name.endswith(".js") and any(line.count("`") % 2 or line.endswith("\\") for line in lines):
        return text
    if name.endswith(".css"):
        lines = _CSS_COMMENT.sub("", text).split("\n")
    kept = (line.strip() for line in lines)
    return "\n".join(line for line in kept if line and not (name.endswith(".js") and line.startswith("//"))) + "\n"


def _is_lean(path: str) -> bool:
    return path.endswith((".css", ".js")) and not path.startswith("vendor/")


# Text files up to this size are kept compressed in memory, once per file version, at zlib's
# best level: compressing htmx anew for every phone's first load cost more than serving the
# page (issue 37). Larger ones (the API console's bundle) are compressed per request as before.
PRECOMPRESSED = (".css", ".js", ".svg", ".webmanifest", ".json", ".txt")
PRECOMPRESS_MAX = 256 * 1024


@dataclass(frozen=True)
class _Served:
    body: bytes
    gzipped: bytes | None
    etag: str


@lru_cache(maxsize=64)
def _served(path: str, mtime_ns: int, size: int) -> _Served:
    body = lean(path, (STATIC_DIR / path).read_text()).encode() if _is_lean(path) else (STATIC_DIR / path).read_bytes()
    gzipped = gzip.compress(body, compresslevel=9, mtime=0) if len(body) <= PRECOMPRESS_MAX else None
    return _Served(body, gzipped, hashlib.md5(body, usedforsecurity=False).hexdigest())


def _accepts_gzip(scope: Scope) -> bool:
    return "gzip" in Headers(scope=scope).get("accept-encoding", "")


class HashedStaticFiles(StaticFiles):
    def file_response(self, full_path, stat_result: os.stat_result, scope: Scope, status_code: int = 200) -> Response:
        """Our own CSS and scripts leaned (above), and every small text file compressed, once
        per file version, from memory."""
        path = Path(full_path).resolve().relative_to(_ROOT).as_posix()
        if not (_is_lean(path) or path.endswith(PRECOMPRESSED)) or stat_result.st_size > PRECOMPRESS_MAX:
            return super().file_response(full_path, stat_result, scope, status_code)
        served = _served(path, stat_result.st_mtime_ns, stat_result.st_size)
        media_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
        headers = {"last-modified": formatdate(stat_result.st_mtime, usegmt=True), "vary": "Accept-Encoding"}
        body = served.body
        if served.gzipped is not None and _accepts_gzip(scope):
            # Its own validator: the compressed bytes are another representation of the file.
            body, headers["content-encoding"], headers["etag"] = served.gzipped, "gzip", f'"{served.etag}-gz"'
        else:
            headers["etag"] = f'"{served.etag}"'
        response = Response(body, status_code=status_code, media_type=media_type, headers=headers)
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        requested = parse_qs(scope.get("query_string", b"").decode(errors="replace")).get("v", [None])[0]
        path = Path(self.get_path(scope)).as_posix()
        cache = IMMUTABLE if requested and requested == file_hash(path) else REVALIDATE

        async def send_with_cache(message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (200, 304):
                message.setdefault("headers", [])
                # A file under its hash is never asked for again: its date is 44 bytes for nothing
                # (the ETag stays, for the unhashed URL's revalidation).
                dropped = (b"cache-control", b"last-modified", b"accept-ranges") if cache == IMMUTABLE else (b"cache-control",)
                message["headers"] = [(k, v) for k, v in message["headers"] if k.lower() not in dropped]
                message["headers"].append((b"cache-control", cache.encode()))
            await send(message)

        await super().__call__(scope, receive, send_with_cache)

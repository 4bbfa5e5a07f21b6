"""Static files under content-hashed URLs: `static_url("app.js")` is `/static/app.js?v=<hash>`,
and a request carrying the file's current hash may be cached for a year (`immutable`); any
other request revalidates (ETag / Last-Modified from Starlette). A changed file gets a new URL,
so a phone never runs yesterday's script against today's page."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs

from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from app.core.settings import PACKAGE

STATIC_DIR = PACKAGE / "static"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


@lru_cache(maxsize=256)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256((STATIC_DIR / path).read_bytes()).hexdigest()[:12]


def file_hash(path: str) -> str | None:
    """The content hash of static/<path> (recomputed when the file changes), None if absent."""
    target = (STATIC_DIR / path).resolve()
    if not target.is_relative_to(STATIC_DIR.resolve()):
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


class HashedStaticFiles(StaticFiles):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        requested = parse_qs(scope.get("query_string", b"").decode(errors="replace")).get("v", [None])[0]
        path = Path(self.get_path(scope)).as_posix()
        cache = IMMUTABLE if requested and requested == file_hash(path) else REVALIDATE

        async def send_with_cache(message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (200, 304):
                message.setdefault("headers", [])
                message["headers"] = [(k, v) for k, v in message["headers"] if k.lower() != b"cache-control"]
                message["headers"].append((b"cache-control", cache.encode()))
            await send(message)

        await super().__call__(scope, receive, send_with_cache)

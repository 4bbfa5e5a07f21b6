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

from app.core.security import CSRF_COOKIE, LANG_COOKIE
from app.core.settings import ROOT

STATIC_DIR = ROOT / "static"
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
    """Worked out once per process, like `build_id`: an upgrade restarts the server (issue 17:
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


# --- pages: ETag and 304 (issue 17) ------------------------------------------------------------

PAGE_CACHE = "private, no-cache"


@lru_cache(maxsize=1)
def build_id() -> str:
    """The code, templates, translations and static files this server runs: the same in every
    worker of one install, different after an upgrade (a page's ETag must change with it)."""
    digest = hashlib.sha256()
    for folder in ("app", "templates", "static", "translations"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                stat = path.stat()
                digest.update(f"{path.relative_to(ROOT)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def page_etag(request, user_id: int, versions: tuple[int, int, int]) -> str:
    """A weak ETag of everything a campaign page depends on: the campaign's and the
    everywhere change counters, who asks, in which language, how (a page or an htmx partial),
    the address, the browser's CSRF cookie (its token is in every form), and the catalog files
    (imported catalogs are picked up without a restart)."""
    h = request.headers
    catalog = getattr(request.app.state, "catalog", None)
    parts = (build_id(), catalog.stamp() if catalog is not None else None, user_id, versions, request.url.path, request.url.query, h.get("hx-request", ""),
             h.get("accept-language", ""), request.cookies.get(LANG_COOKIE, ""), request.cookies.get(CSRF_COOKIE, ""),
             getattr(request.state, "locale", ""))
    return 'W/"' + hashlib.sha256(repr(parts).encode()).hexdigest()[:24] + '"'


class NotModified(Exception):
    """Raised by the page's login dependency when the browser's copy is current."""

    def __init__(self, etag: str) -> None:
        super().__init__(etag)
        self.etag = etag

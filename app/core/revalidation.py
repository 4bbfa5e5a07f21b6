"""A campaign page's cheap revalidation (issue 37): a page answered 304 without drawing it,
where nothing its viewer may see has changed since it was last drawn for the same request.

What a page shows is a function of the request (its path, query, cookies and headers), of
what its viewer may see of the database, and of nothing else: the pages that show the clock
(a battle's) say so and are never answered here. What the viewer may see is summed up by
the viewer's key (app/accounts/revalidation.py): their session's form key, locale and time
zone, the catalog's generation, and the change counters of their seats in the campaign (every
member's, their player's, the game masters' for a GM, their own as a user) and of changes
placed nowhere, which a change moves only for those who may see it (app/versions/audience.py).
So a revalidation answered here costs the same whatever anyone did out of the viewer's sight
(R11.2): it is answered here exactly when the viewer's key is the one the page was last drawn
with.

The memory is the process's own (a worker that has not drawn the page draws it), bounded, and
forgets an entry after `TTL` seconds however still it stands."""

from __future__ import annotations

import hashlib
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.requests import cookie_parser
from starlette.types import Scope

from app.core.db import read_slot
from app.core.flash import FLASH_COOKIE
from app.core.logging import log
from app.core.security import SESSION_COOKIE
from app.core.types import MAX_ID

SIZE = 4096
TTL = 300.0
STATE = "hideout_revalidation"
_PAGE = re.compile(r"/campaigns/([1-9][0-9]{0,9})(?:/|$)")  # ten digits at most: MAX_ID has ten
# Request headers no page reads: the revalidation's own, the transport's, the log's.
UNREAD = {
    b"if-none-match",
    b"if-modified-since",
    b"cache-control",
    b"pragma",
    b"connection",
    b"accept-encoding",
    b"x-request-id",
    b"priority",
    b"content-length",
}

ViewerKey = Callable[[object, str, int, bool], Hashable | None]


class Unchanged(AssertionError):
    """The suite's check (`Settings.revalidation_check`): a page drawn again for the same
    request and the same viewer's key came out different, so a 304 answered from memory
    would have been stale — a change that moved nobody's counter (app/versions/audience.py)."""


@dataclass(frozen=True)
class Drawn:
    viewer: Hashable
    etag: str
    digest: bytes  # of its body, for the suite's check
    headers: tuple[tuple[bytes, bytes], ...]  # but the ETag
    at: float


def campaign_of(scope: Scope) -> int | None:
    found = _PAGE.match(scope["path"]) if scope.get("method") == "GET" else None
    return int(found[1]) if found and int(found[1]) <= MAX_ID else None


class Revalidations:
    def __init__(self, viewer_key: ViewerKey) -> None:
        self.viewer_key = viewer_key
        self.drawn: OrderedDict[bytes, Drawn] = OrderedDict()
        # The headers of a 304 but its ETag, kept once for every page that answers with them
        # (the security headers and the cache's word make up most of an entry, alike in all).
        self.headers: dict[tuple, tuple] = {}

    def forget(self) -> None:
        """Every page drawn anew (the test suite, whose database goes back to a remembered state)."""
        self.drawn.clear()

    async def key(self, scope: Scope, asked: bool) -> tuple[bytes, Hashable] | None:
        """The request's key and its viewer's, for a campaign page's GET by a logged-in viewer
        with no flash message waiting (a page carrying one is not the page a revalidation
        would show); read only to revalidate, or always in the suite's check."""
        app = scope["app"]
        check = app.state.settings.revalidation_check
        campaign_id = campaign_of(scope) if asked or check else None
        if campaign_id is None:
            return None
        cookies = cookie_parser(dict(scope["headers"]).get(b"cookie", b"").decode("latin-1"))
        token = cookies.get(SESSION_COOKIE)
        if not token or FLASH_COOKIE in cookies:
            return None
        try:
            if asked:
                async with read_slot(app):
                    viewer = await run_in_threadpool(self.viewer_key, app, token, campaign_id, False)
            else:  # the suite's check alone: read here, not in a worker thread the page would not cross into
                viewer = self.viewer_key(app, token, campaign_id, True)
        except Exception:  # noqa: BLE001 — the database unreachable or busy: the route answers, as without memory
            log.warning("revalidation_key_unread", exc_info=True)
            return None
        if viewer is None:
            return None
        read = [(k, v) for k, v in scope["headers"] if k not in UNREAD]
        request = hashlib.blake2b(repr((scope["path"], scope["query_string"], read)).encode(), digest_size=16).digest()
        return request, viewer

    def unchanged(self, key: tuple[bytes, Hashable], check: bool) -> Drawn | None:
        drawn = self.drawn.get(key[0])
        if drawn is None or drawn.viewer != key[1] or (not check and time.monotonic() - drawn.at > TTL):
            return None
        self.drawn.move_to_end(key[0])  # the least recently asked go first
        return drawn

    def remember(self, key: tuple[bytes, Hashable], etag: str, body: bytes, headers, check: bool) -> None:
        digest = hashlib.blake2b(body, digest_size=16).digest() if check else b""
        if check:
            before = self.drawn.get(key[0])
            if before is not None and before.viewer == key[1] and before.digest != digest:
                raise Unchanged(f"drawn anew with the same viewer's key {key[1]!r}: a change moved no counter")
        kept = tuple(h for h in headers if h[0] != b"etag")
        if len(self.headers) > SIZE:
            self.headers.clear()
        self.drawn[key[0]] = Drawn(key[1], etag, digest, self.headers.setdefault(kept, kept), time.monotonic())
        self.drawn.move_to_end(key[0])
        while len(self.drawn) > SIZE:
            self.drawn.popitem(last=False)

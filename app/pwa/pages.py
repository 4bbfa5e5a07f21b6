"""Installable on a phone (issue 19): the service worker at the site's root and the page it
shows offline when it holds no copy of the page asked for. The manifest and icons are plain
static files (static/manifest.webmanifest, static/icons/)."""

from __future__ import annotations

import mimetypes

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse

from app.core.i18n import LOCALES, choose_locale
from app.core.security import LANG_COOKIE, SESSION_COOKIE, token_digest
from app.core.settings import PACKAGE
from app.core.templating import render

router = APIRouter(tags=["pwa"])
WORKER = PACKAGE / "static" / "sw.js"
# Older Pythons guess nothing for it; browsers accept the manifest either way, but say it right.
mimetypes.add_type("application/manifest+json", ".webmanifest")


@router.get("/sw.js")
def service_worker():
    """Served from the root, not /static/, because a worker controls only the pages under
    its own folder: here that is the whole site (scope "/"). `no-cache` so that a new
    version is picked up at the browser's next check rather than after a day."""
    return FileResponse(
        WORKER, media_type="application/javascript", headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"}
    )


@router.get("/offline")
def offline(request: Request, lang: str | None = None):
    """Fetched by the worker ahead of time (never by a person), so it carries nobody's name:
    no login, no forms. `lang` is the language of the page the person last saw."""
    request.state.locale = choose_locale(
        lang if lang in LOCALES else None, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language")
    )
    return render(request, "pwa/offline.html")


def viewer_key(context: dict) -> dict:
    """Who a page was drawn for, as the worker sees it (a meta tag in base.html): the worker
    keeps saved pages of one key only and drops them when a page shows another (a logout, a
    different login). A digest of the user, not the session: a page's ETag follows the user,
    so a copy revalidated after a new login of the same person must keep the same key.
    "" is nobody (no session cookie); None is not known (a page drawn without looking at the
    login, as a 404 for an unknown address), and the worker then keeps what it has."""
    user = context.get("user")
    request = context.get("request")
    if request is None:
        return {"pwa_viewer": None}
    if user is None:
        return {"pwa_viewer": None if request.cookies.get(SESSION_COOKIE) else ""}
    return {"pwa_viewer": token_digest(request.app.state.secret_key, f"pwa-viewer:{user.id}")[:20]}

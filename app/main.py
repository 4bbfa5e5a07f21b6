"""create_app(): routers, static files, middleware and error handlers."""
from __future__ import annotations

import re
from contextlib import asynccontextmanager
from urllib.parse import quote

import structlog
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy import exc as sa_exc
from starlette.datastructures import MutableHeaders
from starlette.middleware.gzip import GZipMiddleware
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.accounts import api as accounts_api, pages as accounts_pages
from app.campaigns import api as campaigns_api, pages as campaigns_pages
from app.battles import api as battles_api, pages as battles_pages
from app.catalog import api as catalog_api, pages as catalog_pages
from app.catalog.catalog import CatalogStore
from app.chronicle import api as chronicle_api, pages as chronicle_pages
from app.companies import api as companies_api, pages as companies_pages
from app.events import api as events_api, pages as events_pages
from app.gold import api as gold_api, pages as gold_pages
from app.guilds import api as guilds_api, pages as guilds_pages
from app.alliances import api as alliances_api, pages as alliances_pages
from app.letters import api as letters_api, pages as letters_pages
from app.live import api as live_api, pages as live_pages
from app.clock import api as clock_api, pages as clock_pages
from app.season import api as season_api, pages as season_pages
from app.webhooks import api as webhooks_api, pages as webhooks_pages
from app.exports import api as exports_api, pages as exports_pages
from app.pwa import pages as pwa_pages
from app.core import background
from app.movement import pages as movement_pages
from app.warbands import api as warbands_api, pages as warbands_pages
from app.rounds import api as rounds_api, pages as rounds_pages
from app.settlement import api as settlement_api, pages as settlement_pages
from app.maps import api as maps_api, map_pages, pages as maps_pages
from app.core.db import make_engine
from app.core.live import broker, close_streams_on_exit
from app.core.errors import ERRORS, DomainError, detail_messages, error_responses, message_for
from app.core.flash import clear_if_taken
from app.core.i18n import choose_locale
from app.core.nul import reject_nul
from app.core.limits import MAX_BODY, BodyLimit, BodyTooLarge
from app.core.logging import RequestLogMiddleware, configure_logging
from app.core.security import CSRF_COOKIE, LANG_COOKIE, SESSION_COOKIE
from app.core.settings import ROOT, Settings, get_settings
from app.maps.view import Drawings
from app.core.static import PAGE_CACHE, HashedStaticFiles, NotModified, static_url
from app.core.templating import env, render, request_gettext
from app.core.validation import details_from_errors

log = structlog.get_logger()
ERRORS_DECLARED = error_responses()
# No inline script anywhere (scripts live in static/); inline styles stay allowed.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
       "connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'")
API_PREFIX = "/api/v1"


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _ensure_locale(request: Request) -> None:
    if not hasattr(request.state, "locale"):
        request.state.locale = choose_locale(
            None, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language")
        )


def _error_json(request: Request, status: int, code: str, params: dict | None = None, details=None) -> JSONResponse:
    message = message_for(code, params or {}, request_gettext(request))
    return JSONResponse({"error": {"code": code, "message": message, "details": details or []}}, status_code=status)


def _allowed_methods(request: Request) -> str | None:
    """Every documented method at this API path (FastAPI keeps one route per method, so
    Starlette's own Allow header names only the first one that matched)."""
    table = getattr(request.app.state, "allowed_methods", None)
    if table is None:
        table = [(re.compile("^" + re.sub(r"{[^/]+}", "[^/]+", path) + "$"), sorted(m.upper() for m in ops))
                 for path, ops in request.app.openapi().get("paths", {}).items()]
        request.app.state.allowed_methods = table
    for pattern, methods in table:
        if pattern.match(request.url.path):
            return ", ".join(methods)
    return None


def _error_page(request: Request, status: int, code: str, params: dict | None = None) -> object:
    if code == "not_logged_in":
        return RedirectResponse(f"/login?next={quote(request.url.path)}", status_code=303)
    message = message_for(code, params or {}, request_gettext(request))
    if request.headers.get("hx-request"):
        return render(request, "partials/error.html", status_code=status, message=message)
    return render(request, "error.html", status_code=status, message=message, status=status)


def _internal_error(request: Request, code: str = "internal_error") -> object:
    """The answer to an unexpected exception (logged once by RequestLogMiddleware), or to a
    request the server's stop cut short: the error body or page, with the request id to quote
    when reporting it."""
    _ensure_locale(request)
    request_id = getattr(request.state, "request_id", None)
    status = ERRORS[code][0]
    message = message_for(code, {}, request_gettext(request))
    if _is_api(request):
        body = {"code": code, "message": message, "details": [], "request_id": request_id}
        return JSONResponse({"error": body}, status_code=status)
    template = "partials/error.html" if request.headers.get("hx-request") else "error.html"
    return render(request, template, status_code=status, message=message, status=status, request_id=request_id)


# --- error handlers: every refusal in the error body of API.md or a page in the user's language


async def _body_too_large(request: Request, exc: BodyTooLarge):
    _ensure_locale(request)
    params = {"max_mb": MAX_BODY // (1024 * 1024)}
    if _is_api(request):
        return _error_json(request, 413, "body_too_large", params)
    return _error_page(request, 413, "body_too_large", params)


async def _domain_error(request: Request, exc: DomainError):
    _ensure_locale(request)
    if _is_api(request):
        response = _error_json(request, exc.status, exc.code, exc.params, detail_messages(exc.details, request_gettext(request)))
    else:
        response = _error_page(request, exc.status, exc.code, exc.params)
    if exc.status == 429 and "wait" in exc.params:
        response.headers["Retry-After"] = str(int(exc.params["wait"]))
    return response


async def _validation_error(request: Request, exc: RequestValidationError):
    _ensure_locale(request)
    errors = list(exc.errors())
    if any(err.get("loc", ("",))[0] == "path" for err in errors):
        # An id in the path that cannot exist (0, -1, 2**31, "abc") is simply not found.
        return _error_json(request, 404, "not_found") if _is_api(request) else _error_page(request, 404, "not_found")
    details = details_from_errors(errors, request_gettext(request))
    if _is_api(request):
        return _error_json(request, 422, "validation_error", details=details)
    return _error_page(request, 422, "validation_error")


async def _http_error(request: Request, exc: StarletteHTTPException):
    _ensure_locale(request)
    code = {401: "not_logged_in", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "field_invalid")
    # A body that cannot be parsed (bad UTF-8, nesting too deep) is invalid input: 422.
    status = 422 if exc.status_code == 400 else exc.status_code
    code = "validation_error" if status == 422 else code
    response = _error_json(request, status, code) if _is_api(request) else _error_page(request, status, code)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    allowed = _allowed_methods(request) if exc.status_code == 405 else None
    if allowed:
        response.headers["Allow"] = allowed
    return response


# Seconds a client is told to wait after a 503 (the pool reconnects by itself on the next request).
DATABASE_RETRY_AFTER = 5


async def _database_unavailable(request: Request, exc: Exception):
    """The database went away (a restart, killed connections, refused connections, a full disk):
    the transaction was rolled back or never began, so the answer is a 503 to try again, not a
    500 with a traceback. Logged as a warning without the stack: it is the database's state,
    not a bug."""
    _ensure_locale(request)
    log.warning("database_unavailable", path=request.url.path, error=str(getattr(exc, "orig", exc)).strip()[:300])
    if _is_api(request):
        response = _error_json(request, 503, "database_unavailable")
    else:
        response = _error_page(request, 503, "database_unavailable")
    response.headers["Retry-After"] = str(DATABASE_RETRY_AFTER)
    return response


async def _not_modified(request: Request, exc: NotModified):
    return Response(status_code=304, headers={"ETag": exc.etag, "Cache-Control": PAGE_CACHE})


async def _unexpected(request: Request, exc: Exception):
    # Only for errors outside RequestLogMiddleware (which answers and logs the rest).
    log.exception("unhandled_error", path=request.url.path)
    return _internal_error(request)


class CookiesAndHeaders:
    """Pure ASGI (a `@app.middleware("http")` would stream every answer through a memory
    channel and cost a task per request): the CSRF, flash and ended-session cookies that the
    request's dependencies asked for, and the security headers, added to the response start."""

    def __init__(self, app, settings: Settings) -> None:
        self.app, self.settings = app, settings
        self.defaults = [("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "same-origin"),
                         ("X-Frame-Options", "DENY"), ("Content-Security-Policy", CSP)]
        if settings.secure_cookies:
            self.defaults.append(("Strict-Transport-Security", "max-age=31536000; includeSubDomains"))

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for value in self._cookies(scope):
                    headers.append("set-cookie", value)
                etag = (scope.get("state") or {}).get("etag")
                if etag and message["status"] == 200 and headers.get("content-type", "").startswith("text/html"):
                    headers["ETag"], headers["Cache-Control"] = etag, PAGE_CACHE
                for name, value in self.defaults:
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _cookies(self, scope) -> list[str]:
        state = scope.get("state") or {}
        if not (state.get("new_csrf_cookie") or state.get("flash_taken") or state.get("session_ended")):
            return []  # most answers set no cookie: no response to build
        jar = Response()
        if state.get("new_csrf_cookie"):
            jar.set_cookie(CSRF_COOKIE, state["new_csrf_cookie"], httponly=True, samesite="lax",
                           secure=self.settings.secure_cookies, max_age=60 * 60 * 24 * 365)
        clear_if_taken(Request(scope), jar)
        if state.get("session_ended"):
            jar.delete_cookie(SESSION_COOKIE)
        return [v.decode("latin-1") for k, v in jar.raw_headers if k == b"set-cookie"]


API_MODULES = (accounts_api, exports_api, campaigns_api, maps_api, chronicle_api, catalog_api, companies_api, gold_api, events_api,
               warbands_api, battles_api, rounds_api, settlement_api, guilds_api, alliances_api,
               letters_api, live_api, clock_api, season_api, webhooks_api)
PAGE_MODULES = (accounts_pages, campaigns_pages, maps_pages, map_pages, chronicle_pages, companies_pages, gold_pages,
                catalog_pages, events_pages, warbands_pages, battles_pages, rounds_pages, settlement_pages, guilds_pages, alliances_pages,
                letters_pages, movement_pages, live_pages, clock_pages, season_pages, webhooks_pages, exports_pages, pwa_pages)


def _add_routes(app: FastAPI) -> None:
    for module in API_MODULES:
        app.include_router(module.router, prefix=API_PREFIX, responses=ERRORS_DECLARED)
    for module in PAGE_MODULES:
        app.include_router(module.router, include_in_schema=False)
    app.mount("/static", HashedStaticFiles(directory=ROOT / "static"), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        """Browsers ask for it whatever the page says; the icon is an SVG."""
        return RedirectResponse(static_url("favicon.svg"), status_code=301)

    @app.get("/api/docs", include_in_schema=False)
    def api_docs():
        """Swagger UI from the vendored swagger-ui-dist (no CDN, no online validator)."""
        html = env.get_template("api/docs.html").render(openapi_url=app.openapi_url, title=f"{app.title} · docs")
        return HTMLResponse(html)


@asynccontextmanager
async def _lifespan(app: FastAPI):
    # Under a server that handles SIGTERM (uvicorn), open live streams end at once on shutdown.
    broker.closing = False
    close_streams_on_exit()
    jobs = background.start(app)
    yield
    await background.stop(jobs)
    await broker.stop_listener()


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(
        title="Hideout API",
        version="1",
        description="Campaign server for Kings of War: Vanguard. See API.md for the contract.",
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url=None,  # served from static/vendor/swagger-ui, so it works offline
        redoc_url=None,
        dependencies=[Depends(reject_nul)],
        lifespan=_lifespan,
    )
    app.state.settings = settings
    app.state.engine = make_engine(settings.resolved_database_url(), settings.sqlite_synchronous)
    app.state.secret_key = settings.resolved_secret_key()
    app.state.catalog = CatalogStore(settings.var_dir / "catalog")
    app.state.map_drawings = Drawings()
    app.add_middleware(BodyLimit)
    configure_logging(json=settings.log_json, level=settings.log_level)
    # Inside the headers middleware, so a 500 answer still gets its cookies and headers.
    app.add_middleware(RequestLogMiddleware, on_error=_internal_error)
    app.add_middleware(CookiesAndHeaders, settings=settings)
    # Outermost: HTML, JSON, CSS, JS and SVG above 500 bytes go out compressed (not the live
    # stream: Starlette leaves text/event-stream alone).
    app.add_middleware(GZipMiddleware, minimum_size=500, compresslevel=6)
    for exc_class, handler in ((BodyTooLarge, _body_too_large), (DomainError, _domain_error),
                               (RequestValidationError, _validation_error), (StarletteHTTPException, _http_error),
                               (NotModified, _not_modified),
                               (sa_exc.OperationalError, _database_unavailable), (sa_exc.TimeoutError, _database_unavailable),
                               (Exception, _unexpected)):
        app.add_exception_handler(exc_class, handler)
    _add_routes(app)
    return app

"""create_app(): routers, static files, middleware and error handlers."""

from __future__ import annotations

import inspect
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from fastapi.routing import APIRoute
from fastapi.utils import generate_unique_id
from sqlalchemy import exc as sa_exc
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from app import openapi
from app.accounts import api as accounts_api
from app.accounts import pages as accounts_pages
from app.accounts import revalidation
from app.alliances import api as alliances_api
from app.alliances import pages as alliances_pages
from app.archive import api as archive_api
from app.archive import pages as archive_pages
from app.archive.deps import refuse_finished
from app.audit import api as audit_api
from app.audit import pages as audit_pages
from app.battles import api as battles_api
from app.battles import pages as battles_pages
from app.battles import table_pages as battles_table_pages
from app.campaigns import api as campaigns_api
from app.campaigns import pages as campaigns_pages
from app.campaigns.deps import campaign_route
from app.catalog import api as catalog_api
from app.catalog import pages as catalog_pages
from app.catalog.catalog import CatalogStore
from app.chronicle import api as chronicle_api
from app.chronicle import pages as chronicle_pages
from app.clock import api as clock_api
from app.clock import pages as clock_pages
from app.companies import api as companies_api
from app.companies import pages as companies_pages
from app.companies import roster_pages as companies_roster_pages
from app.core import background, lean_routes, route_index
from app.core.api_docs import page as api_docs_page
from app.core.db import ended_in_route, make_engine
from app.core.errors import DomainError, error_responses
from app.core.flash import clear_if_taken
from app.core.json_limits import JsonDepthLimit
from app.core.limits import BodyLimit, BodyTooLarge
from app.core.live import broker, close_streams_on_exit
from app.core.logging import RequestLogMiddleware, configure_logging
from app.core.nul import reject_nul
from app.core.page_cache import PageCache
from app.core.revalidation import Revalidations
from app.core.security import CSRF_COOKIE, SESSION_COOKIE
from app.core.settings import PACKAGE, Settings, get_settings
from app.core.spliced import SplicedGzip
from app.core.static import HashedStaticFiles, static_url
from app.error_handlers import (
    body_too_large,
    database_unavailable,
    domain_error,
    http_error,
    internal_error,
    unexpected,
    validation_error,
)
from app.events import api as events_api
from app.events import pages as events_pages
from app.exports import api as exports_api
from app.exports import pages as exports_pages
from app.gold import api as gold_api
from app.gold import pages as gold_pages
from app.guilds import api as guilds_api
from app.guilds import pages as guilds_pages
from app.idempotency.middleware import OneTapActsOnce, refuse_reused
from app.idempotency.refused import RefusedFormsRedirect
from app.letters import api as letters_api
from app.letters import pages as letters_pages
from app.live import api as live_api
from app.live import pages as live_pages
from app.maps import api as maps_api
from app.maps import map_pages
from app.maps import pages as maps_pages
from app.maps.ready import api as ready_api
from app.maps.ready import pages as ready_pages
from app.maps.view import Drawings
from app.movement import pages as movement_pages
from app.people import api as people_api
from app.people import pages as people_pages
from app.pwa import pages as pwa_pages
from app.rounds import api as rounds_api
from app.rounds import pages as rounds_pages
from app.season import api as season_api
from app.season import pages as season_pages
from app.settlement import api as settlement_api
from app.settlement import pages as settlement_pages
from app.versions import remembered
from app.warbands import api as warbands_api
from app.warbands import pages as warbands_pages
from app.webhooks import api as webhooks_api
from app.webhooks import pages as webhooks_pages
from app.wiring import wire

ERRORS_DECLARED = error_responses()
# No inline script anywhere (scripts live in static/); inline styles stay allowed.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)
API_PREFIX = "/api/v1"
# Pages are drawn for each request, so compressed for each: level 5, not 6, compressed the
# map of 300 places in 1.1 ms instead of 1.5 for 0.3 KB more (issue 37). Static files are
# compressed once, at level 9; a map's kept drawing once per drawing (app/core/spliced.py).
GZIP_LEVEL = 5


class CookiesAndHeaders:
    """Pure ASGI (a `@app.middleware("http")` would stream every answer through a memory
    channel and cost a task per request): the CSRF, flash and ended-session cookies that the
    request's dependencies asked for, and the security headers, added to the response start."""

    def __init__(self, app, settings: Settings) -> None:
        self.app, self.settings = app, settings
        self.defaults = [
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "same-origin"),
            ("X-Frame-Options", "DENY"),
            ("Content-Security-Policy", CSP),
        ]
        if settings.secure_cookies:
            self.defaults.append(("Strict-Transport-Security", "max-age=31536000; includeSubDomains"))
        # A script, a stylesheet or an image is no document: the policy and the framing rule
        # govern documents (and workers: sw.js is served elsewhere) and cost 300 bytes a file
        # of a first load (issue 37). An SVG keeps them: opened by itself it is a document.
        self.file_defaults = [(n, v) for n, v in self.defaults if n not in ("Content-Security-Policy", "X-Frame-Options")]

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        path = scope["path"]
        defaults = self.file_defaults if path.startswith("/static/") and not path.endswith(".svg") else self.defaults

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for value in self._cookies(scope):
                    headers.append("set-cookie", value)
                for name, value in defaults:
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _cookies(self, scope) -> list[str]:
        state = scope.get("state") or {}
        if not (state.get("new_csrf_cookie") or state.get("flash_taken") or state.get("session_ended")):
            return []  # most answers set no cookie: no response to build
        jar = Response()
        if state.get("new_csrf_cookie"):
            jar.set_cookie(
                CSRF_COOKIE,
                state["new_csrf_cookie"],
                httponly=True,
                samesite="lax",
                secure=self.settings.secure_cookies,
                max_age=60 * 60 * 24 * 365,
            )
        clear_if_taken(Request(scope), jar)
        if state.get("session_ended"):
            jar.delete_cookie(SESSION_COOKIE)
        return [v.decode("latin-1") for k, v in jar.raw_headers if k == b"set-cookie"]


API_MODULES = (
    accounts_api,
    exports_api,
    campaigns_api,
    maps_api,
    chronicle_api,
    catalog_api,
    companies_api,
    gold_api,
    events_api,
    warbands_api,
    battles_api,
    rounds_api,
    settlement_api,
    guilds_api,
    alliances_api,
    letters_api,
    live_api,
    clock_api,
    season_api,
    webhooks_api,
    archive_api,
    ready_api,
    people_api,
    audit_api,
)
PAGE_MODULES = (
    accounts_pages,
    campaigns_pages,
    maps_pages,
    map_pages,
    ready_pages,
    chronicle_pages,
    companies_pages,
    companies_roster_pages,
    gold_pages,
    catalog_pages,
    events_pages,
    warbands_pages,
    battles_pages,
    battles_table_pages,
    rounds_pages,
    settlement_pages,
    guilds_pages,
    alliances_pages,
    letters_pages,
    movement_pages,
    live_pages,
    clock_pages,
    season_pages,
    webhooks_pages,
    archive_pages,
    exports_pages,
    pwa_pages,
    people_pages,
    audit_pages,
)


async def _refusals(request: Request) -> None:
    """What every request is refused for before its route: a NUL character (R11.5), a one-tap
    key reused or still in use (R11.6). One dependency for both: FastAPI's solving of each
    dependency cost every request more than these checks (issue 37)."""
    await reject_nul(request)
    await refuse_reused(request)


# The app's own dependencies, run before every route: FastAPI runs them (create_app), and a lean
# page route runs them itself (app/core/lean_routes.py), so they are named once, here.
APP_CHECKS = (_refusals,)


def _add_routes(app: FastAPI) -> None:
    for module in (*API_MODULES, *PAGE_MODULES):
        for route in module.router.routes:
            if isinstance(route, APIRoute) and not inspect.iscoroutinefunction(route.endpoint):
                # A page's context made by its route (not behind an include's or a route's own
                # dependencies, which FastAPI solves first, with a session of their own).
                page = module in PAGE_MODULES and not route.dependencies
                route.endpoint = ended_in_route(campaign_route(route.endpoint) if page else route.endpoint)
    for module in API_MODULES:
        # R12.4: a finished campaign refuses every write in one place (app/archive/deps.py).
        app.include_router(module.router, prefix=API_PREFIX, responses=ERRORS_DECLARED, dependencies=[Depends(refuse_finished)])
    for module in PAGE_MODULES:
        for route in module.router.routes:
            if isinstance(route, APIRoute):
                # Included with no dependency of their own: the app's are all FastAPI would run.
                lean_routes.install(route, checks=APP_CHECKS)
        app.include_router(module.router, include_in_schema=False)
    app.mount("/static", HashedStaticFiles(directory=PACKAGE / "static"), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        """Browsers ask for it whatever the page says; the icon is an SVG."""
        return RedirectResponse(static_url("favicon.svg"), status_code=301)

    @app.get("/api/docs", include_in_schema=False)
    def api_docs():
        """A light reference; Swagger UI (vendored, no CDN) on demand: app/core/api_docs.py."""
        return api_docs_page(app)


@asynccontextmanager
async def _lifespan(app: FastAPI):
    # Under a server that handles SIGTERM (uvicorn), open live streams end at once on shutdown.
    broker.closing = False
    close_streams_on_exit()
    jobs = background.start(app)
    yield
    await background.stop(jobs)
    await broker.stop_listener()


def _operation_id(route: APIRoute) -> str:
    """Readable ids (app/openapi.py); FastAPI's own for a route the table does not name yet."""
    method = sorted(route.methods)[0]
    return openapi.operation_id(method, route.path_format, API_PREFIX) or generate_unique_id(route)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(
        title="Hideout API",
        version="1",
        description="Campaign server for Kings of War: Vanguard. The contract — conventions, every route, the shapes — "
        "is docs/api.md in the project (Idempotency-Key, errors, pagination, the live stream).",
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url=None,  # served from static/vendor/swagger-ui, so it works offline
        redoc_url=None,
        dependencies=[Depends(check) for check in APP_CHECKS],
        lifespan=_lifespan,
        generate_unique_id_function=_operation_id,
    )
    wire()
    openapi.install(app, API_PREFIX)
    app.state.settings = settings
    app.state.engine = make_engine(settings.resolved_database_url(), settings.sqlite_synchronous)
    app.state.secret_key = settings.resolved_secret_key()
    app.state.catalog = CatalogStore(settings.var_dir / "catalog")
    app.state.map_drawings = Drawings()
    app.add_middleware(JsonDepthLimit)  # inside BodyLimit: it reads bodies already capped
    app.add_middleware(BodyLimit)
    # Outside the body limit, inside the request log: a replayed answer is logged as a request.
    app.add_middleware(OneTapActsOnce)
    # Outside it: a refused page form, answered the first time or again, is redirected to
    # its page (post/redirect/get for errors, issue 29).
    app.add_middleware(RefusedFormsRedirect)
    configure_logging(json=settings.log_json, level=settings.log_level)
    # Inside the headers middleware, so a 500 answer still gets its cookies and headers.
    app.add_middleware(RequestLogMiddleware, on_error=internal_error)
    app.add_middleware(CookiesAndHeaders, settings=settings)
    # Outside it, so that a 304 keeps the cookies and headers: ETags and Cache-Control of pages.
    app.state.revalidations = Revalidations(revalidation.viewer_key)
    remembered.memory.check = settings.revalidation_check
    app.add_middleware(PageCache, revalidations=app.state.revalidations)
    app.add_middleware(SplicedGzip, level=GZIP_LEVEL)
    # Outermost: HTML, JSON, CSS, JS and SVG above 500 bytes go out compressed (not the live
    # stream: Starlette leaves text/event-stream alone); a page with kept fragments (a map's
    # drawing) just inside it, from its parts (app/core/spliced.py).
    app.add_middleware(GZipMiddleware, minimum_size=500, compresslevel=GZIP_LEVEL)
    for exc_class, handler in (
        (BodyTooLarge, body_too_large),
        (DomainError, domain_error),
        (RequestValidationError, validation_error),
        (StarletteHTTPException, http_error),
        (sa_exc.OperationalError, database_unavailable),
        (sa_exc.TimeoutError, database_unavailable),
        (Exception, unexpected),
    ):
        app.add_exception_handler(exc_class, handler)
    _add_routes(app)
    route_index.install(app)  # last: it indexes every route added
    return app

"""create_app(): routers, static files, middleware and error handlers."""
from __future__ import annotations

from urllib.parse import quote

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.core.db import make_engine
from app.core.errors import DomainError, message_for
from app.core.i18n import choose_locale
from app.core.security import CSRF_COOKIE, LANG_COOKIE
from app.core.settings import ROOT, Settings, get_settings
from app.core.templating import render, request_gettext
from app.core.validation import details_from_errors

log = structlog.get_logger()
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


def _error_page(request: Request, status: int, code: str, params: dict | None = None) -> object:
    if code == "not_logged_in":
        return RedirectResponse(f"/login?next={quote(request.url.path)}", status_code=303)
    message = message_for(code, params or {}, request_gettext(request))
    if request.headers.get("hx-request"):
        return render(request, "partials/error.html", status_code=status, message=message)
    return render(request, "error.html", status_code=status, message=message, status=status)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(
        title="Hideout API",
        version="1",
        description="Campaign server for Kings of War: Vanguard. See API.md for the contract.",
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.engine = make_engine(settings.resolved_database_url())
    app.state.secret_key = settings.resolved_secret_key()

    @app.middleware("http")
    async def cookies_and_headers(request: Request, call_next):
        response = await call_next(request)
        new_csrf = getattr(request.state, "new_csrf_cookie", None)
        if new_csrf:
            response.set_cookie(CSRF_COOKIE, new_csrf, httponly=True, samesite="lax", secure=settings.secure_cookies, max_age=60 * 60 * 24 * 365)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    @app.exception_handler(DomainError)
    async def domain_error(request: Request, exc: DomainError):
        _ensure_locale(request)
        if _is_api(request):
            return _error_json(request, exc.status, exc.code, exc.params, exc.details)
        return _error_page(request, exc.status, exc.code, exc.params)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError):
        _ensure_locale(request)
        details = details_from_errors(list(exc.errors()), request_gettext(request))
        if _is_api(request):
            return _error_json(request, 422, "validation_error", details=details)
        return _error_page(request, 422, "validation_error")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        _ensure_locale(request)
        code = {401: "not_logged_in", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "field_invalid"
        )
        if _is_api(request):
            return _error_json(request, exc.status_code, code)
        return _error_page(request, exc.status_code, code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception):
        log.exception("unhandled_error", path=request.url.path)
        _ensure_locale(request)
        if _is_api(request):
            return _error_json(request, 500, "internal_error")
        return _error_page(request, 500, "internal_error")

    from app.accounts import api as accounts_api, pages as accounts_pages
    from app.campaigns import api as campaigns_api, pages as campaigns_pages
    from app.battles import api as battles_api, pages as battles_pages
    from app.catalog import api as catalog_api, pages as catalog_pages
    from app.catalog.catalog import CatalogStore
    from app.chronicle import api as chronicle_api, pages as chronicle_pages
    from app.companies import api as companies_api, pages as companies_pages
    from app.events import api as events_api, pages as events_pages
    from app.gold import api as gold_api
    from app.warbands import api as warbands_api, pages as warbands_pages
    from app.maps import api as maps_api, map_pages, pages as maps_pages

    app.state.catalog = CatalogStore(settings.var_dir / "catalog")
    for module in (accounts_api, campaigns_api, maps_api, chronicle_api, catalog_api, companies_api, gold_api, events_api, warbands_api, battles_api):
        app.include_router(module.router, prefix=API_PREFIX)
    for module in (accounts_pages, campaigns_pages, maps_pages, map_pages, chronicle_pages, companies_pages, catalog_pages, events_pages, warbands_pages, battles_pages):
        app.include_router(module.router, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")
    return app

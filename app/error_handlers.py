"""Every refusal in the error body of docs/api.md, or a page in the reader's language: the app's
exception handlers (create_app in app/main.py installs them) and the answer to an unexpected
error or a request cut short."""

from __future__ import annotations

import structlog
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.core.errors import ERRORS, DomainError, detail_messages, message_for
from app.core.forms import login_url, return_to
from app.core.i18n import choose_locale
from app.core.limits import MAX_BODY, BodyTooLarge
from app.core.routing import allowed_methods, refused_method
from app.core.security import LANG_COOKIE
from app.core.templating import render, request_gettext
from app.core.validation import details_from_errors

log = structlog.get_logger()


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def ensure_locale(request: Request) -> None:
    if not hasattr(request.state, "locale"):
        request.state.locale = choose_locale(None, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))


def error_json(request: Request, status: int, code: str, params: dict | None = None, details=None) -> JSONResponse:
    message = message_for(code, params or {}, request_gettext(request))
    return JSONResponse({"error": {"code": code, "message": message, "details": details or []}}, status_code=status)


def allow_header(request: Request) -> str | None:
    """Every documented method at this API path (FastAPI keeps one route per method, so
    Starlette's own Allow header names only the first one that matched); of the most literal
    route where a literal and a parameter both match (app/core/routing.py)."""
    methods = allowed_methods(request)
    return ", ".join(sorted(methods)) if methods else None


def error_page(request: Request, status: int, code: str, params: dict | None = None) -> object:
    if code == "not_logged_in":
        return RedirectResponse(login_url(return_to(request)), status_code=303)
    message = message_for(code, params or {}, request_gettext(request))
    if request.headers.get("hx-request"):
        return render(request, "partials/error.html", status_code=status, message=message)
    return render(request, "error.html", status_code=status, message=message, status=status)


def internal_error(request: Request, code: str = "internal_error") -> object:
    """The answer to an unexpected exception (logged once by RequestLogMiddleware), or to a
    request the server's stop cut short: the error body or page, with the request id to quote
    when reporting it."""
    ensure_locale(request)
    request_id = getattr(request.state, "request_id", None)
    status = ERRORS[code][0]
    message = message_for(code, {}, request_gettext(request))
    if is_api(request):
        body = {"code": code, "message": message, "details": [], "request_id": request_id}
        return JSONResponse({"error": body}, status_code=status)
    template = "partials/error.html" if request.headers.get("hx-request") else "error.html"
    return render(request, template, status_code=status, message=message, status=status, request_id=request_id)


# --- error handlers: every refusal in the error body of API.md or a page in the user's language


async def body_too_large(request: Request, exc: BodyTooLarge):
    ensure_locale(request)
    params = {"max_mb": MAX_BODY // (1024 * 1024)}
    if is_api(request):
        return error_json(request, 413, "body_too_large", params)
    return error_page(request, 413, "body_too_large", params)


async def domain_error(request: Request, exc: DomainError):
    ensure_locale(request)
    if is_api(request):
        response = error_json(request, exc.status, exc.code, exc.params, detail_messages(exc.details, request_gettext(request)))
    else:
        response = error_page(request, exc.status, exc.code, exc.params)
    if exc.status == 429 and "wait" in exc.params:
        response.headers["Retry-After"] = str(int(exc.params["wait"]))
    return response


async def validation_error(request: Request, exc: RequestValidationError):
    ensure_locale(request)
    errors = list(exc.errors())
    if any(err.get("loc", ("",))[0] == "path" for err in errors):
        refused = refused_method(request) if is_api(request) else None
        if refused:  # PATCH /places/bulk: no place "bulk"
            response = error_json(request, 405, "method_not_allowed")
            response.headers["Allow"] = ", ".join(sorted(refused))
            return response
        # An id in the path that cannot exist (0, -1, 2**31, "abc") is simply not found.
        return error_json(request, 404, "not_found") if is_api(request) else error_page(request, 404, "not_found")
    details = details_from_errors(errors, request_gettext(request))
    if is_api(request):
        return error_json(request, 422, "validation_error", details=details)
    return error_page(request, 422, "validation_error")


async def http_error(request: Request, exc: StarletteHTTPException):
    ensure_locale(request)
    code = {401: "not_logged_in", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}.get(
        exc.status_code, "field_invalid"
    )
    # A body that cannot be parsed (bad UTF-8, nesting too deep) is invalid input: 422.
    status = 422 if exc.status_code == 400 else exc.status_code
    code = "validation_error" if status == 422 else code
    response = error_json(request, status, code) if is_api(request) else error_page(request, status, code)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    allowed = allow_header(request) if exc.status_code == 405 else None
    if allowed:
        response.headers["Allow"] = allowed
    return response


# Seconds a client is told to wait after a 503 (the pool reconnects by itself on the next request).
DATABASE_RETRY_AFTER = 5


async def database_unavailable(request: Request, exc: Exception):
    """The database went away (a restart, killed connections, refused connections, a full disk):
    the transaction was rolled back or never began, so the answer is a 503 to try again, not a
    500 with a traceback. Logged as a warning without the stack: it is the database's state,
    not a bug."""
    ensure_locale(request)
    log.warning("database_unavailable", path=request.url.path, error=str(getattr(exc, "orig", exc)).strip()[:300])
    if is_api(request):
        response = error_json(request, 503, "database_unavailable")
    else:
        response = error_page(request, 503, "database_unavailable")
    response.headers["Retry-After"] = str(DATABASE_RETRY_AFTER)
    return response


async def unexpected(request: Request, exc: Exception):
    # Only for errors outside RequestLogMiddleware (which answers and logs the rest).
    log.exception("unhandled_error", path=request.url.path)
    return internal_error(request)

"""Who is asking: session cookie on pages, Bearer token on the API; CSRF on both."""

from __future__ import annotations

import secrets
from types import SimpleNamespace
from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel import Session

from app.accounts import service
from app.accounts.models import User
from app.core.db import WRITE_METHODS, InRoute, get_session, in_route
from app.core.errors import DomainError
from app.core.flash import FLASH_COOKIE
from app.core.i18n import choose_locale
from app.core.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    CSRF_HEADER,
    LANG_COOKIE,
    SESSION_COOKIE,
    csrf_token_for,
    csrf_token_valid,
    same_origin,
)
from app.core.types import MAX_ID

SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def _secret(request: Request) -> str:
    return request.app.state.secret_key


def _remember(request: Request, user: User | None) -> None:
    """Pages render after the unit of work may have rolled back (which expires ORM rows),
    so the page header keeps a plain copy of who is logged in."""
    request.state.user = (
        SimpleNamespace(id=user.id, nickname=user.nickname, locale=user.locale, time_zone=user.time_zone) if user else None
    )


def _set_locale(request: Request, user: User | None) -> None:
    request.state.locale = choose_locale(
        user.locale if user else None, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language")
    )


def _csrf_ok(request: Request, submitted: str | None) -> bool:
    """Same origin (fetch metadata or Origin) and the token that belongs to this browser."""
    return same_origin(request.headers, request.headers.get("host", "")) and csrf_token_valid(
        _secret(request), request.cookies.get(CSRF_COOKIE), submitted
    )


async def csrf_checked(request: Request) -> None:
    """Every page request gets a CSRF cookie; unsafe ones must prove they came from our form."""
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie:
        cookie = secrets.token_urlsafe(24)
        request.state.new_csrf_cookie = cookie
    request.state.csrf_token = csrf_token_for(_secret(request), cookie)
    if request.method in WRITE_METHODS:
        submitted = request.headers.get(CSRF_HEADER)
        if submitted is None and "form" in request.headers.get("content-type", ""):
            posted = (await request.form()).get(CSRF_FIELD)
            submitted = posted if isinstance(posted, str) else None  # a file in its place proves nothing
        if not _csrf_ok(request, submitted):
            _set_locale(request, None)
            raise DomainError("csrf_failed")


def _session_user(request: Request, session: Session, token: str, reading: tuple = ()) -> tuple[User | None, tuple]:
    """The session's user, and what `reading` (a statement and its parameters) read besides."""
    user, ended, acts, also = service.lookup_session(session, request.app.state.settings, _secret(request), token, *reading)
    request.state.form_once = str(acts)
    if ended:
        # The ended session's row is deleted (kept even if this request is then refused)
        # and the response drops the cookie (app/main.py).
        request.state.session_ended = True
    return user, also


def _not_logged_in(request: Request) -> DomainError:
    return DomainError("not_logged_in", persist=getattr(request.state, "session_ended", False))


def _campaign_page(request: Request) -> int | None:
    """The campaign of a page GET (which carries an ETag)."""
    cid = request.path_params.get("cid")
    if request.method != "GET" or cid is None or not str(cid).isdigit():
        return None
    return int(cid) if 0 < int(cid) <= MAX_ID else None


def _page_login(request: Request, session: Session, reading: tuple = ()) -> tuple[User | None, tuple]:
    token = request.cookies.get(SESSION_COOKIE)
    user, also = _session_user(request, session, token, reading) if token else (None, ())
    _remember(request, user)
    _set_locale(request, user)
    # Issue 17: a campaign page carries an ETag, a digest of the page as drawn for this viewer
    # (app/core/page_cache.py; issue 27 item 7: never of what others did). A page carrying a
    # flash message is not the page a later revalidation would show.
    if user and _campaign_page(request) is not None and not request.cookies.get(FLASH_COOKIE):
        request.state.page_etag = True
    return user, also


def _logged_in(request: Request, session: Session, *, required: bool, reading: tuple = ()) -> InRoute:
    """Issue 37: the login is read in the route's own worker thread, first thing, before the route
    (`in_route`), not in a synchronous dependency's thread crossing of its own: the same lookup,
    the same refusal before the route does anything, the same state for the page. With
    `reading`, the holder's value is the user and what that statement read besides."""

    def log_in() -> User | tuple[User | None, tuple] | None:
        user, also = _page_login(request, session, reading)
        if user is None and required:
            raise _not_logged_in(request)
        return (user, also) if reading else user

    return in_route(log_in)


def page_login_reading(request: Request, session: Session, statement, params: dict) -> InRoute:
    """As PageLogin, for a dependency that reads more in the login's own statement (a
    `service.login_reading`): its holder's value is the user and what the statement read besides."""
    return _logged_in(request, session, required=True, reading=(statement, params))


async def page_user(request: Request, session: SessionDep, _csrf: Annotated[None, Depends(csrf_checked)]) -> InRoute:
    """The route receives the logged-in user or None."""
    return _logged_in(request, session, required=False)


async def page_login_required(request: Request, session: SessionDep, _csrf: Annotated[None, Depends(csrf_checked)]) -> InRoute:
    """The route receives the logged-in user; nobody logged in is refused before it runs."""
    return _logged_in(request, session, required=True)


def _api_identity(request: Request, session: Session) -> User | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        found = service.user_for_api_token(session, _secret(request), header[7:].strip())
        if found:
            request.state.api_token_id = found[1].id
            return found[0]
        return None
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    user, _also = _session_user(request, session, token)
    # The cookie is accepted on the API only with the same CSRF proof as a form.
    if user and request.method in WRITE_METHODS and not _csrf_ok(request, request.headers.get(CSRF_HEADER)):
        _remember(request, user)
        _set_locale(request, user)
        raise DomainError("csrf_failed")
    return user


# Declared so the OpenAPI document names the scheme and /api/docs's Authorize sends the token;
# the header itself is read by _api_identity, which also takes the session cookie.
BEARER = HTTPBearer(
    auto_error=False, scheme_name="bearer", description="An API token from the Account page or POST /api/v1/auth/tokens."
)


def api_user_optional(
    request: Request, session: SessionDep, _bearer: Annotated[HTTPAuthorizationCredentials | None, Security(BEARER)] = None
) -> User | None:
    user = _api_identity(request, session)
    _remember(request, user)
    _set_locale(request, user)
    return user


async def api_user(request: Request, user: Annotated[User | None, Depends(api_user_optional)]) -> User:
    if user is None:
        raise _not_logged_in(request)
    return user


PageUser = Annotated[User | None, Depends(page_user)]
PageLogin = Annotated[User, Depends(page_login_required)]
ApiUser = Annotated[User, Depends(api_user)]
ApiUserOptional = Annotated[User | None, Depends(api_user_optional)]

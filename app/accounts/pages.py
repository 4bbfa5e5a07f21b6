from __future__ import annotations

from fastapi import APIRouter, Request

from app.accounts import service
from app.accounts.deps import PageLogin, PageUser, SessionDep
from app.campaigns import service as campaigns
from app.core.errors import DomainError
from app.core.forms import Form, refusal, safe_next, see_other
from app.core.i18n import LOCALES
from app.core.security import LANG_COOKIE, SESSION_COOKIE
from app.core.templating import render

router = APIRouter()


def _login_response(request: Request, session, user, next_url: str):
    token = service.start_session(session, request.app.state.secret_key, user=user)
    response = see_other(safe_next(next_url))
    response.set_cookie(
        SESSION_COOKIE, token, httponly=True, samesite="lax",
        secure=request.app.state.settings.secure_cookies, max_age=60 * 60 * 24 * 60,
    )
    return response


@router.get("/")
def home(request: Request, user: PageUser, session: SessionDep):
    if user is None:
        return render(request, "home_anonymous.html")
    return render(
        request, "home.html",
        campaigns=campaigns.my_campaigns(session, user=user),
        invitations=campaigns.my_invitations(session, user=user),
    )


@router.get("/login")
def login_page(request: Request, user: PageUser, next: str = "/"):
    return render(request, "accounts/login.html", next=safe_next(next), form={})


@router.post("/login")
def login(request: Request, user: PageUser, session: SessionDep, form: Form):
    nickname, password = str(form.get("nickname", "")), str(form.get("password", ""))
    next_url = safe_next(str(form.get("next", "/")))
    try:
        found = service.authenticate(
            session, request.app.state.settings, nickname=nickname, password=password,
            address=request.client.host if request.client else "unknown",
        )
    except DomainError as exc:
        if exc.persist:
            session.commit()
        error = refusal(request, session, exc)
        return render(request, "accounts/login.html", status_code=exc.status, error=error, next=next_url, form={"nickname": nickname})
    return _login_response(request, session, found, next_url)


@router.get("/register")
def register_page(request: Request, user: PageUser):
    return render(request, "accounts/register.html", form={}, errors={})


@router.post("/register")
def register(request: Request, user: PageUser, session: SessionDep, form: Form):
    nickname, password = str(form.get("nickname", "")), str(form.get("password", ""))
    try:
        created = service.register(session, nickname=nickname, password=password, locale=request.state.locale)
    except DomainError as exc:
        field = "password" if exc.code.startswith("password") else "nickname"
        errors = {field: refusal(request, session, exc)}
        return render(request, "accounts/register.html", status_code=exc.status, form={"nickname": nickname}, errors=errors)
    return _login_response(request, session, created, "/")


@router.post("/logout")
def logout(request: Request, user: PageUser, session: SessionDep):
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        service.end_session(session, request.app.state.secret_key, token)
    response = see_other("/")
    response.delete_cookie(SESSION_COOKIE)
    return response


@router.post("/language")
def language(request: Request, user: PageUser, session: SessionDep, form: Form):
    locale = str(form.get("locale", ""))
    response = see_other(safe_next(str(form.get("next", "/"))))
    if locale in LOCALES:
        if user is not None:
            service.set_locale(session, user=user, locale=locale)
        response.set_cookie(LANG_COOKIE, locale, samesite="lax", max_age=60 * 60 * 24 * 365)
    return response


def _account(request: Request, session, user, status_code: int = 200, **extra):
    return render(
        request, "accounts/account.html", status_code=status_code,
        tokens=service.list_api_tokens(session, user=user), **extra,
    )


@router.get("/account")
def account(request: Request, user: PageLogin, session: SessionDep):
    return _account(request, session, user)


@router.post("/account/password")
def change_password(request: Request, user: PageLogin, session: SessionDep, form: Form):
    try:
        service.change_password(session, user=user, current=str(form.get("current", "")), new=str(form.get("new", "")))
        service.end_other_sessions(session, request.app.state.secret_key, user=user, keep_token=request.cookies.get(SESSION_COOKIE))
    except DomainError as exc:
        return _account(request, session, user, status_code=exc.status, password_error=refusal(request, session, exc))
    return _account(request, session, user, password_ok=True)


@router.post("/account/tokens")
def create_token(request: Request, user: PageLogin, session: SessionDep, form: Form):
    _row, token = service.create_api_token(session, request.app.state.secret_key, user=user, name=str(form.get("name", ""))[:80])
    return _account(request, session, user, new_token=token)


@router.post("/account/tokens/{token_id}/revoke")
def revoke_token(token_id: int, request: Request, user: PageLogin, session: SessionDep):
    try:
        service.revoke_api_token(session, user=user, token_id=token_id)
    except DomainError as exc:
        return _account(request, session, user, status_code=exc.status, token_error=refusal(request, session, exc))
    return see_other("/account")


@router.post("/account/sessions/revoke-others")
def revoke_sessions(request: Request, user: PageLogin, session: SessionDep):
    count = service.end_other_sessions(session, request.app.state.secret_key, user=user, keep_token=request.cookies.get(SESSION_COOKIE))
    return _account(request, session, user, sessions_ended=count)

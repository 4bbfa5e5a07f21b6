from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fastapi import APIRouter, Request

from app.accounts import rules, service
from app.accounts.deps import PageLogin, PageUser, SessionDep
from app.accounts.models import ApiToken
from app.accounts.schemas import LanguageForm, LoginForm, PasswordChangeForm, RegisterForm, TimeZoneForm, TokenNameForm
from app.campaigns import service as campaigns
from app.core import flash
from app.core.errors import ERRORS, N_, DomainError
from app.core.forms import Form, blank_to_none, login_url, refusal, safe_next, see_other, typed, validate
from app.core.i18n import LOCALE_NAMES, LOCALES
from app.core.page_actions import PageContext, page_action
from app.core.ports import Port
from app.core.security import LANG_COOKIE, SESSION_COOKIE
from app.core.templating import add_globals, render, request_gettext
from app.core.types import PathId
from app.core.validation import named_code

router = APIRouter()
# The header's Log in link returns to the page it is on (issue 30).
add_globals(login_url=login_url)


NICKNAME, PASSWORD = N_("Nickname"), N_("Password")
CURRENT_PASSWORD, NEW_PASSWORD = N_("Current password"), N_("New password")
# A refused registration names its field: the password's own refusals, else the nickname.
PASSWORD_REFUSALS = {code: ("password", PASSWORD) for code in ERRORS if code.startswith("password")}
LABELS = {
    "nickname": NICKNAME,
    "password": PASSWORD,
    "current": CURRENT_PASSWORD,
    "new": NEW_PASSWORD,
    "name": N_("Token name"),
    "locale": N_("Language"),
    "time_zone": N_("Time zone"),
}


def _check(gettext, errors: dict, field: str, label: str, check) -> None:
    """Run one field's rule and keep its problem, so every field is checked."""
    try:
        check()
    except DomainError as exc:
        errors[field] = named_code(gettext, label, exc.code, exc.params)


def _login_response(request: Request, session, user, next_url: str, message: str):
    token = service.start_session(session, request.app.state.secret_key, user=user)
    response = flash.redirect(request, safe_next(next_url), message, nickname=user.nickname)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        httponly=True,
        samesite="lax",
        secure=request.app.state.settings.secure_cookies,
        max_age=60 * 60 * 24 * request.app.state.settings.session_max_days,
    )
    return response


@router.get("/")
def home(request: Request, user: PageUser, session: SessionDep):
    if user is None:
        return render(request, "home_anonymous.html")
    return render(
        request,
        "home.html",
        campaigns=campaigns.my_campaigns(session, user=user),
        invitations=campaigns.my_invitations(session, user=user),
    )


@router.get("/login")
def login_page(request: Request, user: PageUser, next: str = "/"):
    return render(request, "accounts/login.html", next=safe_next(next), form={})


@router.post("/login")
def login(request: Request, user: PageUser, session: SessionDep, form: Form):
    data = typed(form, "nickname", "password", "next")
    next_url = safe_next(data.get("next"))
    shown = {"nickname": data.get("nickname", "")}
    body, errors = validate(request, LoginForm, data, LABELS)
    if errors:
        return render(request, "accounts/login.html", status_code=422, errors=errors, next=next_url, form=shown)
    try:
        found = service.authenticate(
            session,
            request.app.state.settings,
            nickname=body.nickname,
            password=body.password,
            address=request.client.host if request.client else "unknown",
        )
    except DomainError as exc:
        if exc.persist:
            session.commit()
        error = refusal(request, session, exc)
        return render(request, "accounts/login.html", status_code=exc.status, error=error, errors={}, next=next_url, form=shown)
    return _login_response(request, session, found, next_url, N_("Welcome back, %(nickname)s."))


@router.get("/register")
def register_page(request: Request, user: PageUser):
    return render(request, "accounts/register.html", form={}, errors={})


@router.post("/register")
def register(request: Request, user: PageUser, session: SessionDep, form: Form):
    """R11.5: every problem at once, each next to its field and named by it."""
    data = typed(form, "nickname", "password")
    shown = {"nickname": data.get("nickname", "")}
    gettext = request_gettext(request)
    body, errors = validate(request, RegisterForm, data, LABELS)
    # Then the service's rules, on each field the schema let through.
    if "nickname" not in errors:
        _check(gettext, errors, "nickname", NICKNAME, lambda: rules.check_nickname(data["nickname"]))
    if "password" not in errors:
        _check(gettext, errors, "password", PASSWORD, lambda: rules.check_password(data.get("password", "")))
    if errors:
        return render(request, "accounts/register.html", status_code=422, form=shown, errors=errors)
    return page_action(
        PageContext(request, session, form),
        lambda: service.register(session, nickname=body.nickname, password=body.password, locale=request.state.locale),
        again=partial(render, request, "accounts/register.html", form=shown),
        fields=PASSWORD_REFUSALS,
        field=("nickname", NICKNAME),  # every other refusal is the nickname's
        done=lambda created: _login_response(request, session, created, "/", N_("Welcome, %(nickname)s! Your account is ready.")),
    )


@router.post("/logout")
def logout(request: Request, user: PageUser, session: SessionDep, form: Form):
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        service.end_session(session, request.app.state.secret_key, token)
    # Issue 30: the account menu sends the page it was on, so an accidental logout is one
    # login away from that page; without it (or for the home page) the home page.
    back = safe_next(typed(form, "next").get("next"))
    response = flash.redirect(request, "/" if back == "/" else login_url(back), N_("You are logged out."))
    response.delete_cookie(SESSION_COOKIE)
    # Issue 19: the next person on this device must not find this one's pages. This empties
    # the browser's HTTP cache; Chromium leaves the service worker's caches alone, and the
    # worker drops its saved pages itself on seeing the logout (static/sw.js).
    response.headers["Clear-Site-Data"] = '"cache"'
    return response


@router.post("/language")
def language(request: Request, user: PageUser, session: SessionDep, form: Form):
    data = typed(form, "locale", "next")
    next_url = safe_next(data.get("next"))
    body, errors = validate(request, LanguageForm, data, LABELS)
    if errors or body.locale not in LOCALES:  # a row of buttons: an unknown or unlisted language changes nothing
        return see_other(next_url)
    locale = body.locale
    if user is not None:
        service.set_locale(session, user=user, locale=locale)
    # The message is read on the next page, so it comes in the new language.
    response = flash.redirect(request, next_url, N_("Language changed to %(language)s."), language=LOCALE_NAMES[locale])
    response.set_cookie(LANG_COOKIE, locale, samesite="lax", max_age=60 * 60 * 24 * 365)
    return response


# Sections higher domains add to the Account page (the season's daily digest), so that
# accounts imports none of them: (request, session, user) -> (template, context); a port,
# wired in app/wiring.py.
account_sections = Port[Callable[..., "tuple[str, dict]"]]("account page sections")


def _account(request: Request, session, user, status_code: int = 200, **extra):
    return render(
        request,
        "accounts/account.html",
        status_code=status_code,
        tokens=service.list_api_tokens(session, user=user),
        sections=[section(request, session, user) for section in account_sections()],
        **extra,
    )


@router.get("/account")
def account(request: Request, user: PageLogin, session: SessionDep):
    return _account(request, session, user)


@router.post("/account/password")
def change_password(request: Request, user: PageLogin, session: SessionDep, form: Form):
    data = typed(form, "current", "new")
    body, errors = validate(request, PasswordChangeForm, data, LABELS)
    if "new" not in errors:
        _check(request_gettext(request), errors, "new", NEW_PASSWORD, lambda: rules.check_password(data.get("new", "")))
    if errors:
        return _account(request, session, user, status_code=422, password_errors=errors)
    page = PageContext(request, session, form)

    def change():
        revoked_tokens = service.change_password(session, user=user, current=body.current, new=body.new)
        service.end_other_sessions(
            session, request.app.state.secret_key, user=user, keep_token=request.cookies.get(SESSION_COOKIE)
        )
        return revoked_tokens

    def done(revoked_tokens):
        if revoked_tokens:
            return page.redirect(
                "/account",
                N_(
                    "Your password was changed; your other sessions were logged out and your API tokens were revoked. "
                    "Create new ones below where you still need them."
                ),
            )
        return page.redirect("/account", N_("Your password was changed; your other sessions were logged out."))

    return page_action(
        page,
        change,
        again=lambda status_code, errors: _account(request, session, user, status_code=status_code, password_errors=errors),
        fields={"wrong_password": ("current", CURRENT_PASSWORD)},
        field=("new", NEW_PASSWORD),  # every other refusal is the new password's
        done=done,
    )


@router.post("/account/time-zone")
def set_time_zone(request: Request, user: PageLogin, session: SessionDep, form: Form):
    """Issue 34: pages say times in the reader's zone; blank is UTC."""
    data = typed(form, "time_zone")
    body, errors = validate(request, TimeZoneForm, data, LABELS)
    again = partial(_account, request, session, user, time_zone_form=data)
    if errors:
        return again(status_code=422, time_zone_errors=errors)
    page = PageContext(request, session, form)
    return page_action(
        page,
        lambda: service.set_time_zone(session, user=user, time_zone=body.time_zone),
        again=lambda status_code, errors: again(status_code=status_code, time_zone_errors=errors),
        field=("time_zone", LABELS["time_zone"]),
        done=lambda _none: page.redirect("/account", N_("Time zone: %(zone)s."), zone=user.time_zone or "UTC"),
    )


@router.post("/account/tokens")
def create_token(request: Request, user: PageLogin, session: SessionDep, form: Form):
    """The token is shown once, on the page the redirect leads to (in the flash cookie,
    which that page clears)."""
    data = typed(form, "name")
    body, errors = validate(request, TokenNameForm, blank_to_none(data), LABELS)
    if errors:
        return _account(request, session, user, status_code=422, token_errors=errors, token_form=data)
    _row, token = service.create_api_token(session, request.app.state.secret_key, user=user, name=body.name or "")
    return flash.redirect(request, "/account", N_("Your new token — copy it now, it is shown only once:"), code=token)


@router.post("/account/tokens/{token_id}/revoke")
def revoke_token(token_id: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    page = PageContext(request, session, form)
    return page_action(
        page,
        lambda: service.revoke_api_token(session, user=user, token_id=token_id),
        again=lambda status_code, error: _account(request, session, user, status_code=status_code, token_error=error),
        done=lambda _none: page.redirect(
            "/account", N_("API token %(name)s revoked."), name=session.get(ApiToken, token_id).name
        ),
    )


@router.post("/account/sessions/revoke-others")
def revoke_sessions(request: Request, user: PageLogin, session: SessionDep):
    count = service.end_other_sessions(
        session, request.app.state.secret_key, user=user, keep_token=request.cookies.get(SESSION_COOKIE)
    )
    return flash.redirect(request, "/account", N_("Other sessions logged out: %(n)s."), n=count)

"""The season on pages (issue 19): the deadline line at the head of every campaign page, the
GM's deadline form and the orders reminder on the dashboard, and the daily digest's opt-in on
the Account page."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse
from sqlalchemy.orm import object_session
from starlette.background import BackgroundTask

from app.accounts import pages as account_pages
from app.accounts.deps import PageLogin, PageUser, SessionDep
from app.campaigns import pages as campaign_pages
from app.campaigns.deps import CampaignPage
from app.campaigns.service import nicknames
from app.core import flash, formats
from app.core.errors import N_, DomainError
from app.core.forms import Form, blank_to_none, refusal, typed, unplaced, validate
from app.core.i18n import choose_locale
from app.core.page_actions import PageContext, page_action
from app.core.security import LANG_COOKIE
from app.core.templating import render
from app.season import digest, optin, reminders, rules, scheduler, service  # noqa: F401 (scheduler: registers the job)
from app.season.schemas import DeadlineIn, DigestForm

router = APIRouter()
LABELS = {
    "ends_at": N_("Ends at"),
    "auto_advance": N_("Move on by itself"),
    "email": N_("E-mail address"),
    "enabled": N_("Daily digest"),
}


# --- the deadline line of every campaign page (templates/campaigns/_layout.html) ----------------


def _moment(deadline, locale: str, time_zone: str | None = None) -> dict:
    """The deadline for a <time>: the exact moment for the browser, which says it in the
    reader's time zone, and the server's words (the reader's zone, else UTC, in the reader's
    language: core/formats.py) until it does."""
    try:
        fallback = f"{formats.when(deadline.ends_at, locale, time_zone)} {formats.zone_label(time_zone)}"
    except (ValueError, LookupError):
        fallback = rules.utc_text(deadline.ends_at)
    return {
        "iso": rules.iso(deadline.ends_at),
        "fallback": fallback,
        "auto": deadline.auto_advance,
        "form_value": rules.utc(deadline.ends_at).strftime("%Y-%m-%dT%H:%M"),
    }


def deadline_head(context: dict) -> dict:
    """Template hook: campaign pages get `season_deadline()`, the current phase's deadline
    (one statement, only when the head is drawn for a member of a running campaign)."""
    campaign, viewer = context.get("campaign"), context.get("viewer")
    if (
        campaign is None
        or viewer is None
        or not getattr(viewer, "is_member", False)
        or getattr(campaign, "status", None) != "running"
    ):
        return {}
    session = object_session(campaign)
    if session is None:
        return {}
    # Read now, not in the closure: a closure over `context`, kept in it, made the page's whole
    # context a reference cycle, which only the garbage collector frees (issue 37).
    locale, time_zone = context.get("locale", "en"), context.get("time_zone")
    found: list = []

    def season_deadline():
        if not found:
            row = service.page_deadline(session, viewer)
            found.append(_moment(row, locale, time_zone) if row is not None else None)
        return found[0]

    return {"season_deadline": season_deadline}


# --- the dashboard: the GM's form, why the auto-advance waits, and orders not sent --------------


def dashboard_panel(session, viewer):
    campaign = viewer.campaign
    if campaign.status != "running" or not (viewer.is_gm or viewer.player):
        return None
    deadline = service.page_deadline(session, viewer)
    ctx = {"deadline": deadline, "orders": reminders.orders_reminder(session, viewer, deadline)}
    if viewer.is_gm:
        ctx["late"] = []
        if deadline is not None and campaign.phase == "orders":
            names = nicknames(session, campaign.id)
            ctx["late"] = [names.get(p, "?") for p in reminders.without_orders(session, campaign)]
        if deadline is not None and deadline.waiting_code:
            # Said in the reader's language by the template (`translations.gettext`).
            ctx["waiting"] = lambda gettext: service.waiting_message(deadline, gettext)
        ctx["form_value"] = rules.utc(deadline.ends_at).strftime("%Y-%m-%dT%H:%M") if deadline else ""
    elif ctx["orders"] is None:
        return None
    return "season/_dashboard.html", ctx


def _deadline_data(form) -> dict:
    data = blank_to_none(typed(form, "ends_at", "ends_at_utc"))
    # The browser converts the GM's local time to UTC (static/app.js); without it the field is UTC.
    value = data.get("ends_at_utc") or data.get("ends_at")
    return {"ends_at": value, "auto_advance": form.get("auto_advance") == "on"}


@router.post("/campaigns/{cid}/deadline")
def set_deadline(page: CampaignPage):
    body, errors = validate(page.request, DeadlineIn, _deadline_data(page.form), LABELS)
    if errors:
        return campaign_pages.dashboard_page(page, status_code=422, error=unplaced(errors))
    message = N_("The deadline is set; the round moves on by itself then.") if body.auto_advance else N_("The deadline is set.")
    return page_action(
        page,
        lambda: service.set_deadline(
            page.session,
            actor=page.user,
            campaign_id=page.cid,
            ends_at=body.ends_at,
            auto_advance=body.auto_advance,
            near_minutes=page.request.app.state.settings.deadline_near_minutes,
        ),
        again=partial(campaign_pages.dashboard_page, page),
        done=lambda _deadline: page.redirect(f"/campaigns/{page.cid}#deadline", message),
    )


@router.post("/campaigns/{cid}/deadline/clear")
def clear_deadline(page: CampaignPage):
    return page_action(
        page,
        lambda: service.clear_deadline(page.session, actor=page.user, campaign_id=page.cid),
        again=partial(campaign_pages.dashboard_page, page),
        done=lambda _none: page.redirect(f"/campaigns/{page.cid}#deadline", N_("The deadline is lifted.")),
    )


# --- the Account page: the daily digest ---------------------------------------------------------


def account_section(request, session, user) -> tuple[str, dict]:
    return "season/_account.html", {
        "digest": digest.subscription(session, user.id),
        "digest_missing": digest.missing(request.app.state.settings),
    }


def _base(request: Request) -> str:
    """Where the links in a mail lead: the configured public address, else this request's."""
    return (request.app.state.settings.public_url or str(request.base_url)).rstrip("/")


SAVED_MESSAGES = {
    "on": N_("You will get the daily digest at %(email)s."),
    "off": N_("The daily digest is off."),
    "cleared": N_("The daily digest is off."),
    "confirm_sent": N_("We sent a link to %(email)s: open it to confirm the address. No digest goes there until then."),
    "confirm_pending": N_("%(email)s still waits for confirmation: open the link we sent to it."),
    "confirm_waits": N_("%(email)s is saved; it will be confirmed by a link once this server sends e-mail."),
}


def _mail_later(request: Request, response, saved: optin.Saved):
    if saved.mail is not None:
        response.background = BackgroundTask(optin.send_after_commit, request.app.state.settings, saved.mail)
    return response


def _digest_again(page: PageContext, user, data: dict | None = None):
    """A refused digest form: the Account page again, the reason next to the address."""

    def again(status_code: int, errors: dict):
        shown = {"digest_form": data} if data is not None else {}
        return account_pages._account(page.request, page.session, user, status_code=status_code, digest_errors=errors, **shown)

    return again


def _saved(page: PageContext, saved: optin.Saved):
    response = page.redirect("/account#digest", SAVED_MESSAGES[saved.outcome], email=saved.row.email)
    return _mail_later(page.request, response, saved)


@router.post("/account/digest")
def save_digest(request: Request, user: PageLogin, session: SessionDep, form: Form):
    page = PageContext(request, session, form)
    data = {"email": typed(form, "email").get("email", ""), "enabled": form.get("enabled") == "on"}
    body, errors = validate(request, DigestForm, data, LABELS)
    if errors:
        return _digest_again(page, user, data)(422, errors)
    settings = request.app.state.settings
    return page_action(
        page,
        lambda: optin.set_subscription(
            session, actor=user, email=body.email, enabled=body.enabled, settings=settings, base=_base(request)
        ),
        again=_digest_again(page, user, data),
        field=("email", LABELS["email"]),
        done=partial(_saved, page),
    )


@router.post("/account/digest/resend")
def resend_digest_link(request: Request, user: PageLogin, session: SessionDep, form: Form):
    page = PageContext(request, session, form)
    return page_action(
        page,
        lambda: optin.resend(session, actor=user, settings=request.app.state.settings, base=_base(request)),
        again=_digest_again(page, user),
        field=("email", LABELS["email"]),
        done=partial(_saved, page),
    )


# --- the links in the mails: no login needed, the token is the proof -----------------------------


@router.get("/digest/confirm")
def confirm_page(request: Request, _user: PageUser, token: str = ""):
    """A button, not the confirmation: a mail scanner that opens the link confirms nothing."""
    return render(request, "season/digest_link.html", action="confirm", token=token[:200])


@router.post("/digest/confirm")
def confirm_digest(request: Request, _user: PageUser, session: SessionDep, form: Form):
    page = PageContext(request, session, form)

    def done(row):
        message = (
            N_("%(email)s is confirmed: the daily digest goes there.")
            if row.enabled
            else N_("%(email)s is confirmed. Tick the daily digest on your Account page to get it.")
        )
        return page.redirect("/digest/done", message, email=row.email)

    return page_action(
        page,
        lambda: optin.confirm(session, token=str(form.get("token") or "")[:200]),
        again=partial(render, request, "season/digest_link.html", action="confirm"),
        done=done,
    )


@router.get("/digest/done")
def digest_done(request: Request, _user: PageUser):
    """Where the links' buttons lead: the flash message says what was done."""
    return render(request, "season/digest_link.html", action="done")


@router.get("/digest/unsubscribe")
def unsubscribe_page(request: Request, _user: PageUser, token: str = ""):
    return render(request, "season/digest_link.html", action="unsubscribe", token=token[:200])


@router.post("/digest/unsubscribe")
def unsubscribe_digest(request: Request, session: SessionDep, form: Form, token: str = ""):
    """RFC 8058 one-click: the mail program POSTs `List-Unsubscribe=One-Click` here, with no
    cookie and no CSRF token — the signed token in the address is the whole proof; it gets
    a plain 200. The button on the page above gets the usual redirect."""
    one_click = form.get("List-Unsubscribe") == "One-Click"
    request.state.locale = choose_locale(None, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))
    try:
        optin.unsubscribe(session, token=token[:200], secret_key=request.app.state.secret_key)
    except DomainError as exc:
        if one_click:
            return PlainTextResponse(exc.code, status_code=exc.status)
        return render(
            request, "season/digest_link.html", status_code=exc.status, action="unsubscribe", error=refusal(request, session, exc)
        )
    if one_click:
        return PlainTextResponse("unsubscribed")
    return flash.redirect(
        request, "/digest/done", N_("The daily digest is off. You can switch it on again on your Account page.")
    )

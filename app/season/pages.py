"""The season on pages (issue 19): the deadline line at the head of every campaign page, the
GM's deadline form and the orders reminder on the dashboard, and the daily digest's opt-in on
the Account page."""
from __future__ import annotations

from babel.dates import format_datetime
from fastapi import APIRouter, Request
from sqlalchemy.orm import object_session

from app.accounts import pages as account_pages
from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import pages as campaign_pages
from app.campaigns.service import nicknames
from app.core import flash
from app.core.errors import N_, DomainError
from app.core.forms import Form, blank_to_none, field_refusal, refusal, typed, unplaced, validate
from app.core.templating import add_context_hook
from app.core.types import PathId
from app.season import digest, reminders, rules, scheduler, service  # noqa: F401 (scheduler: registers the job)
from app.season.schemas import DeadlineIn, DigestForm

router = APIRouter()
LABELS = {"ends_at": N_("Ends at"), "auto_advance": N_("Move on by itself"), "email": N_("E-mail address"),
          "enabled": N_("Daily digest")}


# --- the deadline line of every campaign page (templates/campaigns/_layout.html) ----------------


def _moment(deadline, locale: str) -> dict:
    """The deadline for a <time>: the exact moment for the browser, which says it in its own
    time zone, and the server's words (UTC, in the reader's language) until it does."""
    try:
        fallback = format_datetime(deadline.ends_at, "medium", tzinfo=rules.utc(deadline.ends_at).tzinfo, locale=locale) + " UTC"
    except (ValueError, LookupError):
        fallback = rules.utc_text(deadline.ends_at)
    return {"iso": rules.iso(deadline.ends_at), "fallback": fallback, "auto": deadline.auto_advance,
            "form_value": rules.utc(deadline.ends_at).strftime("%Y-%m-%dT%H:%M")}


def deadline_head(context: dict) -> dict:
    """Template hook: campaign pages get `season_deadline()`, the current phase's deadline
    (one statement, only when the head is drawn for a member of a running campaign)."""
    campaign, viewer = context.get("campaign"), context.get("viewer")
    if campaign is None or viewer is None or not getattr(viewer, "is_member", False) or getattr(campaign, "status", None) != "running":
        return {}
    session = object_session(campaign)
    if session is None:
        return {}
    locale = context.get("locale", "en")
    found: list = []

    def season_deadline():
        if not found:
            row = service.deadline_of(session, campaign)
            found.append(_moment(row, locale) if row is not None else None)
        return found[0]

    return {"season_deadline": season_deadline}


add_context_hook(deadline_head)


# --- the dashboard: the GM's form, why the auto-advance waits, and orders not sent --------------


def dashboard_panel(session, viewer):
    campaign = viewer.campaign
    if campaign.status != "running" or not (viewer.is_gm or viewer.player):
        return None
    deadline = service.deadline_of(session, campaign)
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


campaign_pages.add_dashboard_panel(dashboard_panel)


def _deadline_data(form) -> dict:
    data = blank_to_none(typed(form, "ends_at", "ends_at_utc"))
    # The browser converts the GM's local time to UTC (static/app.js); without it the field is UTC.
    value = data.get("ends_at_utc") or data.get("ends_at")
    return {"ends_at": value, "auto_advance": form.get("auto_advance") == "on"}


@router.post("/campaigns/{cid}/deadline")
def set_deadline(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    body, errors = validate(request, DeadlineIn, _deadline_data(form), LABELS)
    if errors:
        return campaign_pages._dashboard(request, session, user, cid, status_code=422, error=unplaced(errors))
    try:
        service.set_deadline(session, actor=user, campaign_id=cid, ends_at=body.ends_at, auto_advance=body.auto_advance,
                             near_minutes=request.app.state.settings.deadline_near_minutes)
    except DomainError as exc:
        return campaign_pages._dashboard(request, session, user, cid, status_code=exc.status, error=refusal(request, session, exc))
    message = N_("The deadline is set; the round moves on by itself then.") if body.auto_advance else N_("The deadline is set.")
    return flash.redirect(request, f"/campaigns/{cid}#deadline", message)


@router.post("/campaigns/{cid}/deadline/clear")
def clear_deadline(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    try:
        service.clear_deadline(session, actor=user, campaign_id=cid)
    except DomainError as exc:
        return campaign_pages._dashboard(request, session, user, cid, status_code=exc.status, error=refusal(request, session, exc))
    return flash.redirect(request, f"/campaigns/{cid}#deadline", N_("The deadline is lifted."))


# --- the Account page: the daily digest ---------------------------------------------------------


def account_section(request, session, user) -> tuple[str, dict]:
    return "season/_account.html", {"digest": digest.subscription(session, user.id),
                                    "digest_on_server": digest.configured(request.app.state.settings)}


account_pages.add_account_section(account_section)


@router.post("/account/digest")
def save_digest(request: Request, user: PageLogin, session: SessionDep, form: Form):
    data = {"email": typed(form, "email").get("email", ""), "enabled": form.get("enabled") == "on"}
    body, errors = validate(request, DigestForm, data, LABELS)
    if errors:
        return account_pages._account(request, session, user, status_code=422, digest_errors=errors, digest_form=data)
    try:
        row = digest.set_subscription(session, user=user, email=body.email, enabled=body.enabled)
    except DomainError as exc:
        errors = {"email": field_refusal(request, session, exc, LABELS["email"])}
        return account_pages._account(request, session, user, status_code=exc.status, digest_errors=errors, digest_form=data)
    message = N_("You will get the daily digest at %(email)s.") if row.enabled else N_("The daily digest is off.")
    return flash.redirect(request, "/account#digest", message, email=row.email)

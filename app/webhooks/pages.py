"""Webhooks on the Rules tab (issue 19): a GM-only section listing the hooks with their last
delivery, a form to add one and a confirmed removal."""
from __future__ import annotations

from fastapi import APIRouter, Request

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import pages as campaign_pages
from app.campaigns.service import campaign_of
from app.core import flash
from app.core.errors import N_, DomainError
from app.core.forms import Form, blank_to_none, confirm_page, confirmed, refusal, typed, validate
from app.core.templating import request_gettext
from app.core.types import PathId
from app.webhooks import rules, sender, service  # noqa: F401  (sender: its job and after-commit wake-up)
from app.webhooks.schemas import WebhookIn

router = APIRouter()
LABELS = {"url": N_("Address"), "secret": N_("Secret"), "kinds": N_("News to send")}


def rules_section(session, viewer) -> tuple[str, dict]:
    if not viewer.is_gm:
        return "webhooks/_section.html", {"show": False}
    return "webhooks/_section.html", {
        "show": True, "hooks": service.views(session, viewer.campaign.id), "categories": rules.CATEGORY_NAMES,
        "max_hooks": rules.MAX_HOOKS,
    }


campaign_pages.add_rules_section(rules_section)


def _refused(request, session, user, cid, message: str, status: int):
    return campaign_pages.rules_page(request, session, user, cid, status_code=status, error=message)


@router.post("/campaigns/{cid}/webhooks")
def add(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    body, errors = validate(request, WebhookIn, blank_to_none(typed(form, "url", "secret", lists=("kinds",))), LABELS)
    if errors:
        return _refused(request, session, user, cid, " ".join(errors.values()), 422)
    try:
        service.add(session, actor=user, campaign_id=cid, url=body.url, secret=body.secret, kinds=list(body.kinds),
                    allow_private=request.app.state.settings.webhook_allow_private)
    except DomainError as exc:
        return _refused(request, session, user, cid, refusal(request, session, exc), exc.status)
    return flash.redirect(request, f"/campaigns/{cid}/rules#webhooks", N_("Webhook added: the campaign's news goes to %(address)s."),
                          address=body.url)


@router.post("/campaigns/{cid}/webhooks/{hid}/delete")
def remove(cid: PathId, hid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    try:
        hook = service.remove(session, actor=user, campaign_id=cid, hook_id=hid)
    except DomainError as exc:
        return _refused(request, session, user, cid, refusal(request, session, exc), exc.status)
    if not confirmed(form):
        gettext = request_gettext(request)
        viewer = campaign_of(session, actor=user, campaign_id=cid)
        return confirm_page(request, session, form, question=gettext(N_("Remove this webhook?")),
                            detail=gettext(N_("News not yet delivered to it is dropped.")), button=gettext(N_("Remove")),
                            danger=True, action=f"/campaigns/{cid}/webhooks/{hid}/delete", cancel=f"/campaigns/{cid}/rules#webhooks",
                            viewer=viewer, campaign=viewer.campaign, tab="rules")
    return flash.redirect(request, f"/campaigns/{cid}/rules#webhooks", N_("Webhook removed: %(address)s hears no more news."),
                          address=hook.url)

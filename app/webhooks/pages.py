"""Webhooks on the Rules tab (issue 19): a GM-only section listing the hooks with their last
delivery, a form to add one and a confirmed removal."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter

from app.campaigns import pages as campaign_pages
from app.campaigns.deps import CampaignPage
from app.core.errors import N_
from app.core.forms import blank_to_none, typed, validate
from app.core.page_actions import page_action
from app.core.types import PathId
from app.webhooks import rules, sender, service  # noqa: F401  (sender: its job and after-commit wake-up)
from app.webhooks.schemas import WebhookIn

router = APIRouter()
LABELS = {"url": N_("Address"), "secret": N_("Secret"), "kinds": N_("News to send")}


def rules_section(session, viewer) -> tuple[str, dict]:
    if not viewer.is_gm:
        return "webhooks/_section.html", {"show": False}
    return "webhooks/_section.html", {
        "show": True,
        "hooks": service.views(session, viewer.campaign.id),
        "categories": rules.CATEGORY_NAMES,
        "max_hooks": rules.MAX_HOOKS,
    }


@router.post("/campaigns/{cid}/webhooks")
def add(page: CampaignPage):
    posted = blank_to_none(typed(page.form, "url", "secret", lists=("kinds",)))
    body, errors = validate(page.request, WebhookIn, posted, LABELS)
    if errors:
        return campaign_pages.rules_page(page, status_code=422, error=" ".join(errors.values()))
    return page_action(
        page,
        lambda: service.add(
            page.session,
            actor=page.user,
            campaign_id=page.cid,
            url=body.url,
            secret=body.secret,
            kinds=list(body.kinds),
            allow_private=page.request.app.state.settings.webhook_allow_private,
        ),
        again=partial(campaign_pages.rules_page, page),
        done=lambda _hook: page.redirect(
            f"/campaigns/{page.cid}/rules#webhooks",
            N_("Webhook added: the campaign's news goes to %(address)s."),
            address=body.url,
        ),
    )


CONFIRM_REMOVE = (N_("Remove this webhook?"), N_("News not yet delivered to it is dropped."), N_("Remove"))


@router.post("/campaigns/{cid}/webhooks/{hid}/delete")
def remove(hid: PathId, page: CampaignPage):
    back = f"/campaigns/{page.cid}/rules#webhooks"
    return page_action(
        page,
        lambda: service.remove(page.session, actor=page.user, campaign_id=page.cid, hook_id=hid),
        again=partial(campaign_pages.rules_page, page),
        ask=lambda _hook: page.ask(CONFIRM_REMOVE, cancel=back, tab="rules", danger=True),
        done=lambda hook: page.redirect(back, N_("Webhook removed: %(address)s hears no more news."), address=hook.url),
    )

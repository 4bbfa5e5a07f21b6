"""The GM's audit page (R12.9): every GM change with who, when and what, filtered by action
and by who made it; an Undo button where it is safe (asked first), else why not."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Query

from app.audit import service, undo
from app.campaigns.deps import CampaignContext, CampaignPage
from app.catalog.deps import CatalogDep
from app.core.errors import N_, message_for
from app.core.page_actions import page_action
from app.core.templating import render
from app.core.types import PathId

router = APIRouter()
CONFIRM_UNDO = (
    N_("Undo this change?"),
    N_("%(action)s is put back as it was before; the trail keeps both rows."),
    N_("Undo"),
)


def audit_page(page: CampaignContext, status_code: int = 200, error: str | None = None, **query):
    viewer = page.viewer
    action = query.get("action") if query.get("action") in service.ACTIONS else None
    actor = query.get("actor")
    found = service.entries(page.session, viewer, page=query.get("number") or 1, per_page=50, action=action, actor=actor)
    rows = []
    for r in found.items:
        refused = undo.blocker(page.session, r.entry)
        why = message_for(refused.code, refused.params, page.gettext) if refused and refused.code != "undo_done" else None
        rows.append((r, refused is None, why))
    return render(
        page.request,
        "audit/audit.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        rows=rows,
        found=found,
        actions=service.ACTIONS,
        actors=service.actors(page.session, viewer),
        action=action,
        actor=actor,
        error=error,
        tab="players",
    )


@router.get("/campaigns/{cid}/audit")
def audit(
    page: CampaignPage,
    action: str | None = Query(None, max_length=40),
    actor: int | None = Query(None, ge=1, le=2**31 - 1),
    n: int = Query(1, ge=1, le=100_000, alias="page"),
):
    return audit_page(page, action=action, actor=actor, number=n)


@router.post("/campaigns/{cid}/audit/{entry_id}/undo")
def undo_entry(entry_id: PathId, page: CampaignPage, catalog: CatalogDep):
    def ask(entry):
        label = page.gettext(service.ACTIONS[entry.action])
        return page.ask(CONFIRM_UNDO, cancel=f"/campaigns/{page.cid}/audit", tab="players", action=label)

    return page_action(
        page,
        lambda: undo.undo(page.session, actor=page.user, campaign_id=page.cid, entry_id=entry_id, catalog=catalog),
        again=partial(audit_page, page),
        ask=ask,
        done=lambda entry: page.redirect(
            f"/campaigns/{page.cid}/audit", N_("Undone: %(action)s."), action=page.gettext(service.ACTIONS[entry.action])
        ),
        passing=("not_found",),
    )

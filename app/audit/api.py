"""The audit trail over the API (R12.9): GET /campaigns/{cid}/audit, POST …/audit/{id}/undo."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from app.accounts.deps import ApiUser, SessionDep
from app.audit import service, undo
from app.audit.schemas import AuditEntryOut, AuditPage
from app.catalog.deps import CatalogDep
from app.core.errors import message_for
from app.core.pagination import Paging
from app.core.templating import request_gettext
from app.core.types import PathId
from app.visibility import viewer_for

router = APIRouter(tags=["audit"])


def entry_out(session, row: service.AuditRow, gettext) -> AuditEntryOut:
    e = row.entry
    refused = undo.blocker(session, e)
    return AuditEntryOut(
        id=e.id,
        at=e.at,
        actor_nickname=row.actor_nickname,
        action=e.action,
        target=e.target,
        before=e.before,
        after=e.after,
        undone=e.undone_at is not None,
        undoable=refused is None,
        why_not=message_for(refused.code, refused.params, gettext) if refused is not None else None,
    )


@router.get("/campaigns/{cid}/audit", response_model=AuditPage)
def audit(
    cid: PathId,
    request: Request,
    user: ApiUser,
    session: SessionDep,
    paging: Paging,
    action: str | None = Query(None, max_length=40),
    actor: int | None = Query(None, ge=1, le=2**31 - 1),
):
    viewer = viewer_for(session, user, cid)
    found = service.entries(session, viewer, page=paging.page, per_page=paging.per_page, action=action, actor=actor)
    gettext = request_gettext(request)
    return AuditPage(
        items=[entry_out(session, r, gettext) for r in found.items], page=found.page, pages=found.pages, total=found.total
    )


@router.post("/campaigns/{cid}/audit/{entry_id}/undo", response_model=AuditEntryOut)
def undo_entry(cid: PathId, entry_id: PathId, request: Request, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    entry = undo.undo(session, actor=user, campaign_id=cid, entry_id=entry_id, catalog=catalog)
    return entry_out(session, service.row_of(session, entry), request_gettext(request))

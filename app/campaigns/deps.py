"""The campaign page's context (issue 31): one dependency for what every campaign page
handler needs — the request, its unit of work, the posted form, the logged-in user, the
campaign's id, and, read when first asked for, the campaign as this user may see it and the
catalog. It lives with the campaigns, not in core, because core imports no domain."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, get_origin, get_type_hints

from fastapi import Depends, Request, params
from sqlmodel import Session

from app.accounts.deps import SessionDep, csrf_checked, page_login_reading
from app.accounts.models import User
from app.catalog.catalog import Catalog
from app.catalog.deps import get_catalog
from app.core import page_head
from app.core.db import InRoute, prepared_in_route
from app.core.forms import posted_form
from app.core.page_actions import PageContext
from app.core.page_head import HeadRead
from app.core.security import SESSION_COOKIE
from app.core.types import PathId
from app.visibility import CAMPAIGN_PAGE_LOGIN, Viewer, seated


@dataclass
class CampaignContext(PageContext):
    login: InRoute  # the user, and the campaign and their seats in it, read with the login
    cid: int
    # The page head's reads that came with the login (app/core/page_head.py), and the key its
    # reads are remembered under (none: not a page GET with a login cookie).
    head: tuple[Hashable | None, tuple[HeadRead, ...]] = (None, ())

    @property
    def user(self) -> User:
        """Logged in: the route's thread read it before the route ran (or refused the request)."""
        return self.login.value[0]

    @cached_property
    def viewer(self) -> Viewer:
        """The campaign as this user may see it (404 for anybody else), read with the login."""
        return self._seated(invitee_ok=False)

    def invitee_viewer(self) -> Viewer:
        """As `viewer`, a pending invitee let in (the dashboard's Accept button)."""
        return self._seated(invitee_ok=True)

    def _seated(self, *, invitee_ok: bool) -> Viewer:
        row = self.login.value[1]
        viewer = seated(self.session, self.user, self.cid, row[:3], invitee_ok=invitee_ok)
        key, reads = self.head
        if key is not None:
            page_head.prefill(viewer, key, reads, row[3:])
        return viewer

    @cached_property
    def catalog(self) -> Catalog:
        return get_catalog(self.request)

    def layout(self) -> dict[str, Any]:
        viewer = self.viewer
        return {"viewer": viewer, "campaign": viewer.campaign}


async def campaign_page(cid: PathId, request: Request, session: SessionDep) -> CampaignContext:
    # The CSRF check and the posted form, called here rather than declared as dependencies of
    # their own: FastAPI's solving of each cost every campaign page more than their work (issue 37).
    await csrf_checked(request)
    form = await posted_form(request)
    # Issue 37: the login, the campaign and the user's seats in it in one statement, read in the
    # route's thread before the route (the two statements of before, one round trip each); for
    # a page GET, the page head as this login's pages of the campaign read it last time.
    token = request.cookies.get(SESSION_COOKIE)
    key = (cid, hash(token)) if token and request.method == "GET" else None
    reads = page_head.expected(key) if key else ()
    statement, head_params = page_head.read_with(CAMPAIGN_PAGE_LOGIN, reads)
    login = page_login_reading(request, session, statement, {"campaign_id": cid, **head_params})
    return CampaignContext(request=request, session=session, form=form, login=login, cid=cid, head=(key, reads))


CampaignPage = Annotated[CampaignContext, Depends(campaign_page)]


def _prepare(request: Request, session: Session, arguments: dict) -> Awaitable[CampaignContext]:
    return campaign_page(arguments.pop("cid"), request, session)


def campaign_route(endpoint: Callable) -> Callable:
    """A campaign page's route whose context (`CampaignPage`) is made straight from the request,
    not solved by FastAPI (`prepared_in_route`): the same context from the same calls, the
    same validation of the campaign's id. A route with another dependency (an uploaded file)
    or taking the request itself is left to FastAPI, whose order of solving it keeps."""
    if inspect.iscoroutinefunction(endpoint) or getattr(endpoint, "ends_in_route", False):
        return endpoint
    try:
        hints = get_type_hints(endpoint, include_extras=True)
    except NameError:  # an annotation only FastAPI's own reading resolves: left to it
        return endpoint
    parameters = list(inspect.signature(endpoint).parameters.values())
    pages = [p.name for p in parameters if _depends_on(hints.get(p.name)) is campaign_page]
    others = [p for p in parameters if p.name not in pages]
    if len(pages) != 1 or any(p.name in ("request", "cid") or _depends_on(hints.get(p.name)) for p in others):
        return endpoint
    seen = [
        inspect.Parameter("request", inspect.Parameter.KEYWORD_ONLY, annotation=Request),
        inspect.Parameter("cid", inspect.Parameter.KEYWORD_ONLY, annotation=PathId),
        *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints.get(p.name, p.annotation)) for p in others),
    ]
    return prepared_in_route(endpoint, pages[0], _prepare, inspect.Signature(seen))


def _depends_on(hint: Any) -> Any:
    """The dependency an `Annotated[..., Depends(x)]` names (x), or None."""
    if get_origin(hint) is not Annotated:
        return None
    return next((m.dependency for m in hint.__metadata__ if isinstance(m, params.Depends)), None)

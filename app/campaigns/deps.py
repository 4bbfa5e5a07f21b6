"""The campaign page's context (issue 31): one dependency for what every campaign page
handler needs — the request, its unit of work, the posted form, the logged-in user, the
campaign's id, and, read when first asked for, the campaign as this user may see it and the
catalog. It lives with the campaigns, not in core, because core imports no domain."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any

from fastapi import Depends, Request

from app.accounts.deps import PageLoginHolder, SessionDep
from app.accounts.models import User
from app.campaigns.service import campaign_of
from app.catalog.catalog import Catalog
from app.catalog.deps import get_catalog
from app.core.db import InRoute
from app.core.forms import Form
from app.core.page_actions import PageContext
from app.core.types import PathId
from app.visibility import Viewer


@dataclass
class CampaignContext(PageContext):
    login: InRoute
    cid: int

    @property
    def user(self) -> User:
        """Logged in: the route's thread read it before the route ran (or refused the request)."""
        return self.login.value

    @cached_property
    def viewer(self) -> Viewer:
        """One statement, on first use: pages whose use case returns the viewer never ask."""
        return campaign_of(self.session, actor=self.user, campaign_id=self.cid)

    @cached_property
    def catalog(self) -> Catalog:
        return get_catalog(self.request)

    def layout(self) -> dict[str, Any]:
        viewer = self.viewer
        return {"viewer": viewer, "campaign": viewer.campaign}


async def campaign_page(
    cid: PathId, request: Request, login: PageLoginHolder, session: SessionDep, form: Form
) -> CampaignContext:
    return CampaignContext(request=request, session=session, form=form, login=login, cid=cid)


CampaignPage = Annotated[CampaignContext, Depends(campaign_page)]

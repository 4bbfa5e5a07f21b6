"""Export and import pages: the GM's download on the Rules tab, the import form."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns.deps import CampaignPage
from app.campaigns.pages import rules_page
from app.catalog.deps import CatalogDep
from app.core import flash, json_limits
from app.core.errors import N_, DomainError
from app.core.forms import Form, confirmed, refusal
from app.core.page_actions import page_action
from app.core.templating import render
from app.core.types import PathId
from app.exports import copying, service
from app.exports.api import media_dir
from app.visibility import require_gm

router = APIRouter()


def rules_section(session, viewer) -> tuple[str, dict]:
    """The download, for the GM only (players see nothing of it)."""
    return "exports/_rules.html", {"may_export": viewer.is_gm}


CONFIRM_COPY = (
    N_("Copy %(name)s into a new campaign?"),
    N_(
        "The new campaign is a draft of yours with this one's map, images, places, paths, settings and modules, and its"
        " events kept ended, to reuse. It has no players, invitations, gold or history. This campaign does not change."
    ),
    N_("Copy the campaign"),
)


@router.post("/campaigns/{cid}/copy")
def copy_campaign(page: CampaignPage):
    """R12.13: the GM's copy, asked first (a new campaign is made), then opened."""
    require_gm(page.viewer)
    source = page.viewer.campaign
    if not confirmed(page.form):
        # Asked before anything is made: a rehearsed copy would leave its image files behind.
        return page.confirm(page.ask(CONFIRM_COPY, cancel=f"/campaigns/{page.cid}/rules#copy", tab="rules", name=source.name))
    return page_action(
        page,
        lambda: copying.copy_campaign(
            page.session,
            actor=page.user,
            campaign_id=page.cid,
            media_dir=media_dir(page.request),
            name=None,
            pattern=page.gettext(copying.DEFAULT_NAME),
        ),
        again=lambda status_code, error=None, errors=None: rules_page(page, status_code=status_code, error=error),
        done=lambda campaign: page.redirect(
            f"/campaigns/{campaign.id}",
            N_(
                "%(source)s copied into the new campaign %(name)s: its map, places, paths, settings and events."
                " Invite the players when it is ready."
            ),
            source=source.name,
            name=campaign.name,
        ),
    )


def file_name(name: str) -> str:
    """An ASCII file name from the campaign's name and today's date."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "campaign"
    return f"hideout-{slug}-{datetime.now(UTC):%Y-%m-%d}.json"


@router.get("/campaigns/{cid}/export")
def download(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    campaign, doc = service.export_for_gm(session, actor=user, campaign_id=cid, media_dir=media_dir(request))
    body = json.dumps(doc, ensure_ascii=False).encode()
    return Response(
        body,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{file_name(campaign.name)}"', "Cache-Control": "no-store"},
    )


@router.get("/campaigns/new/import")
def import_form(request: Request, user: PageLogin):
    return render(request, "exports/import.html", error=None)


async def _upload(form: Form) -> tuple[object, DomainError | None]:
    """The uploaded file's JSON, or why there is none (the form says it in place)."""
    upload = form.get("file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return None, DomainError("import_no_file")
    try:
        return json_limits.loads(await upload.read()), None
    except (UnicodeDecodeError, ValueError):
        return None, DomainError("import_not_json")
    except DomainError as exc:  # nested too deep
        return None, exc


Upload = Annotated[tuple[object, DomainError | None], Depends(_upload)]


@router.post("/campaigns/new/import")
def import_campaign(request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, upload: Upload):
    doc, problem = upload
    try:
        if problem is not None:
            raise problem
        campaign, invited = service.import_campaign(session, actor=user, doc=doc, media_dir=media_dir(request), catalog=catalog)
    except DomainError as exc:
        page = render(request, "exports/import.html", status_code=exc.status, error=refusal(request, session, exc))
        if exc.status == 429:
            page.headers["Retry-After"] = str(int(exc.params["wait"]))
        return page
    return flash.redirect(
        request,
        f"/campaigns/{campaign.id}",
        N_("Campaign %(name)s imported. Players invited to take their seats: %(invited)s."),
        name=campaign.name,
        invited=invited,
    )

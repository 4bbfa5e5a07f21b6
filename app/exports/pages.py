"""Export and import pages: the GM's download on the Rules tab, the import form."""
from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import pages as campaign_pages
from app.core import flash
from app.core.errors import N_, DomainError
from app.core.forms import Form, refusal
from app.core.templating import render
from app.core.types import PathId
from app.exports import service
from app.exports.api import media_dir

router = APIRouter()


def rules_section(session, viewer) -> tuple[str, dict]:
    """The download, for the GM only (players see nothing of it)."""
    return "exports/_rules.html", {"may_export": viewer.is_gm}


campaign_pages.add_rules_section(rules_section)


def file_name(name: str) -> str:
    """An ASCII file name from the campaign's name and today's date."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "campaign"
    return f"hideout-{slug}-{datetime.now(UTC):%Y-%m-%d}.json"


@router.get("/campaigns/{cid}/export")
def download(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    campaign, doc = service.export_for_gm(session, actor=user, campaign_id=cid, media_dir=media_dir(request))
    body = json.dumps(doc, ensure_ascii=False).encode()
    return Response(body, media_type="application/json", headers={
        "Content-Disposition": f'attachment; filename="{file_name(campaign.name)}"', "Cache-Control": "no-store"})


@router.get("/campaigns/new/import")
def import_form(request: Request, user: PageLogin):
    return render(request, "exports/import.html", error=None)


async def _upload(form: Form) -> tuple[object, DomainError | None]:
    """The uploaded file's JSON, or why there is none (the form says it in place)."""
    upload = form.get("file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return None, DomainError("import_no_file")
    try:
        return json.loads(await upload.read()), None
    except (UnicodeDecodeError, ValueError):
        return None, DomainError("import_not_json")


Upload = Annotated[tuple[object, DomainError | None], Depends(_upload)]


@router.post("/campaigns/new/import")
def import_campaign(request: Request, user: PageLogin, session: SessionDep, upload: Upload):
    doc, problem = upload
    try:
        if problem is not None:
            raise problem
        campaign, invited = service.import_campaign(session, actor=user, doc=doc, media_dir=media_dir(request))
    except DomainError as exc:
        return render(request, "exports/import.html", status_code=exc.status, error=refusal(request, session, exc))
    return flash.redirect(request, f"/campaigns/{campaign.id}", N_("Campaign %(name)s imported. Players invited to take their seats: %(invited)s."),
                          name=campaign.name, invited=invited)

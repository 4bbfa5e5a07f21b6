"""Export and import over the API (API.md `export`, `import`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.accounts.deps import ApiUser, SessionDep
from app.campaigns.api import campaign_out
from app.campaigns.schemas import CampaignOut
from app.campaigns.service import campaign_of
from app.catalog.deps import CatalogDep
from app.core import json_limits
from app.core.errors import DomainError
from app.core.templating import request_gettext
from app.core.types import Name, PathId
from app.exports import copying, service

router = APIRouter(tags=["exports"])


@router.api_route("/campaigns/import", methods=["GET", "PUT", "PATCH", "DELETE"], include_in_schema=False)
def import_other_methods():
    """`/campaigns/import` is not a campaign id: other methods are 405 (Allow: POST), not the
    404 that `/campaigns/{cid}` would answer. Registered before the campaigns' routes."""
    raise StarletteHTTPException(405, headers={"Allow": "POST"})


def media_dir(request: Request):
    return request.app.state.settings.var_dir / "media"


@router.get("/campaigns/{cid}/export")
def export(cid: PathId, request: Request, user: ApiUser, session: SessionDep) -> dict[str, Any]:
    """GM: the whole campaign as one versioned document (`format` "hideout-campaign",
    `version` 1), as far as the GM may see it (docs/export.md)."""
    _campaign, doc = service.export_for_gm(session, actor=user, campaign_id=cid, media_dir=media_dir(request))
    return doc


async def _body(request: Request) -> Any:
    """The request's JSON, read here so that a body that is not JSON is told so in words
    (`import_not_json`) rather than as a position in a parse error, and one nested too deep
    is refused before it is parsed (`json_too_deep`, whatever its content type)."""
    try:
        return json_limits.loads(await request.body())
    except (UnicodeDecodeError, ValueError):
        raise DomainError("import_not_json") from None


DOCUMENT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["format", "version", "campaign"],
                    "properties": {
                        "format": {"const": "hideout-campaign"},
                        "version": {"const": 1},
                        "campaign": {"type": "object"},
                    },
                    "description": "A campaign export (docs/export.md)",
                }
            }
        },
    }
}


@router.post("/campaigns/import", status_code=201, response_model=CampaignOut, openapi_extra=DOCUMENT_BODY)
def import_(request: Request, user: ApiUser, session: SessionDep, catalog: CatalogDep, doc: Annotated[Any, Depends(_body)]):
    """A new campaign from an export, the caller its GM; players whose nickname a user of
    this server has are invited to take their seat. At most IMPORTS_PER_HOUR a user
    (exports/throttle.py), then 429 `import_throttled` with Retry-After."""
    campaign, _invited = service.import_campaign(session, actor=user, doc=doc, media_dir=media_dir(request), catalog=catalog)
    return campaign_out(session, campaign, campaign_of(session, actor=user, campaign_id=campaign.id))


class CopyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Name(120)] | None = None


@router.post("/campaigns/{cid}/copy", status_code=201, response_model=CampaignOut)
def copy(cid: PathId, request: Request, user: ApiUser, session: SessionDep, body: Annotated[CopyIn | None, Body()] = None):
    """GM: a new draft of this campaign (R12.13) — its map, images, places, paths, settings,
    modules and events (ended, kept to reuse), without players, gold or history; `name`
    defaults to "<name> (copy)" in the caller's language."""
    campaign = copying.copy_campaign(
        session,
        actor=user,
        campaign_id=cid,
        media_dir=media_dir(request),
        name=body.name if body else None,
        pattern=request_gettext(request)(copying.DEFAULT_NAME),
    )
    return campaign_out(session, campaign, campaign_of(session, actor=user, campaign_id=campaign.id))

"""Ready maps on the wizard's map step (R12.13): the choice, one form per ready map."""

from __future__ import annotations

from fastapi import APIRouter

from app.campaigns.deps import CampaignPage
from app.campaigns.pages import _wizard_page as wizard_page
from app.core.errors import N_
from app.core.page_actions import page_action
from app.core.templating import add_globals
from app.maps.ready import service as ready
from app.maps.ready.api import media_dir

router = APIRouter()
add_globals(ready_maps=ready.ready_maps)

MAP_STEP = 3


@router.post("/campaigns/{cid}/map-template")
def fill_map(page: CampaignPage):
    locale = getattr(page.request.state, "locale", "en")
    key = str(page.form.get("template") or "")
    return page_action(
        page,
        lambda: ready.fill_map(
            page.session, actor=page.user, campaign_id=page.cid, key=key, locale=locale, media_dir=media_dir(page.request)
        ),
        again=lambda status_code, error=None, errors=None: wizard_page(
            page, page.viewer, MAP_STEP, status_code=status_code, form={}, errors={}, error=error
        ),
        passing=("not_found", "gm_only"),
        done=lambda filled: page.redirect(
            f"/campaigns/{page.cid}/setup/{MAP_STEP}",
            N_(
                "The map %(name)s is ready: %(places)s places and %(paths)s paths, with the paths module on."
                " Move, rename or remove any of them."
            ),
            name=filled.ready.name(locale),
            places=filled.places,
            paths=filled.paths,
        ),
    )

"""Warband movement on pages (R9.8, module `movement`): the GM places a scattered warband (or
corrects where one stands) from the dashboard or the map sheet, and the dashboard panel that
lists the scattered warbands. Positions on the map and the warbands pages live with those pages."""

from __future__ import annotations

from fastapi import APIRouter

from app.campaigns import pages as campaign_pages
from app.campaigns import service as campaigns
from app.campaigns.deps import CampaignPage
from app.core.errors import N_
from app.core.forms import blank_to_none, typed, unplaced, validate
from app.core.page_actions import page_action
from app.core.types import PathId
from app.maps import map_pages
from app.maps import service as maps
from app.movement import service as movement
from app.warbands.schemas import PositionIn

router = APIRouter()
LABELS = {"place_id": N_("Place")}


@router.post("/campaigns/{cid}/warbands/{wid}/position")
def place_warband(wid: PathId, page: CampaignPage):
    """The GM's Place button (`from=map`: the map sheet, back to the place's sheet; otherwise
    the dashboard). A refusal shows on the page the button was on."""
    on_map = page.form.get("from") == "map"
    cid = page.cid

    def again(status_code: int, error: str | None):
        if on_map:
            return map_pages.show_map(page, None, status_code=status_code, map_error=error)
        return campaign_pages.dashboard_page(page, status_code=status_code, error=error)

    body, errors = validate(page.request, PositionIn, blank_to_none(typed(page.form, "place_id")), LABELS)
    if body is None:
        return again(422, unplaced(errors))

    def done(warband):
        places = maps.places(page.session, cid)
        place = next(p for p in places if p.id == body.place_id)
        back = map_pages.map_url(cid, place.parent_id, place=place.id) + "#sheet" if on_map else f"/campaigns/{cid}"
        return page.redirect(
            back,
            N_("%(warband)s placed at %(place)s."),
            warband=warband.name,
            place=maps.place_labels(places).get(place.id, place.name),
        )

    return page_action(
        page,
        lambda: movement.place_warband(page.session, actor=page.user, campaign_id=cid, warband_id=wid, place_id=body.place_id),
        again=again,
        done=done,
    )


# --- the dashboard panel -------------------------------------------------------------------------


def dashboard_panel(session, viewer):
    """The GM's list of scattered warbands, each with a select of places (R9.8); a player is
    told which of their warbands wait to be placed. Nothing with the module off."""
    campaign = viewer.campaign
    if not movement.on(campaign) or campaign.status != "running" or not (viewer.is_gm or viewer.player):
        return None
    scattered = [
        p
        for p in movement.positions(session, campaign)
        if p.place_id is None and (viewer.is_gm or p.player_id == viewer.player.id)
    ]
    if not scattered:
        return None
    if not viewer.is_gm:
        return "movement/_dashboard.html", {"scattered": scattered}
    places = maps.places(session, campaign.id)
    choices = sorted(maps.place_labels(places).items(), key=lambda item: item[1].lower())
    return "movement/_dashboard.html", {
        "scattered": scattered,
        "choices": choices,
        "names": campaigns.nicknames(session, campaign.id),
    }

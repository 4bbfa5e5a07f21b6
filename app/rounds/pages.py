"""The round's flow on pages: the GM's phase and End round buttons (same URLs as before,
with confirm steps), the Twilight page with the GM's picker, and the dashboard panel that
says what to do about battles, settlements, ransoms and Twilight."""
from __future__ import annotations

from fastapi import APIRouter, Request

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import pages as campaign_pages, rules as campaign_rules
from app.catalog.deps import CatalogDep
from app.core import flash
from app.core.errors import N_, DomainError, Msg
from app.core.forms import Form, blank_to_none, confirm_page, confirmed, refusal, typed, unplaced, validate
from app.core.templating import render, request_gettext
from app.core.types import PathId
from app.maps import service as maps
from app.rounds import service
from app.settlement import service as settlement
from app.campaigns.schemas import EndRoundIn, PhaseIn
from app.rounds.schemas import ChoiceIn
from app.campaigns.service import campaign_of

router = APIRouter()

# One-way steps ask first (a dialog with JavaScript, a confirm page without); the
# dashboard's and the Twilight page's buttons carry the same texts.
CONFIRM_BATTLES = (N_("Open Battles?"), N_("Orders become public and battles are announced; this cannot be undone."),
                   N_("Open Battles"))
CONFIRM_TWILIGHT = (N_("Open Twilight?"),
                    N_("Results and settlements close; the winners take their places at the end of the round. This cannot be undone."),
                    N_("Open Twilight"))
CONFIRM_END_ROUND = (N_("End round %(n)s?"),
                     N_("Income is paid, orders end and round %(next)s begins with Preparation; this cannot be undone."),
                     N_("End round %(n)s"))


nicknames = settlement.nicknames


@router.post("/campaigns/{cid}/phase")
def set_phase(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form, catalog: CatalogDep):
    body, errors = validate(request, PhaseIn, blank_to_none(typed(form, "phase")), {"phase": N_("Phase")})
    if body is None:
        return campaign_pages._dashboard(request, session, user, cid, status_code=422, error=unplaced(errors))
    phase = body.phase

    def done(campaign):
        return flash.redirect(request, f"/campaigns/{cid}", N_("Phase changed to %(phase)s."),
                              phase=Msg(campaign_rules.PHASE_NAMES[campaign.phase]))

    return campaign_pages._gm_action(request, session, user, cid, form,
                                     lambda: service.set_phase(session, actor=user, campaign_id=cid, phase=phase, catalog=catalog),
                                     done, {"battles": CONFIRM_BATTLES, "twilight": CONFIRM_TWILIGHT}.get(phase))


@router.post("/campaigns/{cid}/end-round")
def end_round(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """From the dashboard or the Twilight page (`from=twilight`): a refusal shows on the page
    the button was on; without confirm=1 the step is rehearsed and the confirm page asks."""
    body, errors = validate(request, EndRoundIn, blank_to_none(typed(form, "round")), {"round": N_("Round")})
    if body is None:
        if form.get("from") == "twilight":
            return _twilight_page(request, session, user, cid, status_code=422, error=unplaced(errors))
        return campaign_pages._dashboard(request, session, user, cid, status_code=422, error=unplaced(errors))
    round_ = body.round
    try:
        result = service.end_round(session, actor=user, campaign_id=cid, round_=round_)
    except DomainError as exc:
        error = refusal(request, session, exc)
        if form.get("from") == "twilight":
            return _twilight_page(request, session, user, cid, status_code=exc.status, error=error)
        return campaign_pages._dashboard(request, session, user, cid, status_code=exc.status, error=error)
    if not confirmed(form):
        gettext = request_gettext(request)
        params = {"n": round_, "next": round_ + 1}
        question, detail, button = CONFIRM_END_ROUND
        viewer = campaign_of(session, actor=user, campaign_id=cid)
        cancel = f"/campaigns/{cid}/twilight" if form.get("from") == "twilight" else f"/campaigns/{cid}"
        return confirm_page(request, session, form, question=gettext(question) % params, detail=gettext(detail) % params,
                            button=gettext(button) % params, action=str(request.url.path), cancel=cancel,
                            viewer=viewer, campaign=viewer.campaign, tab="overview")
    return flash.redirect(request, f"/campaigns/{cid}", N_("Round %(n)s ended; round %(next)s begins."),
                          n=result.ended, next=result.campaign.round)


# --- Twilight ----------------------------------------------------------------------------------


def _twilight_page(request, session, user, cid, status_code: int = 200, **extra):
    view = service.twilight(session, actor=user, campaign_id=cid)
    campaign = view.viewer.campaign
    arrivals = [a for r in view.rows for a in r.unopposed + r.left_out]
    warbands = service.warband_names(session, [a.warband_id for a in arrivals])
    return render(request, "rounds/twilight.html", status_code=status_code, viewer=view.viewer, campaign=campaign, view=view,
                  names=nicknames(session, cid), labels=maps.labels(session, cid), warbands=warbands,
                  tab="twilight", **extra)


@router.get("/campaigns/{cid}/twilight")
def twilight(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    return _twilight_page(request, session, user, cid)


@router.post("/campaigns/{cid}/twilight/choices")
def choose(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    body, errors = validate(request, ChoiceIn, blank_to_none(typed(form, "place_id", "player_id")),
                            {"place_id": N_("Place"), "player_id": N_("Player")})
    if body is None:
        return _twilight_page(request, session, user, cid, status_code=422, error=unplaced(errors))
    place_id, player_id = body.place_id, body.player_id
    try:
        service.choose(session, actor=user, campaign_id=cid, place_id=place_id, player_id=player_id)
    except DomainError as exc:
        return _twilight_page(request, session, user, cid, status_code=exc.status, error=refusal(request, session, exc))
    names = nicknames(session, cid)
    place = maps.labels(session, cid).get(place_id, "")
    return flash.redirect(request, f"/campaigns/{cid}/twilight#place-{place_id}", N_("%(player)s takes %(place)s."),
                          player=names.get(player_id, ""), place=place)


# --- the dashboard panel -------------------------------------------------------------------------


def dashboard_panel(session, viewer):
    todo = service.todo(session, viewer)
    campaign = viewer.campaign
    if not (todo.battles or todo.settle or todo.ransoms or (campaign.status == "running" and campaign.phase in ("settlement", "twilight"))):
        return None
    names = nicknames(session, campaign.id) if viewer.is_gm and todo.settle else {}
    labels = maps.labels(session, campaign.id) if todo.settle else {}
    return "rounds/_dashboard.html", {"todo": todo, "names": names, "labels": labels}


campaign_pages.add_dashboard_panel(dashboard_panel)

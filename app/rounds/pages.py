"""The round's flow on pages: the GM's phase and End round buttons (same URLs as before,
with confirm steps), the Twilight page with the GM's picker, and the dashboard panel that
says what to do about battles, settlements, ransoms and Twilight."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter

from app.battles import service as battles
from app.campaigns import pages as campaign_pages
from app.campaigns import rules as campaign_rules
from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.schemas import EndRoundIn, PhaseIn
from app.core.errors import N_, Msg
from app.core.forms import blank_to_none, typed, unplaced, validate
from app.core.page_actions import page_action
from app.core.templating import render
from app.maps import service as maps
from app.rounds import service
from app.rounds.schemas import ChoiceIn
from app.settlement import service as settlement

router = APIRouter()

# One-way steps ask first (a dialog with JavaScript, a confirm page without); the
# dashboard's and the Twilight page's buttons carry the same texts.
CONFIRM_BATTLES = (
    N_("Open Battles?"),
    N_("Orders become public and battles are announced; this cannot be undone."),
    N_("Open Battles"),
)
CONFIRM_SETTLEMENT = (
    N_("Open Settlement?"),
    N_("Players can no longer enter or confirm results: only you decide the open ones. There is no way back to Battles."),
    N_("Open Settlement"),
)
CONFIRM_TWILIGHT = (
    N_("Open Twilight?"),
    N_("Results and settlements close; the winners take their places at the end of the round. This cannot be undone."),
    N_("Open Twilight"),
)
CONFIRM_END_ROUND = (
    N_("End round %(n)s?"),
    N_("Income is paid, orders end and round %(next)s begins with Preparation; this cannot be undone."),
    N_("End round %(n)s"),
)


nicknames = settlement.nicknames


@router.post("/campaigns/{cid}/phase")
def set_phase(page: CampaignPage):
    body, errors = validate(page.request, PhaseIn, blank_to_none(typed(page.form, "phase")), {"phase": N_("Phase")})
    if body is None:
        return campaign_pages.dashboard_page(page, status_code=422, error=unplaced(errors))
    phase = body.phase
    texts = {"battles": CONFIRM_BATTLES, "settlement": CONFIRM_SETTLEMENT, "twilight": CONFIRM_TWILIGHT}.get(phase)

    def done(campaign):
        return page.redirect(
            f"/campaigns/{page.cid}", N_("Phase changed to %(phase)s."), phase=Msg(campaign_rules.PHASE_NAMES[campaign.phase])
        )

    return page_action(
        page,
        lambda: service.set_phase(page.session, actor=page.user, campaign_id=page.cid, phase=phase, catalog=page.catalog),
        again=partial(campaign_pages.dashboard_page, page),
        ask=lambda _campaign: campaign_pages.dashboard_ask(page, texts),
        done=done,
    )


@router.post("/campaigns/{cid}/end-round")
def end_round(page: CampaignPage):
    """From the dashboard or the Twilight page (`from=twilight`): a refusal shows on the page
    the button was on; without confirm=1 the step is rehearsed and the confirm page asks."""
    from_twilight = page.form.get("from") == "twilight"
    again = partial(_twilight_page, page) if from_twilight else partial(campaign_pages.dashboard_page, page)
    body, errors = validate(page.request, EndRoundIn, blank_to_none(typed(page.form, "round")), {"round": N_("Round")})
    if body is None:
        return again(status_code=422, error=unplaced(errors))
    round_ = body.round
    cancel = f"/campaigns/{page.cid}/twilight" if from_twilight else f"/campaigns/{page.cid}"
    return page_action(
        page,
        lambda: service.end_round(page.session, actor=page.user, campaign_id=page.cid, round_=round_),
        again=again,
        ask=lambda _result: page.ask(CONFIRM_END_ROUND, cancel=cancel, tab="overview", n=round_, next=round_ + 1),
        done=lambda result: page.redirect(
            f"/campaigns/{page.cid}", N_("Round %(n)s ended; round %(next)s begins."), n=result.ended, next=result.campaign.round
        ),
    )


# --- Twilight ----------------------------------------------------------------------------------


def _twilight_page(page: CampaignContext, status_code: int = 200, **extra):
    session, cid = page.session, page.cid
    view = service.twilight_for(session, page.viewer)
    campaign = view.viewer.campaign
    arrivals = [a for r in view.rows for a in r.unopposed + r.left_out]
    warbands = battles.warband_names(session, arrivals)
    return render(
        page.request,
        "rounds/twilight.html",
        status_code=status_code,
        viewer=view.viewer,
        campaign=campaign,
        view=view,
        names=nicknames(session, cid),
        labels=maps.labels(session, cid),
        warbands=warbands,
        tab="twilight",
        **extra,
    )


@router.get("/campaigns/{cid}/twilight")
def twilight(page: CampaignPage):
    return _twilight_page(page)


@router.post("/campaigns/{cid}/twilight/choices")
def choose(page: CampaignPage):
    body, errors = validate(
        page.request,
        ChoiceIn,
        blank_to_none(typed(page.form, "place_id", "player_id")),
        {"place_id": N_("Place"), "player_id": N_("Player")},
    )
    if body is None:
        return _twilight_page(page, status_code=422, error=unplaced(errors))
    place_id, player_id = body.place_id, body.player_id

    def done(_choice):
        names = nicknames(page.session, page.cid)
        place = maps.labels(page.session, page.cid).get(place_id, "")
        return page.redirect(
            f"/campaigns/{page.cid}/twilight#place-{place_id}",
            N_("%(player)s takes %(place)s."),
            player=names.get(player_id, ""),
            place=place,
        )

    return page_action(
        page,
        lambda: service.choose(page.session, actor=page.user, campaign_id=page.cid, place_id=place_id, player_id=player_id),
        again=partial(_twilight_page, page),
        done=done,
    )


# --- the dashboard panel -------------------------------------------------------------------------


def dashboard_panel(session, viewer):
    todo = service.page_todo(session, viewer)
    campaign = viewer.campaign
    if not (
        todo.battles
        or todo.settle
        or todo.ransoms
        or (campaign.status == "running" and campaign.phase in ("settlement", "twilight"))
    ):
        return None
    # Issue 29: a battle waiting for this player's result offers its winner buttons here, named.
    reporting = any(action == "report" for action, _ in todo.battles)
    names = nicknames(session, campaign.id) if (viewer.is_gm and todo.settle) or reporting else {}
    labels = maps.labels(session, campaign.id) if todo.settle else {}
    return "rounds/_dashboard.html", {"todo": todo, "names": names, "labels": labels}

"""Battle pages: the round's battles (mine first), one battle with rosters and its result."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fastapi import APIRouter
from markupsafe import Markup

from app.battles import photos, service, share_view
from app.battles.schemas import DisputeForm, ResultForm
from app.campaigns import service as campaigns
from app.campaigns.deps import CampaignContext, CampaignPage
from app.core.errors import N_
from app.core.forms import blank_to_none, typed, validate
from app.core.page_actions import page_action
from app.core.ports import Port
from app.core.rows import row_by_id
from app.core.template_output import written
from app.core.templating import render
from app.core.types import PathId, QueryRound
from app.events.models import Event
from app.maps import reading as map_reading
from app.maps import service as maps

router = APIRouter()
LABELS = {"winner": N_("Winners"), "winner_one": N_("Winners"), "draw": N_("Draw"), "reason": N_("Reason")}


@router.get("/campaigns/{cid}/battles")
def battles(page: CampaignPage, round: int | None = QueryRound()):
    session, viewer = page.session, page.viewer
    # The list names who fights, not with what: the rosters stay unread (issue 37).
    views = service.listed(session, viewer, round)
    me = viewer.player.id if viewer.player else None
    mine = {v.battle.id for v in views if me is not None and me in v.participants}
    views.sort(key=lambda v: (v.battle.id not in mine, v.battle.id))
    shown_round = viewer.campaign.round if round is None else round
    # Warbands that did not fight (R6.2, R6.4): public like the battles, shown with what they
    # mean for the place (issue 12).
    arrivals, arrival_warbands = service.listed_arrivals(session, viewer, round)
    names = campaigns.nicknames_seen(session, viewer)
    locale = getattr(page.request.state, "locale", "en")
    scenarios = page.catalog.scenarios
    return render(
        page.request,
        "battles/battles.html",
        viewer=viewer,
        campaign=viewer.campaign,
        views=views,
        fights={v.battle.id: _who_fights(v, names) for v in views},
        mine=mine,
        scenario_names={
            v.battle.scenario: scenarios[v.battle.scenario].name_in(locale) for v in views if v.battle.scenario in scenarios
        },
        arrivals=arrivals,
        arrival_warbands=arrival_warbands,
        names=names,
        labels=map_reading.labels_seen(session, viewer),
        shown_round=shown_round,
        tab="battles",
    )


# "Orc band (anna) & Elf band (bob) vs Dwarf band (carl)", escaped as the template escapes.
# Written in the template, it was two loops and a call a warband, a tenth of the list (issue 37).
# (Markup's own `format` and `join` cost as much as the loops: text escaped as `{{ }}` escapes
# it, app/core/template_output.py, then marked safe once.)
_VS, _AND = ' <span class="muted">vs</span> ', " &amp; "


def _who_fights(view: service.BattleView, names: dict[int, str]) -> Markup:
    return Markup(
        _VS.join(_AND.join(f"{written(w.name)} ({written(names.get(w.player_id, ''))})" for w in side) for side in view.sides())
    )


# Parts of the battle page from higher domains (the clock; a port, wired in app/wiring.py):
# (session, viewer, view) -> (template, context) or None.
battle_parts = Port[Callable[..., "tuple[str, dict] | None"]]("battle page parts")


def battle_page(page: CampaignContext, bid: int, status_code=200, **extra):
    session, cid = page.session, page.cid
    # Its clock (app/clock/pages.py) is drawn as it stands at this moment: never a 304 from memory.
    page.request.state.timely = True
    viewer, view = service.battle(session, actor=page.user, campaign_id=cid, battle_id=bid)
    parts = [found for found in (part(session, viewer, view) for part in battle_parts()) if found]
    me = viewer.player.id if viewer.player else None
    event = row_by_id(session, Event, view.battle.event_id) if view.battle.event_id else None
    arrivals = service.arrivals_of(session, viewer.campaign, view.battle.round, place_id=view.battle.place_id)
    return render(
        page.request,
        "battles/battle.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        view=view,
        arrivals=arrivals,
        arrival_warbands=service.warband_names(session, arrivals),
        me=me,
        names=campaigns.nicknames(session, cid),
        labels=maps.labels(session, cid),
        catalog=page.catalog,
        event=event,
        beacon=service.beacon_hint(view.battle),
        tab="battles",
        parts=parts,
        share=share_view.share_part(page.request, session, view, page.request.query_params.get("link")),
        photos=photos.listed(session, [bid]).get(bid, []),
        may_delete_photo=partial(photos.may_delete, viewer),
        **extra,
    )


@router.get("/campaigns/{cid}/battles/{bid}")
def battle(bid: PathId, page: CampaignPage):
    return battle_page(page, bid)


def _winners(request, form) -> tuple[list[int] | None, str | None]:
    """The result form's winners, or its problem (buttons and ticks: said above the page)."""
    body, errors = validate(request, ResultForm, blank_to_none(typed(form, "winner_one", "draw", lists=("winner",))), LABELS)
    return (None, " ".join(errors.values())) if errors else (body.winners, None)


def _result(cid: int, bid: int) -> str:
    return f"/campaigns/{cid}/battles/{bid}#result"


# Entering a result asks first: who won, then confirm (the other sides are asked to confirm it).
CONFIRM_WON = N_("%(names)s won?")
CONFIRM_DRAW = N_("A draw?")
CONFIRM_RESULT_DETAIL = N_(
    "A player of each other side is asked to confirm the result; after that only the game master can change it."
)


@router.post("/campaigns/{cid}/battles/{bid}/result")
def report(bid: PathId, page: CampaignPage):
    winners, problem = _winners(page.request, page.form)
    if problem:
        return battle_page(page, bid, status_code=422, error=problem)
    back = _result(page.cid, bid)

    def names() -> str:
        return ", ".join(campaigns.nicknames(page.session, page.cid).get(w, "?") for w in winners)

    def ask(_battle):
        texts = (CONFIRM_WON if winners else CONFIRM_DRAW, CONFIRM_RESULT_DETAIL, N_("Enter the result"))
        return page.ask(texts, cancel=back, tab="battles", names=names() if winners else "")

    def done(_battle):
        if winners:
            return page.redirect(back, N_("Result entered: %(names)s won."), names=names())
        return page.redirect(back, N_("Result entered: a draw."))

    return page_action(
        page,
        lambda: service.report(page.session, actor=page.user, campaign_id=page.cid, battle_id=bid, winners=winners),
        again=partial(battle_page, page, bid),
        ask=ask,
        done=done,
    )


@router.post("/campaigns/{cid}/battles/{bid}/confirm")
def confirm(bid: PathId, page: CampaignPage):
    return page_action(
        page,
        lambda: service.confirm(page.session, actor=page.user, campaign_id=page.cid, battle_id=bid),
        again=partial(battle_page, page, bid),
        done=lambda _battle: page.redirect(_result(page.cid, bid), N_("Result confirmed.")),
    )


@router.post("/campaigns/{cid}/battles/{bid}/dispute")
def dispute(bid: PathId, page: CampaignPage):
    """The reason next to its field, kept as typed, when it is missing or too long."""
    data = typed(page.form, "reason")
    body, errors = validate(page.request, DisputeForm, data, LABELS)

    def again(status_code: int, error: str | None = None, errors: dict | None = None):
        if errors is None:  # a refusal of the dispute itself: said above the page
            return battle_page(page, bid, status_code=status_code, error=error)
        return battle_page(page, bid, status_code=status_code, dispute_errors=errors, dispute_form=data)

    if errors:
        return again(422, errors=errors)
    return page_action(
        page,
        lambda: service.dispute(page.session, actor=page.user, campaign_id=page.cid, battle_id=bid, reason=body.reason),
        again=again,
        fields={"reason_required": ("reason", LABELS["reason"])},
        done=lambda _battle: page.redirect(_result(page.cid, bid), N_("The dispute is sent to the game master.")),
    )


@router.post("/campaigns/{cid}/battles/{bid}/resolve")
def resolve(bid: PathId, page: CampaignPage):
    winners, problem = _winners(page.request, page.form)
    if problem:
        return battle_page(page, bid, status_code=422, error=problem)
    names = ", ".join(campaigns.nicknames(page.session, page.cid).get(w, "?") for w in winners)
    message = N_("Result decided: %(names)s won.") if winners else N_("Result decided: a draw.")
    return page_action(
        page,
        lambda: service.resolve(page.session, actor=page.user, campaign_id=page.cid, battle_id=bid, winners=winners),
        again=partial(battle_page, page, bid),
        done=lambda _battle: page.redirect(_result(page.cid, bid), message, names=names),
    )

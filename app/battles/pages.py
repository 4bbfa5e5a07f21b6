"""Battle pages: the round's battles (mine first), one battle with rosters and its result."""
from __future__ import annotations

from fastapi import APIRouter, Request

from app.core.types import PathId, QueryRound
from app.accounts.deps import PageLogin, SessionDep
from app.battles import service
from app.campaigns import service as campaigns
from app.catalog.deps import CatalogDep
from app.core import flash
from app.core.errors import N_, DomainError
from app.battles.schemas import DisputeForm, ResultForm
from app.core.forms import Form, blank_to_none, confirm_page, confirmed, field_refusal, refusal, typed, validate
from app.core.templating import render, request_gettext
from app.events.models import Event
from app.maps import service as maps
from app.campaigns.service import campaign_of

router = APIRouter()
LABELS = {"winner": N_("Winners"), "winner_one": N_("Winners"), "draw": N_("Draw"), "reason": N_("Reason")}


def _names(session, cid) -> dict[int, str]:
    return {p.player_id: p.nickname for p in campaigns.players(session, cid)}


@router.get("/campaigns/{cid}/battles")
def battles(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
            round: int | None = QueryRound()):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    views = service.battles_of(session, viewer.campaign, round)
    me = viewer.player.id if viewer.player else None
    views.sort(key=lambda v: (me not in v.participants, v.battle.id))
    shown_round = viewer.campaign.round if round is None else round
    # Warbands that did not fight (R6.2, R6.4): public like the battles, shown with what they
    # mean for the place (issue 12).
    arrivals = service.arrivals_of(session, viewer.campaign, shown_round)
    return render(request, "battles/battles.html", viewer=viewer, campaign=viewer.campaign, views=views, me=me,
                  arrivals=arrivals, arrival_warbands=service.warband_names(session, arrivals),
                  names=_names(session, cid), labels=maps.labels(session, cid), catalog=catalog,
                  shown_round=shown_round, tab="battles")


# Parts of the battle page added by higher domains (the clock): (session, viewer, view) ->
# (template, context) or None.
BATTLE_PARTS: list = []


def add_battle_part(part) -> None:
    if part not in BATTLE_PARTS:
        BATTLE_PARTS.append(part)


def battle_page(request, session, user, cid, bid, catalog, status_code=200, **extra):
    viewer, view = service.battle(session, actor=user, campaign_id=cid, battle_id=bid)
    parts = [found for found in (part(session, viewer, view) for part in BATTLE_PARTS) if found]
    me = viewer.player.id if viewer.player else None
    event = session.get(Event, view.battle.event_id) if view.battle.event_id else None
    arrivals = service.arrivals_of(session, viewer.campaign, view.battle.round, place_id=view.battle.place_id)
    return render(request, "battles/battle.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign, view=view,
                  arrivals=arrivals, arrival_warbands=service.warband_names(session, arrivals),
                  me=me, names=_names(session, cid), labels=maps.labels(session, cid), catalog=catalog,
                  event=event, beacon=service.beacon_hint(view.battle), tab="battles", parts=parts, **extra)


@router.get("/campaigns/{cid}/battles/{bid}")
def battle(cid: PathId, bid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return battle_page(request, session, user, cid, bid, catalog)


def _winners(request, form) -> tuple[list[int] | None, str | None]:
    """The result form's winners, or its problem (buttons and ticks: said above the page)."""
    body, errors = validate(request, ResultForm, blank_to_none(typed(form, "winner_one", "draw", lists=("winner",))), LABELS)
    return (None, " ".join(errors.values())) if errors else (body.winners, None)


def _act(request, session, user, cid, bid, catalog, action, message, **params):
    try:
        action()
    except DomainError as exc:
        return battle_page(request, session, user, cid, bid, catalog, status_code=exc.status, error=refusal(request, session, exc))
    return flash.redirect(request, f"/campaigns/{cid}/battles/{bid}#result", message, **params)


# Entering a result asks first: who won, then confirm (the others are asked to confirm it).
CONFIRM_WON = N_("%(names)s won?")
CONFIRM_DRAW = N_("A draw?")
CONFIRM_RESULT_DETAIL = N_("The other players are asked to confirm the result; after that only the game master can change it.")


@router.post("/campaigns/{cid}/battles/{bid}/result")
def report(cid: PathId, bid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    winners, problem = _winners(request, form)
    if problem:
        return battle_page(request, session, user, cid, bid, catalog, status_code=422, error=problem)
    try:
        service.report(session, actor=user, campaign_id=cid, battle_id=bid, winners=winners)
    except DomainError as exc:
        return battle_page(request, session, user, cid, bid, catalog, status_code=exc.status, error=refusal(request, session, exc))
    names = ", ".join(_names(session, cid).get(w, "?") for w in winners)
    if not confirmed(form):
        gettext = request_gettext(request)
        viewer = campaign_of(session, actor=user, campaign_id=cid)
        return confirm_page(request, session, form, question=gettext(CONFIRM_WON) % {"names": names} if winners else gettext(CONFIRM_DRAW),
                            detail=gettext(CONFIRM_RESULT_DETAIL), button=gettext(N_("Enter the result")),
                            action=f"/campaigns/{cid}/battles/{bid}/result", cancel=f"/campaigns/{cid}/battles/{bid}#result",
                            viewer=viewer, campaign=viewer.campaign, tab="battles")
    if winners:
        return flash.redirect(request, f"/campaigns/{cid}/battles/{bid}#result", N_("Result entered: %(names)s won."), names=names)
    return flash.redirect(request, f"/campaigns/{cid}/battles/{bid}#result", N_("Result entered: a draw."))


@router.post("/campaigns/{cid}/battles/{bid}/confirm")
def confirm(cid: PathId, bid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _act(request, session, user, cid, bid, catalog, lambda: service.confirm(session, actor=user, campaign_id=cid, battle_id=bid),
                N_("Result confirmed."))


@router.post("/campaigns/{cid}/battles/{bid}/dispute")
def dispute(cid: PathId, bid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    """The reason next to its field, kept as typed, when it is missing or too long."""
    data = typed(form, "reason")
    body, errors = validate(request, DisputeForm, data, LABELS)
    if not errors:
        try:
            service.dispute(session, actor=user, campaign_id=cid, battle_id=bid, reason=body.reason)
        except DomainError as exc:
            if exc.code != "reason_required":
                return battle_page(request, session, user, cid, bid, catalog, status_code=exc.status, error=refusal(request, session, exc))
            errors = {"reason": field_refusal(request, session, exc, LABELS["reason"])}
        else:
            return flash.redirect(request, f"/campaigns/{cid}/battles/{bid}#result", N_("The dispute is sent to the game master."))
    return battle_page(request, session, user, cid, bid, catalog, status_code=422, dispute_errors=errors, dispute_form=data)


@router.post("/campaigns/{cid}/battles/{bid}/resolve")
def resolve(cid: PathId, bid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    winners, problem = _winners(request, form)
    if problem:
        return battle_page(request, session, user, cid, bid, catalog, status_code=422, error=problem)
    names = ", ".join(_names(session, cid).get(w, "?") for w in winners)
    return _act(request, session, user, cid, bid, catalog,
                lambda: service.resolve(session, actor=user, campaign_id=cid, battle_id=bid, winners=winners),
                N_("Result decided: %(names)s won.") if winners else N_("Result decided: a draw."), names=names)

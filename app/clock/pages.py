"""The battle clock on the battle page (a chess clock big enough to tap on a phone lying on
the table), its settings on the Rules tab, and each event's own clock."""
from __future__ import annotations

from fastapi import APIRouter, Request

from app.accounts.deps import PageLogin, SessionDep
from app.battles import pages as battle_pages
from app.campaigns import pages as campaign_pages
from app.catalog.deps import CatalogDep
from app.clock import service
from app.clock.schemas import ClockSettingsIn, ClockTapIn
from app.core import flash
from app.core.errors import N_, DomainError
from app.campaigns.service import campaign_of
from app.core.forms import Form, blank_to_none, confirm_page, confirmed, refusal, typed, validate
from app.core.templating import request_gettext
from app.core.types import PathId

router = APIRouter()
LABELS = {"minutes_per_side": N_("Minutes per side"), "max_turns": N_("Turns"), "extra_turn_on": N_("Extra turn on"),
          "action": N_("Clock"), "side": N_("Side"), "roll": N_("Die roll"), "remaining_ms": N_("Remaining minutes"),
          "turn": N_("Turn"), "version": N_("Clock")}
SAID = {
    "start": N_("The clock runs."), "switch": N_("Passed to the next side."), "pause": N_("The clock is paused."),
    "next_turn": N_("Next turn."), "end": N_("The game is over; the clock has stopped."),
    "roll": N_("The extra turn's die is rolled."), "correct": N_("The clock is corrected."),
}

END_QUESTION = N_("End the game now?")
END_DETAIL = N_("The clock stops for good; the turns played are kept with the battle.")


# --- on the battle page ------------------------------------------------------------------------


def battle_part(session, viewer, view) -> tuple[str, dict] | None:
    """The clock card of the battle page (battles/pages.py's BATTLE_PARTS)."""
    clock = service.clock_view(session, viewer, view, service.now_ms())
    if clock.status == "ready" and not clock.may_run:
        return None  # a clock never started, on a battle that can no longer start one: nothing to show
    return "clock/_clock.html", {"clock": clock, "clock_names": {s.side: " & ".join(s.names) for s in clock.sides},
                                 "end_names": service.END_NAMES}


battle_pages.add_battle_part(battle_part)


def _tap_data(form) -> dict:
    data = blank_to_none(typed(form, "action", "side", "roll", "turn", "version", "remaining_min"))
    minutes = data.pop("remaining_min", None)
    if minutes is not None:
        try:
            data["remaining_ms"] = round(float(minutes) * 60_000)
        except ValueError:
            data["remaining_ms"] = minutes  # the schema says what is wrong with it
    return data


@router.post("/campaigns/{cid}/battles/{bid}/clock")
def tap(cid: PathId, bid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    body, errors = validate(request, ClockTapIn, _tap_data(form), LABELS)
    if errors:
        return battle_pages.battle_page(request, session, user, cid, bid, catalog, status_code=422, error=" ".join(errors.values()))
    try:
        service.act(session, actor=user, campaign_id=cid, battle_id=bid, tap=service.Tap(**body.model_dump()))
    except DomainError as exc:
        return battle_pages.battle_page(request, session, user, cid, bid, catalog, status_code=exc.status,
                                        error=refusal(request, session, exc))
    if body.action == "end" and not confirmed(form):
        gettext = request_gettext(request)
        viewer = campaign_of(session, actor=user, campaign_id=cid)
        return confirm_page(request, session, form, question=gettext(END_QUESTION), detail=gettext(END_DETAIL),
                            button=gettext(N_("End the game")), danger=True, action=f"/campaigns/{cid}/battles/{bid}/clock",
                            cancel=f"/campaigns/{cid}/battles/{bid}#clock", viewer=viewer, campaign=viewer.campaign, tab="battles")
    return flash.redirect(request, f"/campaigns/{cid}/battles/{bid}#clock", SAID[body.action])


# --- settings on the Rules tab -----------------------------------------------------------------


def rules_section(session, viewer) -> tuple[str, dict]:
    campaign = viewer.campaign
    events = service.events_with_settings(session, campaign) if viewer.is_gm else []
    return "clock/_settings.html", {"clock_settings": service.campaign_settings(campaign),
                                    "clock_events": [(e, service.battle_settings(campaign, e)) for e in events]}


campaign_pages.add_rules_section(rules_section)


def _settings_data(form) -> dict:
    data = blank_to_none(typed(form, "minutes_per_side", "max_turns", "extra_turn_on"))
    if data.get("extra_turn_on") == "none":
        data["extra_turn_on"] = None
    return data


def _settings_refused(request, session, user, cid, message: str, status: int):
    return campaign_pages.rules_page(request, session, user, cid, status_code=status, error=message)


@router.post("/campaigns/{cid}/clock-settings")
def save_settings(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    body, errors = validate(request, ClockSettingsIn, _settings_data(form), LABELS)
    if errors:
        return _settings_refused(request, session, user, cid, " ".join(errors.values()), 422)
    try:
        service.set_campaign_settings(session, actor=user, campaign_id=cid, settings=body.settings())
    except DomainError as exc:
        return _settings_refused(request, session, user, cid, refusal(request, session, exc), exc.status)
    return flash.redirect(request, f"/campaigns/{cid}/rules#clock", N_("The battle clock is set."))


@router.post("/campaigns/{cid}/events/{eid}/clock-settings")
def save_event_settings(cid: PathId, eid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    own = form.get("own") == "on"
    settings = None
    if own:
        body, errors = validate(request, ClockSettingsIn, _settings_data(form), LABELS)
        if errors:
            return _settings_refused(request, session, user, cid, " ".join(errors.values()), 422)
        settings = body.settings()
    try:
        event = service.set_event_settings(session, actor=user, campaign_id=cid, event_id=eid, settings=settings)
    except DomainError as exc:
        return _settings_refused(request, session, user, cid, refusal(request, session, exc), exc.status)
    message = N_("%(event)s has its own battle clock.") if own else N_("%(event)s uses the campaign's battle clock.")
    return flash.redirect(request, f"/campaigns/{cid}/rules#clock", message, event=event.title)


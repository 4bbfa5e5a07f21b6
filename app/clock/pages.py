"""The battle clock on the battle page (a chess clock big enough to tap on a phone lying on
the table), its settings on the Rules tab, and each event's own clock."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter

from app.battles import pages as battle_pages
from app.campaigns import pages as campaign_pages
from app.campaigns.deps import CampaignPage
from app.clock import service
from app.clock.schemas import ClockSettingsIn, ClockTapIn
from app.core.errors import N_
from app.core.forms import blank_to_none, typed, validate
from app.core.page_actions import page_action
from app.core.types import PathId

router = APIRouter()
LABELS = {
    "minutes_per_side": N_("Minutes per side"),
    "max_turns": N_("Turns"),
    "extra_turn_on": N_("Extra turn on"),
    "action": N_("Clock"),
    "side": N_("Side"),
    "roll": N_("Die roll"),
    "remaining_ms": N_("Remaining minutes"),
    "turn": N_("Turn"),
    "version": N_("Clock"),
}
SAID = {
    "start": N_("The clock runs."),
    "switch": N_("Passed to the next side."),
    "pause": N_("The clock is paused."),
    "next_turn": N_("Next turn."),
    "end": N_("The game is over; the clock has stopped."),
    "roll": N_("The extra turn's die is rolled."),
    "correct": N_("The clock is corrected."),
}

END_QUESTION = N_("End the game now?")
END_DETAIL = N_("The clock stops for good; the turns played are kept with the battle.")


# --- on the battle page ------------------------------------------------------------------------


def battle_part(session, viewer, view) -> tuple[str, dict] | None:
    """The clock card of the battle page (battles/pages.py's battle_parts port, wired in app/wiring.py)."""
    clock = service.clock_view(session, viewer, view, service.now_ms())
    if clock.status == "ready" and not clock.may_run:
        return None  # a clock never started, on a battle that can no longer start one: nothing to show
    return "clock/_clock.html", {
        "clock": clock,
        "clock_names": {s.side: " & ".join(s.names) for s in clock.sides},
        "end_names": service.END_NAMES,
    }


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
def tap(bid: PathId, page: CampaignPage):
    body, errors = validate(page.request, ClockTapIn, _tap_data(page.form), LABELS)
    again = partial(battle_pages.battle_page, page, bid)
    if errors:
        return again(status_code=422, error=" ".join(errors.values()))
    back = f"/campaigns/{page.cid}/battles/{bid}#clock"

    def ask(_clock):
        if body.action != "end":
            return None
        return page.ask((END_QUESTION, END_DETAIL, N_("End the game")), cancel=back, tab="battles", danger=True)

    return page_action(
        page,
        lambda: service.act(
            page.session, actor=page.user, campaign_id=page.cid, battle_id=bid, tap=service.Tap(**body.model_dump())
        ),
        again=again,
        ask=ask,
        done=lambda _clock: page.redirect(back, SAID[body.action]),
    )


# --- settings on the Rules tab -----------------------------------------------------------------


def rules_section(session, viewer) -> tuple[str, dict]:
    campaign = viewer.campaign
    events = service.events_with_settings(session, campaign) if viewer.is_gm else []
    return "clock/_settings.html", {
        "clock_settings": service.campaign_settings(campaign),
        "clock_events": [(e, service.battle_settings(campaign, e)) for e in events],
    }


def _settings_data(form) -> dict:
    data = blank_to_none(typed(form, "minutes_per_side", "max_turns", "extra_turn_on"))
    if data.get("extra_turn_on") == "none":
        data["extra_turn_on"] = None
    return data


@router.post("/campaigns/{cid}/clock-settings")
def save_settings(page: CampaignPage):
    body, errors = validate(page.request, ClockSettingsIn, _settings_data(page.form), LABELS)
    if errors:
        return campaign_pages.rules_page(page, status_code=422, error=" ".join(errors.values()))
    return page_action(
        page,
        lambda: service.set_campaign_settings(page.session, actor=page.user, campaign_id=page.cid, settings=body.settings()),
        again=partial(campaign_pages.rules_page, page),
        done=lambda _settings: page.redirect(f"/campaigns/{page.cid}/rules#clock", N_("The battle clock is set.")),
    )


@router.post("/campaigns/{cid}/events/{eid}/clock-settings")
def save_event_settings(eid: PathId, page: CampaignPage):
    own = page.form.get("own") == "on"
    settings = None
    if own:
        body, errors = validate(page.request, ClockSettingsIn, _settings_data(page.form), LABELS)
        if errors:
            return campaign_pages.rules_page(page, status_code=422, error=" ".join(errors.values()))
        settings = body.settings()
    message = N_("%(event)s has its own battle clock.") if own else N_("%(event)s uses the campaign's battle clock.")
    return page_action(
        page,
        lambda: service.set_event_settings(page.session, actor=page.user, campaign_id=page.cid, event_id=eid, settings=settings),
        again=partial(campaign_pages.rules_page, page),
        done=lambda event: page.redirect(f"/campaigns/{page.cid}/rules#clock", message, event=event.title),
    )

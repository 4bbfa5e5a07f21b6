"""Events pages: the list for everyone, and the GM's create, edit and end forms."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter
from starlette.datastructures import FormData

from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.service import gm_campaign
from app.core.errors import N_
from app.core.forms import blank_to_none, confirmed, typed, validate
from app.core.i18n import translations
from app.core.page_actions import Ask, page_action
from app.core.templating import render
from app.core.types import PathId
from app.events import rules, service
from app.events.models import Event
from app.events.schemas import EventIn, EventPatch
from app.maps import service as maps

router = APIRouter()


def _form_data(form, *, with_place: bool) -> dict:
    posted = typed(
        form,
        "place_id",
        "title",
        "text",
        "duration",
        "scenario",
        "other_mission",
        "points_limit",
        "reward",
        "notes",
        "roles",
        "blockade",
    )
    data = blank_to_none(
        {k: posted.get(k) for k in ("title", "text", "duration", "scenario", "points_limit", "reward", "notes", "roles")}
    )
    if posted.get("scenario") == "__other__":
        data["scenario"], data["other_mission"] = None, (posted.get("other_mission") or "").strip()
    else:
        data["other_mission"] = None
    data["blockade"] = posted.get("blockade") == "on"
    for key in ("text", "reward", "notes"):
        data[key] = data.get(key) or ""
    if with_place:
        data["place_id"] = blank_to_none(posted).get("place_id")
    # A blank title or duration is "not given" (its default or a required-field error).
    return {k: v for k, v in data.items() if v is not None or k in ("scenario", "other_mission", "roles", "points_limit")}


# Each field's label, so that every problem is shown at once next to its field, named.
LABELS = {
    "place_id": N_("Place"),
    "title": N_("Title"),
    "text": N_("Text"),
    "duration": N_("Duration (rounds)"),
    "scenario": N_("Scenario"),
    "other_mission": N_("Other mission"),
    "roles": N_("Attacker and defender"),
    "points_limit": N_("Points limit"),
    "reward": N_("Reward"),
    "notes": N_("Notes for battles of many warbands"),
}
# Refusals of the service that belong to one field.
FIELD_OF = {"other_mission_text": "other_mission", "scenario_unknown": "scenario", "event_scenario_or_mission": "scenario"}


# Refusals of the service that belong to one field, named by its label.
REFUSED_FIELDS = {code: (field, LABELS[field]) for code, field in FIELD_OF.items()}


def _page(page: CampaignContext, status_code=200, **extra):
    session, viewer = page.session, page.viewer
    places = maps.places(session, page.cid)
    # The GM's End the event question says how many sent orders it undoes (R5.5, R11.6).
    undoes = (
        service.standing_counts(session, viewer.campaign) if viewer.is_gm and viewer.campaign.phase in rules.UNDO_PHASES else {}
    )
    return render(
        page.request,
        "events/events.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        events=service.active_events(session, viewer.campaign),
        library=service.library(session, viewer) if viewer.is_gm else [],
        labels=maps.place_labels(places),
        catalog=page.catalog,
        last_round=rules.last_round,
        undoes=undoes,
        tab="events",
        **extra,
    )


def _ask_undo(page: CampaignContext, eid: int, count: int, button: str) -> Ask:
    """R5.5: the GM is told how many sent orders the change undoes before it is made (the
    change was only rehearsed: the confirm page rolls it back)."""
    language = translations(getattr(page.request.state, "locale", "en"))
    gettext = language.gettext
    question = language.ngettext("This undoes %(num)d sent order. Continue?", "This undoes %(num)d sent orders. Continue?", count)
    return Ask(
        question=question % {"num": count},
        detail=gettext("Their mercenary fees are refunded and their owners are told."),
        button=gettext(button),
        cancel=f"/campaigns/{page.cid}/events#event-{eid}",
        tab="events",
        danger=True,
    )


CONFIRM_END = (
    N_("End the event %(title)s?"),
    N_("No sent order is undone. An ended event cannot be opened again."),
    N_("End the event"),
)


@router.get("/campaigns/{cid}/events")
def events_page(page: CampaignPage):
    return _page(page)


@router.post("/campaigns/{cid}/events")
def create_event(page: CampaignPage):
    session, cid = page.session, page.cid
    gm_campaign(session, actor=page.user, campaign_id=cid)
    data = _form_data(page.form, with_place=True)
    model, errors = validate(page.request, EventIn, data, LABELS)
    if errors:
        return _page(page, status_code=422, errors=errors, form=data)

    def again(status_code: int, error: str | None = None, errors: dict | None = None):
        return _page(page, status_code=status_code, error=error, form=data, errors=errors or {})

    return page_action(
        page,
        lambda: service.create_event(session, actor=page.user, campaign_id=cid, data=model.model_dump(), catalog=page.catalog),
        again=again,
        fields=REFUSED_FIELDS,
        done=lambda event: page.redirect(
            f"/campaigns/{cid}/events#event-{event.id}", N_("Event %(title)s added."), title=event.title
        ),
    )


@router.post("/campaigns/{cid}/events/{eid}")
def edit_event(eid: PathId, page: CampaignPage):
    session, cid = page.session, page.cid
    gm_campaign(session, actor=page.user, campaign_id=cid)
    data = _form_data(page.form, with_place=False)
    model, errors = validate(page.request, EventPatch, data, LABELS)

    def again(status_code: int, error: str | None = None, errors: dict | None = None):
        """The event's edit form opens again with what was typed and every problem in place."""
        row = session.get(Event, eid)
        shown = {k: getattr(row, k) for k in LABELS if k != "place_id" and hasattr(row, k)} if row else {}
        shown.update(data, id=eid)
        return _page(
            page, status_code=status_code, error=error, errors={}, edit={"id": eid, "form": shown, "errors": errors or {}}
        )

    if errors:
        return again(422, errors=errors)
    return page_action(
        page,
        lambda: service.update_event(
            session,
            actor=page.user,
            campaign_id=cid,
            event_id=eid,
            changes=model.model_dump(exclude_unset=True),
            catalog=page.catalog,
        ),
        again=again,
        fields=REFUSED_FIELDS,
        ask=lambda change: _ask_undo(page, eid, len(change.undone), N_("Save and undo the orders")) if change.undone else None,
        done=lambda change: page.redirect(
            f"/campaigns/{cid}/events#event-{eid}", N_("Event %(title)s saved."), title=change.event.title
        ),
    )


@router.post("/campaigns/{cid}/events/{eid}/reuse")
def reuse_event(eid: PathId, page: CampaignPage):
    """R12.13: a library event runs again from this round (a new event; nothing is undone)."""
    cid = page.cid
    return page_action(
        page,
        lambda: service.reuse_event(page.session, actor=page.user, campaign_id=cid, event_id=eid, catalog=page.catalog),
        again=partial(_page, page, errors={}),
        done=lambda event: page.redirect(
            f"/campaigns/{cid}/events#event-{event.id}",
            N_("Event %(title)s runs again from round %(n)s."),
            title=event.title,
            n=event.round_added,
        ),
    )


@router.post("/campaigns/{cid}/events/{eid}/end")
def end_event(eid: PathId, page: CampaignPage):
    form, cid = page.form, page.cid

    def done(change):
        # Ending is a one-way step (R11.6): asked first, with the number of orders it undoes
        # (R5.5). The dialog said the count the page was rendered with (`undoes`); when orders
        # were sent or undone since, the server asks again with the count as it now is.
        said = form.get("undoes")
        stale = said is not None and said != str(len(change.undone))
        if confirmed(form) and not stale:
            return page.redirect(f"/campaigns/{cid}/events", N_("Event %(title)s ended."), title=change.event.title)
        if change.undone:
            ask = _ask_undo(page, eid, len(change.undone), N_("End the event and undo the orders"))
        else:  # no order undone, and still asked: it cannot be undone (R11.6)
            ask = page.ask(
                CONFIRM_END, cancel=f"/campaigns/{cid}/events#event-{eid}", tab="events", danger=True, title=change.event.title
            )
        return page.confirm(ask, form=FormData([(k, v) for k, v in form.multi_items() if k not in ("undoes", "confirm")]))

    return page_action(
        page,
        lambda: service.end_event(page.session, actor=page.user, campaign_id=cid, event_id=eid),
        again=partial(_page, page, errors={}),
        done=done,
    )

"""Events pages: the list for everyone, and the GM's create, edit and end forms."""
from __future__ import annotations

from fastapi import APIRouter, Request

from app.core.types import PathId
from app.accounts.deps import PageLogin, SessionDep
from app.catalog.deps import CatalogDep
from app.core import flash
from app.core.errors import N_, DomainError
from app.core.forms import Form, blank_to_none, field_refusal, refusal, typed, validate
from app.core.templating import render
from app.events import rules, service
from app.events.models import Event
from app.events.schemas import EventIn, EventPatch
from app.maps import service as maps
from app.campaigns.service import campaign_of, gm_campaign

router = APIRouter()


def _form_data(form, *, with_place: bool) -> dict:
    posted = typed(form, "place_id", "title", "text", "duration", "scenario", "other_mission", "points_limit", "reward", "notes",
                   "roles", "blockade")
    data = blank_to_none({k: posted.get(k) for k in ("title", "text", "duration", "scenario", "points_limit", "reward", "notes", "roles")})
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
    "place_id": N_("Place"), "title": N_("Title"), "text": N_("Text"), "duration": N_("Duration (rounds)"),
    "scenario": N_("Scenario"), "other_mission": N_("Other mission"), "roles": N_("Attacker and defender"),
    "points_limit": N_("Points limit"), "reward": N_("Reward"), "notes": N_("Notes for battles of many warbands"),
}
# Refusals of the service that belong to one field.
FIELD_OF = {"other_mission_text": "other_mission", "scenario_unknown": "scenario", "event_scenario_or_mission": "scenario"}


def _refused(request, session, exc) -> tuple[dict, str | None]:
    """A refusal as (field errors, form error): next to its field when it has one."""
    field = FIELD_OF.get(exc.code)
    if field:
        return {field: field_refusal(request, session, exc, LABELS[field])}, None
    return {}, refusal(request, session, exc)


def _page(request, session, user, cid, catalog, status_code=200, **extra):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    places = maps.places(session, cid)
    return render(
        request, "events/events.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
        events=service.active_events(session, viewer.campaign), labels=maps.place_labels(places), catalog=catalog,
        last_round=rules.last_round, tab="events", **extra,
    )


@router.get("/campaigns/{cid}/events")
def events_page(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _page(request, session, user, cid, catalog)


@router.post("/campaigns/{cid}/events")
def create_event(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    gm_campaign(session, actor=user, campaign_id=cid)
    data = _form_data(form, with_place=True)
    model, errors = validate(request, EventIn, data, LABELS)
    if errors:
        return _page(request, session, user, cid, catalog, status_code=422, errors=errors, form=data)
    try:
        event = service.create_event(session, actor=user, campaign_id=cid, data=model.model_dump(), catalog=catalog)
    except DomainError as exc:
        errors, message = _refused(request, session, exc)
        return _page(request, session, user, cid, catalog, status_code=exc.status, error=message, form=data, errors=errors)
    return flash.redirect(request, f"/campaigns/{cid}/events#event-{event.id}", N_("Event %(title)s added."), title=event.title)


@router.post("/campaigns/{cid}/events/{eid}")
def edit_event(cid: PathId, eid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    gm_campaign(session, actor=user, campaign_id=cid)
    data = _form_data(form, with_place=False)
    model, errors = validate(request, EventPatch, data, LABELS)
    message, status = None, 422
    if not errors:
        try:
            event = service.update_event(session, actor=user, campaign_id=cid, event_id=eid,
                                         changes=model.model_dump(exclude_unset=True), catalog=catalog)
        except DomainError as exc:
            (errors, message), status = _refused(request, session, exc), exc.status
        else:
            return flash.redirect(request, f"/campaigns/{cid}/events#event-{eid}", N_("Event %(title)s saved."), title=event.title)
    # The event's edit form opens again with what was typed and every problem in place.
    row = session.get(Event, eid)
    typed = {k: getattr(row, k) for k in LABELS if k != "place_id" and hasattr(row, k)} if row else {}
    typed.update(data, id=eid)
    return _page(request, session, user, cid, catalog, status_code=status, error=message, errors={},
                 edit={"id": eid, "form": typed, "errors": errors})


@router.post("/campaigns/{cid}/events/{eid}/end")
def end_event(cid: PathId, eid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    try:
        event = service.end_event(session, actor=user, campaign_id=cid, event_id=eid)
    except DomainError as exc:
        return _page(request, session, user, cid, catalog, status_code=exc.status, error=refusal(request, session, exc), errors={})
    return flash.redirect(request, f"/campaigns/{cid}/events", N_("Event %(title)s ended."), title=event.title)

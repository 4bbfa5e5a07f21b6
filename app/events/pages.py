"""Events pages: the list for everyone, and the GM's create, edit and end forms."""
from __future__ import annotations

from fastapi import APIRouter, Request

from app.accounts.deps import PageLogin, SessionDep
from app.catalog.deps import CatalogDep
from app.core.errors import DomainError
from app.core.forms import Form, blank_to_none, int_field, refusal, see_other, validate
from app.core.templating import render
from app.events import rules, service
from app.events.schemas import EventIn, EventPatch
from app.maps import service as maps
from app.visibility import require_gm, viewer_for

router = APIRouter()


def _form_data(form, *, with_place: bool) -> dict:
    data = blank_to_none({k: form.get(k) for k in ("title", "text", "duration", "scenario", "points_limit", "reward", "notes", "roles")})
    mission = str(form.get("other_mission") or "").strip()
    if form.get("scenario") == "__other__":
        data["scenario"], data["other_mission"] = None, mission
    else:
        data["other_mission"] = None
    data["blockade"] = form.get("blockade") == "on"
    for key in ("text", "reward", "notes"):
        data[key] = data.get(key) or ""
    if with_place:
        data["place_id"] = int_field(form.get("place_id"), -1)
    # A blank title or duration is "not given" (its default or a required-field error).
    return {k: v for k, v in data.items() if v is not None or k in ("scenario", "other_mission", "roles", "points_limit")}


def _page(request, session, user, cid, catalog, status_code=200, **extra):
    viewer = viewer_for(session, user, cid)
    places = maps.places(session, cid)
    return render(
        request, "events/events.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
        events=service.active_events(session, viewer.campaign), labels=maps.place_labels(places), catalog=catalog,
        last_round=rules.last_round, tab="events", **extra,
    )


@router.get("/campaigns/{cid}/events")
def events_page(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _page(request, session, user, cid, catalog)


@router.post("/campaigns/{cid}/events")
def create_event(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    require_gm(viewer_for(session, user, cid))
    data = _form_data(form, with_place=True)
    model, errors = validate(request, EventIn, data)
    if errors:
        return _page(request, session, user, cid, catalog, status_code=422, errors=errors, form=data)
    try:
        service.create_event(session, actor=user, campaign_id=cid, data=model.model_dump(), catalog=catalog)
    except DomainError as exc:
        return _page(request, session, user, cid, catalog, status_code=exc.status, error=refusal(request, session, exc), form=data, errors={})
    return see_other(f"/campaigns/{cid}/events")


@router.post("/campaigns/{cid}/events/{eid}")
def edit_event(cid: int, eid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    require_gm(viewer_for(session, user, cid))
    data = _form_data(form, with_place=False)
    model, errors = validate(request, EventPatch, data)
    try:
        if errors:
            raise DomainError("validation_error")
        service.update_event(session, actor=user, campaign_id=cid, event_id=eid, changes=model.model_dump(exclude_unset=True), catalog=catalog)
    except DomainError as exc:
        message = next(iter(errors.values())) if errors else refusal(request, session, exc)
        return _page(request, session, user, cid, catalog, status_code=exc.status, error=message, errors={})
    return see_other(f"/campaigns/{cid}/events")


@router.post("/campaigns/{cid}/events/{eid}/end")
def end_event(cid: int, eid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    try:
        service.end_event(session, actor=user, campaign_id=cid, event_id=eid)
    except DomainError as exc:
        return _page(request, session, user, cid, catalog, status_code=exc.status, error=refusal(request, session, exc), errors={})
    return see_other(f"/campaigns/{cid}/events")

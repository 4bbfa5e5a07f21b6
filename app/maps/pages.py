"""Places tab and the GM's place list editor (wizard step 3)."""
from __future__ import annotations

from fastapi import APIRouter, Query, Request

from app.core.types import PathId
from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import service as campaigns
from app.campaigns.wizard import wizard_context
from app.core import flash
from app.core.errors import N_, DomainError
from app.core.forms import Form, blank_to_none, refusal, safe_next, typed, validate
from app.core.templating import render
from app.maps import service
from app.maps.schemas import MapForm, PlaceIn, PlacePatch
from app.campaigns.service import campaign_of, gm_campaign

router = APIRouter()


def _place_form(form) -> dict:
    posted = typed(form, "name", "description", "income", "x", "y", "parent_id")
    data = blank_to_none({k: posted.get(k) for k in ("name", "description", "income", "x", "y", "parent_id")})
    data["hideout_slot"] = form.get("hideout_slot") == "on"
    data["entry"] = form.get("entry") == "on"
    if "has_map_form" in form:
        data["has_map"] = form.get("has_map") == "on"
    data["description"] = data.get("description") or ""
    return {k: v for k, v in data.items() if v is not None or k == "parent_id"}


def editor_context(session, cid: PathId) -> dict:
    rows, new_parent_options = service.editor_rows(service.places(session, cid))
    return {"place_rows": rows, "new_parent_options": new_parent_options, "places": [p for p, _d in rows]}


def _places_page(request, session, user, cid, status_code=200, **extra):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    editor = editor_context(session, cid)
    back = safe_next(extra.pop("back", None), f"/campaigns/{cid}/places")
    if back.startswith(f"/campaigns/{cid}/map"):
        from urllib.parse import parse_qs, urlsplit

        from app.maps.map_pages import _map_page

        shown, _errors = validate(request, MapForm, blank_to_none({"of": parse_qs(urlsplit(back).query).get("of", [None])[0]}))
        message = extra.get("place_error")
        return _map_page(request, session, user, cid, shown.of if shown else None, status_code=status_code, map_error=message)
    if back.startswith(f"/campaigns/{cid}/setup/"):
        return render(
            request, "campaigns/wizard.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
            **wizard_context(viewer.campaign, 3), **editor, form={}, errors={}, editor_back=back, **extra,
        )
    owners = {p.player_id: p.nickname for p in campaigns.players(session, cid)}
    return render(
        request, "maps/places.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
        **editor, owners=owners, hideout_ids=service.hideout_place_ids(session, cid), tab="places", **extra,
    )


@router.get("/campaigns/{cid}/places")
def places(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    return _places_page(request, session, user, cid)


@router.get("/campaigns/{cid}/places/{pid}/edit")
def edit_place_form(
    cid: PathId, pid: PathId, request: Request, user: PageLogin, session: SessionDep, next_url: str = Query("", alias="next")
):
    viewer = gm_campaign(session, actor=user, campaign_id=cid)
    places_ = service.places(session, cid)
    place = next((p for p in places_ if p.id == pid), None)
    if place is None:
        raise DomainError("not_found")
    template = "maps/_place_form.html" if request.headers.get("hx-request") else "maps/place_edit.html"
    return render(
        request, template, viewer=viewer, campaign=viewer.campaign, place=place, tab="places",
        parent_options=service.parent_choices(places_, pid), can_have_map=service.can_have_map(places_, pid), back=safe_next(next_url, f"/campaigns/{cid}/places"),
    )


# Each field's label, so that every problem is shown at once next to its field, named.
LABELS = {"name": N_("Name"), "description": N_("Description"), "income": N_("Income per round"),
          "x": N_("Position x (%%)"), "y": N_("Position y (%%)"), "parent_id": N_("Lies inside")}


def _field_problems(request, session, user, cid, form, pid: PathId | None, errors: dict[str, str]):
    """The form again with what was typed and every problem next to its field: the add
    form for a new place, the place's own edit page for an edit. From the map, the
    problems are listed together above it (the map's sheet is an htmx partial)."""
    gm_campaign(session, actor=user, campaign_id=cid)
    shown = typed(form, "name", "description", "income", "x", "y", "parent_id", "next")
    back = safe_next(shown.get("next"), f"/campaigns/{cid}/places")
    shown.update(hideout_slot=form.get("hideout_slot") == "on", entry=form.get("entry") == "on", has_map=form.get("has_map") == "on")
    if back.startswith(f"/campaigns/{cid}/map"):
        return _places_page(request, session, user, cid, status_code=422, back=back, place_error=" ".join(errors.values()))
    if pid is None:
        return _places_page(request, session, user, cid, status_code=422, back=back, place_errors=errors, place_form=shown)
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    places_ = service.places(session, cid)
    place = next((p for p in places_ if p.id == pid), None)
    if place is None:
        raise DomainError("not_found")
    shown.update(id=pid)
    return render(request, "maps/place_edit.html", status_code=422, viewer=viewer, campaign=viewer.campaign, place=place,
                  place_form=shown, place_errors=errors, tab="places", parent_options=service.parent_choices(places_, pid),
                  can_have_map=service.can_have_map(places_, pid), back=back)


def _save_place(request, session, user, cid, form, schema, save, *, pid: PathId | None = None):
    """Validate the place form with the API's schema, save it, and go back where it came
    from with a flash message; a refusal is shown in place."""
    back = typed(form, "next").get("next", "")
    model, errors = validate(request, schema, _place_form(form), LABELS)
    if errors:
        return _field_problems(request, session, user, cid, form, pid, errors)
    try:
        place = save(model)
    except DomainError as exc:
        return _places_page(request, session, user, cid, status_code=exc.status, back=back, place_error=refusal(request, session, exc))
    message = N_("Place %(name)s added.") if pid is None else N_("Place %(name)s saved.")
    return flash.redirect(request, safe_next(back, f"/campaigns/{cid}/places"), message, name=place.name)


@router.post("/campaigns/{cid}/places")
def add_place(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    return _save_place(request, session, user, cid, form, PlaceIn, save=lambda model: service.create_place(
        session, actor=user, campaign_id=cid, data=model.model_dump()))


@router.post("/campaigns/{cid}/places/{pid}")
def edit_place(cid: PathId, pid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    return _save_place(request, session, user, cid, form, PlacePatch, pid=pid, save=lambda model: service.update_place(
        session, actor=user, campaign_id=cid, place_id=pid, changes=model.model_dump(exclude_unset=True)))


@router.post("/campaigns/{cid}/places/{pid}/delete")
def delete_place(cid: PathId, pid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    back = typed(form, "next").get("next", "")
    name = next((p.name for p in service.places(session, cid) if p.id == pid), "")
    try:
        service.delete_place(session, actor=user, campaign_id=cid, place_id=pid)
    except DomainError as exc:
        return _places_page(request, session, user, cid, status_code=exc.status, back=back, place_error=refusal(request, session, exc))
    return flash.redirect(request, safe_next(back, f"/campaigns/{cid}/places"), N_("Place %(name)s removed."), name=name)

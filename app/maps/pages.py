"""Places tab and the GM's place list editor (wizard step 3)."""
from __future__ import annotations

from fastapi import APIRouter, Query, Request

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import service as campaigns
from app.campaigns.wizard import wizard_context
from app.core.errors import DomainError
from app.core.forms import Form, blank_to_none, refusal, safe_next, see_other, validate
from app.core.templating import render
from app.maps import service
from app.maps.schemas import PlaceIn, PlacePatch
from app.visibility import require_gm, viewer_for

router = APIRouter()


def _place_form(form) -> dict:
    data = blank_to_none({k: form.get(k) for k in ("name", "description", "income", "x", "y", "parent_id")})
    data["hideout_slot"] = form.get("hideout_slot") == "on"
    data["entry"] = form.get("entry") == "on"
    if "has_map_form" in form:
        data["has_map"] = form.get("has_map") == "on"
    data["description"] = data.get("description") or ""
    return {k: v for k, v in data.items() if v is not None or k == "parent_id"}


def editor_context(session, cid: int) -> dict:
    rows, new_parent_options = service.editor_rows(service.places(session, cid))
    return {"place_rows": rows, "new_parent_options": new_parent_options, "places": [p for p, _d in rows]}


def _places_page(request, session, user, cid, status_code=200, **extra):
    viewer = viewer_for(session, user, cid)
    editor = editor_context(session, cid)
    back = safe_next(extra.pop("back", None), f"/campaigns/{cid}/places")
    if back.startswith(f"/campaigns/{cid}/map"):
        from urllib.parse import parse_qs, urlsplit

        from app.maps.map_pages import _map_page

        of = parse_qs(urlsplit(back).query).get("of", [None])[0]
        message = extra.get("place_error")
        return _map_page(request, session, user, cid, int(of) if of and of.isdigit() else None,
                         status_code=status_code, map_error=message)
    if back.startswith(f"/campaigns/{cid}/setup/"):
        return render(
            request, "campaigns/wizard.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
            **wizard_context(viewer.campaign, 3), **editor, form={}, errors={}, **extra,
        )
    owners = {p.player_id: p.nickname for p in campaigns.players(session, cid)}
    return render(
        request, "maps/places.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
        **editor, owners=owners, hideout_ids=service.hideout_place_ids(session, cid), tab="places", **extra,
    )


@router.get("/campaigns/{cid}/places")
def places(cid: int, request: Request, user: PageLogin, session: SessionDep):
    return _places_page(request, session, user, cid)


@router.get("/campaigns/{cid}/places/{pid}/edit")
def edit_place_form(
    cid: int, pid: int, request: Request, user: PageLogin, session: SessionDep, next_url: str = Query("", alias="next")
):
    viewer = viewer_for(session, user, cid)
    require_gm(viewer)
    places_ = service.places(session, cid)
    place = next((p for p in places_ if p.id == pid), None)
    if place is None:
        raise DomainError("not_found")
    template = "maps/_place_form.html" if request.headers.get("hx-request") else "maps/place_edit.html"
    return render(
        request, template, viewer=viewer, campaign=viewer.campaign, place=place, tab="places",
        parent_options=service.parent_choices(places_, pid), can_have_map=service.can_have_map(places_, pid), back=safe_next(next_url, f"/campaigns/{cid}/places"),
    )


def _save_place(request, session, user, cid, form, schema, save, *, new: bool):
    """Validate the place form with the API's schema, save it, and go back where it came
    from; a refusal is shown in place (field errors reopen the add form only for a new place)."""
    back = str(form.get("next", ""))
    model, errors = validate(request, schema, _place_form(form))
    if errors:
        extra = {"place_errors": errors} if new else {}
        return _places_page(request, session, user, cid, status_code=422, back=back, place_error=next(iter(errors.values())), **extra)
    try:
        save(model)
    except DomainError as exc:
        return _places_page(request, session, user, cid, status_code=exc.status, back=back, place_error=refusal(request, session, exc))
    return see_other(safe_next(back, f"/campaigns/{cid}/places"))


@router.post("/campaigns/{cid}/places")
def add_place(cid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    return _save_place(request, session, user, cid, form, PlaceIn, new=True, save=lambda model: service.create_place(
        session, actor=user, campaign_id=cid, data=model.model_dump()))


@router.post("/campaigns/{cid}/places/{pid}")
def edit_place(cid: int, pid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    return _save_place(request, session, user, cid, form, PlacePatch, new=False, save=lambda model: service.update_place(
        session, actor=user, campaign_id=cid, place_id=pid, changes=model.model_dump(exclude_unset=True)))


@router.post("/campaigns/{cid}/places/{pid}/delete")
def delete_place(cid: int, pid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    back = str(form.get("next", ""))
    try:
        service.delete_place(session, actor=user, campaign_id=cid, place_id=pid)
    except DomainError as exc:
        return _places_page(request, session, user, cid, status_code=exc.status, back=back, place_error=refusal(request, session, exc))
    return see_other(safe_next(back, f"/campaigns/{cid}/places"))

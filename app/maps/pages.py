"""Places tab and the GM's place list editor (wizard step 3)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Query

from app.campaigns import service as campaigns
from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.service import gm_campaign
from app.campaigns.wizard import wizard_context
from app.core.errors import N_, DomainError, detail_messages, message_for
from app.core.forms import blank_to_none, safe_next, typed, validate
from app.core.page_actions import page_action
from app.core.templating import render
from app.core.types import PathId
from app.maps import paste, service
from app.maps.map_pages import show_map
from app.maps.schemas import BulkForm, BulkPlaceIn, MapForm, PlaceIn, PlacePatch

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


def _places_page(page: CampaignContext, status_code=200, **extra):
    """The Places tab, or the page the editor's form was on (`back`: the map, the wizard)."""
    request, session, cid = page.request, page.session, page.cid
    viewer = page.viewer
    editor = editor_context(session, cid)
    back = safe_next(extra.pop("back", None), f"/campaigns/{cid}/places")
    if back.startswith(f"/campaigns/{cid}/map"):
        shown, _errors = validate(request, MapForm, blank_to_none({"of": parse_qs(urlsplit(back).query).get("of", [None])[0]}))
        message = extra.pop("place_error", None)
        return show_map(page, shown.of if shown else None, status_code=status_code, map_error=message, **extra)
    if back.startswith(f"/campaigns/{cid}/setup/"):
        return render(
            request,
            "campaigns/wizard.html",
            status_code=status_code,
            viewer=viewer,
            campaign=viewer.campaign,
            **wizard_context(viewer.campaign, 3),
            **editor,
            # The Map step's glance and warning, as the wizard draws them (campaigns/pages.py).
            tally=service.tally(editor["places"], session, cid),
            pathless=[p.name for p in service.places_without_paths(session, viewer, editor["places"])],
            form={},
            errors={},
            editor_back=back,
            **extra,
        )
    owners = campaigns.nicknames(session, cid)
    return render(
        request,
        "maps/places.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        **editor,
        owners=owners,
        hideout_ids=service.hideout_place_ids(session, cid),
        tab="places",
        **extra,
    )


@router.get("/campaigns/{cid}/places")
def places(page: CampaignPage):
    return _places_page(page)


@router.get("/campaigns/{cid}/places/{pid}/edit")
def edit_place_form(pid: PathId, page: CampaignPage, next_url: str = Query("", alias="next")):
    cid = page.cid
    viewer = gm_campaign(page.session, actor=page.user, campaign_id=cid)
    places_ = service.places(page.session, cid)
    place = next((p for p in places_ if p.id == pid), None)
    if place is None:
        raise DomainError("not_found")
    template = "maps/_place_form.html" if page.request.headers.get("hx-request") else "maps/place_edit.html"
    return render(
        page.request,
        template,
        viewer=viewer,
        campaign=viewer.campaign,
        place=place,
        tab="places",
        parent_options=service.parent_choices(places_, pid),
        can_have_map=service.can_have_map(places_, pid),
        back=safe_next(next_url, f"/campaigns/{cid}/places"),
    )


# Each field's label, so that every problem is shown at once next to its field, named.
LABELS = {
    "name": N_("Name"),
    "description": N_("Description"),
    "income": N_("Income per round"),
    "x": N_("Position x (%%)"),
    "y": N_("Position y (%%)"),
    "parent_id": N_("Lies inside"),
    "lines": N_("Places, one a line"),
    "of": N_("Map"),
}


def _field_problems(page: CampaignContext, pid: PathId | None, errors: dict[str, str]):
    """The form again with what was typed and every problem next to its field: the add
    form for a new place, the place's own edit page for an edit. From the map, the
    problems are listed together above it (the map's sheet is an htmx partial)."""
    session, cid, form = page.session, page.cid, page.form
    gm_campaign(session, actor=page.user, campaign_id=cid)
    shown = typed(form, "name", "description", "income", "x", "y", "parent_id", "next")
    back = safe_next(shown.get("next"), f"/campaigns/{cid}/places")
    shown.update(
        hideout_slot=form.get("hideout_slot") == "on", entry=form.get("entry") == "on", has_map=form.get("has_map") == "on"
    )
    if back.startswith(f"/campaigns/{cid}/map"):
        return _places_page(page, status_code=422, back=back, place_error=" ".join(errors.values()))
    if pid is None:
        return _places_page(page, status_code=422, back=back, place_errors=errors, place_form=shown)
    viewer = page.viewer
    places_ = service.places(session, cid)
    place = next((p for p in places_ if p.id == pid), None)
    if place is None:
        raise DomainError("not_found")
    shown.update(id=pid)
    return render(
        page.request,
        "maps/place_edit.html",
        status_code=422,
        viewer=viewer,
        campaign=viewer.campaign,
        place=place,
        place_form=shown,
        place_errors=errors,
        tab="places",
        parent_options=service.parent_choices(places_, pid),
        can_have_map=service.can_have_map(places_, pid),
        back=back,
    )


def _refused(page: CampaignContext, back: str):
    """A refused place form or button: the reason above the page the form was on."""
    return lambda status_code, error: _places_page(page, status_code=status_code, back=back, place_error=error)


def _save_place(page: CampaignContext, schema, save, *, pid: PathId | None = None):
    """Validate the place form with the API's schema, save it, and go back where it came
    from with a flash message; a refusal is shown in place."""
    back = typed(page.form, "next").get("next", "")
    model, errors = validate(page.request, schema, _place_form(page.form), LABELS)
    if errors:
        return _field_problems(page, pid, errors)
    message = N_("Place %(name)s added.") if pid is None else N_("Place %(name)s saved.")
    return page_action(
        page,
        lambda: save(model),
        again=_refused(page, back),
        done=lambda place: page.redirect(safe_next(back, f"/campaigns/{page.cid}/places"), message, name=place.name),
    )


@router.post("/campaigns/{cid}/places")
def add_place(page: CampaignPage):
    return _save_place(
        page,
        PlaceIn,
        save=lambda model: service.create_place(page.session, actor=page.user, campaign_id=page.cid, data=model.model_dump()),
    )


def _line_problems(page: CampaignContext, lines: list[paste.Line], of: int | None) -> tuple[list[dict], list[str]]:
    """The pasted lines as the bulk route's items, each checked by its schema, and every
    problem as "line 3: …"."""
    gettext, items, problems = page.gettext, [], []
    for line in lines:
        said = [message_for("place_line_part", {"part": part}, gettext) for part in line.unknown]
        model, errors = validate(page.request, BulkPlaceIn, {**line.place, "parent_id": of}, LABELS)
        said += list(errors.values())
        problems += [gettext(N_("line %(n)s: %(problem)s")) % {"n": line.number, "problem": p} for p in said]
        if model is not None:
            items.append(model.model_dump())
    return items, problems


CROWDED_SHOWN = 8  # names of crowded places a flash names


@router.post("/campaigns/{cid}/places/bulk")
def add_places(page: CampaignPage):
    """R12.14: the pasted list, all or nothing; a refusal lists each line's problem and keeps
    the text, on the page the form was on (the map, the wizard, the Places tab)."""
    posted = typed(page.form, "lines", "of", "next")
    back = safe_next(posted.get("next"), f"/campaigns/{page.cid}/places")
    text = posted.get("lines") or ""
    form, errors = validate(page.request, BulkForm, {**blank_to_none({"of": posted.get("of")}), "lines": text}, LABELS)

    def refused(status_code: int, summary: str, problems: list[str]):
        return _places_page(page, status_code=status_code, back=back, place_error=summary, bulk_errors=problems, bulk_text=text)

    if form is None:
        return refused(422, " ".join(errors.values()), [])
    lines = paste.parse(form.lines or "")
    items, problems = _line_problems(page, lines, form.of)
    if problems:
        return refused(422, page.refusal(DomainError("places_refused")), problems)
    try:
        made = service.create_places(page.session, actor=page.user, campaign_id=page.cid, items=items)
    except DomainError as exc:
        summary = page.refusal(exc)
        said = detail_messages(exc.details, page.gettext)
        number = page.gettext(N_("line %(n)s: %(problem)s"))
        return refused(exc.status, summary, [number % {"n": lines[d["item"]].number, "problem": d["message"]} for d in said])
    if made.crowded:  # R12.14: the map was full; say which to move (the flash is a cookie: a few names)
        shown = ", ".join(made.crowded[:CROWDED_SHOWN]) + (", …" if len(made.crowded) > CROWDED_SHOWN else "")
        return page.redirect(
            back,
            N_("Places added: %(count)s. The map had no room to keep %(crowded)s apart from the others: move them."),
            count=len(made.places),
            crowded=shown,
        )
    return page.redirect(back, N_("Places added: %(count)s."), count=len(made.places))


@router.post("/campaigns/{cid}/places/{pid}")
def edit_place(pid: PathId, page: CampaignPage):
    return _save_place(
        page,
        PlacePatch,
        pid=pid,
        save=lambda model: service.update_place(
            page.session, actor=page.user, campaign_id=page.cid, place_id=pid, changes=model.model_dump(exclude_unset=True)
        ),
    )


@router.post("/campaigns/{cid}/places/{pid}/delete")
def delete_place(pid: PathId, page: CampaignPage):
    back = typed(page.form, "next").get("next", "")
    name = next((p.name for p in service.places(page.session, page.cid) if p.id == pid), "")
    return page_action(
        page,
        lambda: service.delete_place(page.session, actor=page.user, campaign_id=page.cid, place_id=pid),
        again=_refused(page, back),
        done=lambda _none: page.redirect(
            safe_next(back, f"/campaigns/{page.cid}/places"), N_("Place %(name)s removed."), name=name
        ),
    )

"""Campaign pages: wizard, dashboard with the GM's controls, players, Rules."""
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse

from app.core.types import PathId
from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import house_rules, rules, service, terms
from app.campaigns.schemas import CampaignCreate, CampaignPatch, HideoutIn, InviteForm, StatusIn
from app.campaigns.wizard import FIELD_LABELS, FORM_FIELD, REFUSAL_FIELD, STEP_FIELDS, STEP_TITLES, read_step, wizard_context
from app.campaigns.models import Campaign
from app.core import flash
from app.core.errors import N_, DomainError, Msg
from app.core.forms import Form, confirm_page, confirmed, field_refusal, refusal, typed, unplaced, validate
from app.core.i18n import translations
from app.core.images import store_image
from app.core.templating import add_context_hook, add_globals, render, request_gettext
from app.maps import service as maps
from app.maps.pages import editor_context as place_editor
from app.visibility import Viewer

add_globals(PHASES=rules.PHASES, PHASE_NAMES=rules.PHASE_NAMES, STATUS_NAMES=rules.STATUS_NAMES,
            ADVICE_TEXTS=rules.ADVICE_TEXTS, MODULE_NAMES=terms.MODULE_NAMES)
add_context_hook(terms.template_words)

router = APIRouter()
LABELS = {"status": N_("Status"), "place_id": N_("Place"), "nickname": N_("Nickname")}


def _media_dir(request: Request):
    return request.app.state.settings.var_dir / "media"


async def _cover(form: Form) -> bytes | None:
    upload = form.get("cover")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return None
    return await upload.read()


Cover = Annotated[bytes | None, Depends(_cover)]


def _save_cover(request: Request, campaign, data: bytes | None) -> None:
    if data is not None:
        campaign.cover_image = store_image(data, _media_dir(request)).web


@router.get("/media/{name}")
def media(name: str, request: Request):
    path = _media_dir(request) / name
    if "/" in name or name.startswith(".") or not path.is_file():
        raise DomainError("not_found")
    return FileResponse(path, headers={"Cache-Control": "public, max-age=31536000, immutable"})


# --- wizard (R1.1) -----------------------------------------------------------------


@router.get("/campaigns/new")
def new_campaign(request: Request, user: PageLogin):
    return render(request, "campaigns/wizard.html", **wizard_context(None, 1), form={}, errors={})


@router.post("/campaigns/new")
def create_campaign(request: Request, user: PageLogin, session: SessionDep, form: Form, cover: Cover):
    data, model, errors = read_step(request, 1, form, CampaignCreate)
    if errors:
        return render(request, "campaigns/wizard.html", status_code=422, **wizard_context(None, 1), form=data, errors=errors)
    try:
        campaign = service.create_campaign(session, actor=user, data=model.model_dump(exclude_unset=True))
        _save_cover(request, campaign, cover)
        campaign.wizard_step = 2
    except DomainError as exc:
        errors = {"cover": field_refusal(request, session, exc, FIELD_LABELS["cover"])}
        return render(request, "campaigns/wizard.html", status_code=exc.status, **wizard_context(None, 1), form=data, errors=errors)
    return flash.redirect(request, f"/campaigns/{campaign.id}/setup/2", N_("Campaign %(name)s created."), name=campaign.name)


def _wizard_page(request, session, viewer: Viewer, step: PathId, status_code=200, **extra):
    ctx = wizard_context(viewer.campaign, step)
    if step == 3:
        ctx.update(place_editor(session, viewer.campaign.id))
        ctx["pathless"] = [p.name for p in maps.places_without_paths(session, viewer, ctx["places"])]
    if step == 6:
        ctx["term_names"] = terms.term_names(translations(getattr(request.state, "locale", "en")))
    return render(request, "campaigns/wizard.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign, **ctx, **extra)


@router.get("/campaigns/{cid}/setup/{step}")
def wizard_step(cid: PathId, step: PathId, request: Request, user: PageLogin, session: SessionDep):
    viewer = service.gm_campaign(session, actor=user, campaign_id=cid)
    if step not in STEP_FIELDS:
        raise DomainError("wizard_step_invalid")
    return _wizard_page(request, session, viewer, step, form={}, errors={})


@router.post("/campaigns/{cid}/setup/{step}")
def wizard_save(cid: PathId, step: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form, cover: Cover):
    if step not in STEP_FIELDS:
        raise DomainError("wizard_step_invalid")
    service.gm_campaign(session, actor=user, campaign_id=cid)
    data, model, errors = read_step(request, step, form, CampaignPatch)
    viewer = service.campaign_of(session, actor=user, campaign_id=cid)
    if errors:
        return _wizard_page(request, session, viewer, step, status_code=422, form=data, errors=errors)
    try:
        campaign = service.update_settings(
            session, actor=user, campaign_id=cid, changes=model.model_dump(exclude_unset=True), wizard_step=step
        )
        _save_cover(request, campaign, cover)
    except DomainError as exc:
        if exc.code.startswith("image_"):
            errors, message = {"cover": field_refusal(request, session, exc, FIELD_LABELS["cover"])}, None
        elif exc.code in REFUSAL_FIELD:
            setting = REFUSAL_FIELD[exc.code]
            errors, message = {FORM_FIELD[setting]: field_refusal(request, session, exc, FIELD_LABELS[setting])}, None
        else:
            errors, message = {}, refusal(request, session, exc)
        viewer = service.campaign_of(session, actor=user, campaign_id=cid)
        return _wizard_page(request, session, viewer, step, status_code=exc.status, form=data, errors=errors, error=message)
    if form.get("back") and step > 1:
        target = f"/campaigns/{cid}/setup/{step - 1}"
    elif step >= rules.WIZARD_STEPS:
        target = f"/campaigns/{cid}"
    else:
        target = f"/campaigns/{cid}/setup/{step + 1}"
    return flash.redirect(request, target, N_("Saved: %(title)s."), title=Msg(STEP_TITLES[step]))


# --- dashboard and the GM's controls (R1.5, R1.6, R2.1-R2.3) -----------------------


# Higher layers add to the dashboard's "What to do now" without campaigns importing them
# (the round's flow adds battles to report, settlements, ransoms, Twilight): each panel,
# given the session and the viewer, returns (template, context) or None.
DASHBOARD_PANELS: list = []


def add_dashboard_panel(panel) -> None:
    if panel not in DASHBOARD_PANELS:
        DASHBOARD_PANELS.append(panel)


def _dashboard(request, session, user, cid: PathId, status_code: int = 200, error: str | None = None):
    viewer = service.campaign_of(session, actor=user, campaign_id=cid, invitee_ok=True)
    campaign = viewer.campaign
    players = service.players(session, cid)
    places = maps.places(session, cid)
    flagged = [p for p in places if p.hideout_slot]
    free = [p for p in flagged if p.owner_player_id is None]
    mine = next((p for p in players if viewer.player and p.player_id == viewer.player.id), None)
    todo = rules.advice(
        status=campaign.status, phase=campaign.phase, is_gm=viewer.is_gm, setup_complete=campaign.setup_complete,
        wizard_step=campaign.wizard_step, players=len(players), flagged_places=len(flagged),
        has_hideout=bool(mine and mine.hideouts), all_have_hideouts=all(p.hideouts for p in players),
        pathless=tuple(p.name for p in maps.places_without_paths(session, viewer, places)),
        is_player=viewer.player is not None,
    )
    panels = [found for found in (panel(session, viewer) for panel in DASHBOARD_PANELS) if found]
    return render(
        request, "campaigns/dashboard.html", status_code=status_code, viewer=viewer, campaign=campaign, panels=panels,
        players=players, places={p.id: p for p in places}, free_places=free, todo=todo, mine=mine, error=error,
        next_phase=rules.next_phase(campaign.phase) if campaign.phase else None, tab="overview",
    )


@router.get("/campaigns/{cid}")
def dashboard(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    return _dashboard(request, session, user, cid)


# One-way steps ask first (a dialog with JavaScript, a confirm page without): the question,
# what it means, and the button. The dashboard's buttons carry the same texts.
CONFIRM_HIDEOUTS = (N_("Open hideout selection?"),
                    N_("The roster closes: no more invitations, and players choose their hideouts. This cannot be undone."),
                    N_("Open hideout selection"))
CONFIRM_FINISH = (N_("Finish the campaign?"), N_("A finished campaign becomes read-only. This cannot be undone."),
                  N_("Finish the campaign"))


def _gm_action(request, session, user, cid, form, action, done, ask=None):
    """Run a dashboard action. `ask` (question, detail, button) makes it a one-way step:
    without confirm=1 it is only rehearsed, rolled back, and the confirm page asks.
    `done(result)` is the redirect with its flash message."""
    try:
        result = action()
    except DomainError as exc:
        return _dashboard(request, session, user, cid, status_code=exc.status, error=refusal(request, session, exc))
    if ask is not None and not confirmed(form):
        gettext = request_gettext(request)
        question, detail, button, params = *ask[:3], (ask[3] if len(ask) > 3 else {})
        viewer = service.campaign_of(session, actor=user, campaign_id=cid)
        return confirm_page(request, session, form, question=gettext(question) % params, detail=gettext(detail) % params,
                            button=gettext(button) % params, action=str(request.url.path), cancel=f"/campaigns/{cid}",
                            danger=question == CONFIRM_FINISH[0], viewer=viewer, campaign=viewer.campaign, tab="overview")
    return done(result)


STATUS_DONE = {
    "hideouts": N_("Hideout selection is open; the roster is closed."),
    "running": N_("The campaign has started: round %(n)s, %(phase)s."),
    "finished": N_("The campaign is finished."),
}


@router.post("/campaigns/{cid}/status")
def set_status(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    body, errors = validate(request, StatusIn, typed(form, "status"), LABELS)
    if errors:  # the dashboard's buttons: said above it
        return _dashboard(request, session, user, cid, status_code=422, error=unplaced(errors))
    target = body.status
    ask = {"hideouts": CONFIRM_HIDEOUTS, "finished": CONFIRM_FINISH}.get(target)

    def done(campaign):
        params = {"n": campaign.round, "phase": Msg(rules.PHASE_NAMES[campaign.phase])} if campaign.phase else {}
        return flash.redirect(request, f"/campaigns/{cid}", STATUS_DONE[campaign.status], **params)

    return _gm_action(request, session, user, cid, form,
                      lambda: service.set_status(session, actor=user, campaign_id=cid, target=target), done, ask)


# POST /campaigns/{cid}/phase and /end-round: the round's flow, in app/rounds/pages.py.


@router.post("/campaigns/{cid}/hideouts")
def claim_hideout(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    body, errors = validate(request, HideoutIn, typed(form, "place_id"), LABELS)
    if errors:  # a Claim button per free place: said above the dashboard
        return _dashboard(request, session, user, cid, status_code=422, error=unplaced(errors))
    place_id = body.place_id

    def done(_hideout):
        name = next((p.name for p in maps.places(session, cid) if p.id == place_id), "")
        return flash.redirect(request, f"/campaigns/{cid}", N_("Your hideout is at %(place)s."), place=name)

    return _gm_action(request, session, user, cid, form,
                      lambda: service.claim_hideout(session, actor=user, campaign_id=cid, place_id=place_id), done)


@router.post("/campaigns/{cid}/invitation/{decision}")
def decide_invitation(cid: PathId, decision: str, request: Request, user: PageLogin, session: SessionDep):
    try:
        if decision == "accept":
            service.accept_invitation(session, actor=user, campaign_id=cid)
        elif decision == "decline":
            service.decline_invitation(session, actor=user, campaign_id=cid)
        else:
            raise DomainError("not_found")
    except DomainError as exc:
        message = refusal(request, session, exc)
        return render(request, "error.html", status_code=exc.status, message=message, status=exc.status)
    campaign = session.get(Campaign, cid)
    if decision == "accept":
        return flash.redirect(request, f"/campaigns/{cid}", N_("You joined %(campaign)s."), campaign=campaign.name)
    return flash.redirect(request, "/", N_("You declined the invitation to %(campaign)s."), campaign=campaign.name)


# --- players and invitations (R1.4) ------------------------------------------------


def _players_page(request, session, user, cid, status_code=200, **extra):
    viewer = service.campaign_of(session, actor=user, campaign_id=cid)
    return render(
        request, "campaigns/players.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
        players=service.players(session, cid), places={p.id: p for p in maps.places(session, cid)},
        invitations=service.invitations_seen_by(session, viewer), tab="players", **extra,
    )


@router.get("/campaigns/{cid}/players")
def players(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    return _players_page(request, session, user, cid)


@router.post("/campaigns/{cid}/invitations")
def invite(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    data = typed(form, "nickname")
    body, errors = validate(request, InviteForm, data, LABELS)
    if errors:
        return _players_page(request, session, user, cid, status_code=422, errors=errors, nickname=data.get("nickname", ""))
    nickname = body.nickname
    try:
        service.invite(session, actor=user, campaign_id=cid, nickname=nickname)
    except DomainError as exc:
        message = field_refusal(request, session, exc, LABELS["nickname"])
        return _players_page(request, session, user, cid, status_code=exc.status, errors={"nickname": message}, nickname=nickname)
    return flash.redirect(request, f"/campaigns/{cid}/players", N_("%(nickname)s is invited."), nickname=nickname)


# --- Rules tab (R9.1) ----------------------------------------------------------------


# Sections of the Rules tab added by higher domains (the battle clock): (session, viewer) ->
# (template, context).
RULES_SECTIONS: list = []


def add_rules_section(section) -> None:
    if section not in RULES_SECTIONS:
        RULES_SECTIONS.append(section)


def rules_page(request, session, user, cid: int, status_code: int = 200, error: str | None = None):
    viewer = service.campaign_of(session, actor=user, campaign_id=cid)
    house = house_rules.of(viewer.campaign.settlement_rules)
    sections = [section(session, viewer) for section in RULES_SECTIONS]
    return render(request, "campaigns/rules.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign, tab="rules",
                  house=house, casualty_rows=house_rules.table_text(house["casualty_table"]), RESULT_NAMES=house_rules.RESULT_NAMES,
                  XP_NAMES=house_rules.XP_NAMES, sections=sections, error=error)


@router.get("/campaigns/{cid}/rules")
def rules_tab(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    return rules_page(request, session, user, cid)

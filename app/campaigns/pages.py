"""Campaign pages: wizard, dashboard with the GM's controls, players, Rules."""
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import rules, service
from app.campaigns.schemas import CampaignCreate, CampaignPatch
from app.catalog.deps import CatalogDep
from app.campaigns.wizard import STEP_FIELDS, form_changes, wizard_context
from app.core.errors import DomainError
from app.core.forms import Form, int_field, refusal, see_other, validate
from app.core.images import store_image
from app.core.templating import render
from app.maps import service as maps
from app.maps.pages import editor_context as place_editor
from app.visibility import Viewer, require_gm, viewer_for

router = APIRouter()


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
    data = form_changes(1, form)
    model, errors = validate(request, CampaignCreate, data)
    if errors:
        return render(request, "campaigns/wizard.html", status_code=422, **wizard_context(None, 1), form=data, errors=errors)
    try:
        campaign = service.create_campaign(session, actor=user, data=model.model_dump(exclude_unset=True))
        _save_cover(request, campaign, cover)
        campaign.wizard_step = 2
    except DomainError as exc:
        errors = {"cover": refusal(request, session, exc)}
        return render(request, "campaigns/wizard.html", status_code=exc.status, **wizard_context(None, 1), form=data, errors=errors)
    return see_other(f"/campaigns/{campaign.id}/setup/2")


def _wizard_page(request, session, viewer: Viewer, step: int, status_code=200, **extra):
    ctx = wizard_context(viewer.campaign, step)
    if step == 3:
        ctx.update(place_editor(session, viewer.campaign.id))
    return render(request, "campaigns/wizard.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign, **ctx, **extra)


@router.get("/campaigns/{cid}/setup/{step}")
def wizard_step(cid: int, step: int, request: Request, user: PageLogin, session: SessionDep):
    viewer = viewer_for(session, user, cid)
    require_gm(viewer)
    if step not in STEP_FIELDS:
        raise DomainError("wizard_step_invalid")
    return _wizard_page(request, session, viewer, step, form={}, errors={})


@router.post("/campaigns/{cid}/setup/{step}")
def wizard_save(cid: int, step: int, request: Request, user: PageLogin, session: SessionDep, form: Form, cover: Cover):
    if step not in STEP_FIELDS:
        raise DomainError("wizard_step_invalid")
    require_gm(viewer_for(session, user, cid))
    data = form_changes(step, form)
    model, errors = validate(request, CampaignPatch, data)
    viewer = viewer_for(session, user, cid)
    if errors:
        return _wizard_page(request, session, viewer, step, status_code=422, form=data, errors=errors)
    try:
        campaign = service.update_settings(
            session, actor=user, campaign_id=cid, changes=model.model_dump(exclude_unset=True), wizard_step=step
        )
        _save_cover(request, campaign, cover)
    except DomainError as exc:
        message = refusal(request, session, exc)
        viewer = viewer_for(session, user, cid)
        return _wizard_page(request, session, viewer, step, status_code=exc.status, form=data, errors={}, error=message)
    if form.get("back") and step > 1:
        return see_other(f"/campaigns/{cid}/setup/{step - 1}")
    if step >= rules.WIZARD_STEPS:
        return see_other(f"/campaigns/{cid}")
    return see_other(f"/campaigns/{cid}/setup/{step + 1}")


# --- dashboard and the GM's controls (R1.5, R1.6, R2.1-R2.3) -----------------------


def _dashboard(request, session, user, cid: int, status_code: int = 200, error: str | None = None):
    viewer = viewer_for(session, user, cid, invitee_ok=True)
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
    )
    battle_todo = []
    if campaign.status == "running" and campaign.phase in ("battles", "settlement", "twilight"):
        from app.battles import service as battles

        battle_todo = battles.waiting_for(battles.battles_of(session, campaign), viewer.player.id if viewer.player else None, viewer.is_gm)
    return render(
        request, "campaigns/dashboard.html", status_code=status_code, viewer=viewer, campaign=campaign, battle_todo=battle_todo,
        players=players, places={p.id: p for p in places}, free_places=free, todo=todo, mine=mine, error=error,
        next_phase=rules.next_phase(campaign.phase) if campaign.phase else None, tab="overview",
    )


@router.get("/campaigns/{cid}")
def dashboard(cid: int, request: Request, user: PageLogin, session: SessionDep):
    return _dashboard(request, session, user, cid)


def _gm_action(request, session, user, cid, action):
    try:
        action()
    except DomainError as exc:
        return _dashboard(request, session, user, cid, status_code=exc.status, error=refusal(request, session, exc))
    return see_other(f"/campaigns/{cid}")


@router.post("/campaigns/{cid}/status")
def set_status(cid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    target = str(form.get("status", ""))
    return _gm_action(request, session, user, cid, lambda: service.set_status(session, actor=user, campaign_id=cid, target=target))


@router.post("/campaigns/{cid}/phase")
def set_phase(cid: int, request: Request, user: PageLogin, session: SessionDep, form: Form, catalog: CatalogDep):
    phase = str(form.get("phase", ""))
    return _gm_action(request, session, user, cid,
                      lambda: service.set_phase(session, actor=user, campaign_id=cid, phase=phase, catalog=catalog))


@router.post("/campaigns/{cid}/end-round")
def end_round(cid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    round_ = int_field(form.get("round"), -1)
    return _gm_action(request, session, user, cid, lambda: service.end_round(session, actor=user, campaign_id=cid, round_=round_))


@router.post("/campaigns/{cid}/hideouts")
def claim_hideout(cid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    place_id = int_field(form.get("place_id"), -1)
    return _gm_action(request, session, user, cid, lambda: service.claim_hideout(session, actor=user, campaign_id=cid, place_id=place_id))


@router.post("/campaigns/{cid}/invitation/{decision}")
def decide_invitation(cid: int, decision: str, request: Request, user: PageLogin, session: SessionDep):
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
    return see_other(f"/campaigns/{cid}" if decision == "accept" else "/")


# --- players and invitations (R1.4) ------------------------------------------------


def _players_page(request, session, user, cid, status_code=200, **extra):
    viewer = viewer_for(session, user, cid)
    return render(
        request, "campaigns/players.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
        players=service.players(session, cid), places={p.id: p for p in maps.places(session, cid)},
        invitations=service.invitations(session, cid) if viewer.is_gm else [], tab="players", **extra,
    )


@router.get("/campaigns/{cid}/players")
def players(cid: int, request: Request, user: PageLogin, session: SessionDep):
    return _players_page(request, session, user, cid)


@router.post("/campaigns/{cid}/invitations")
def invite(cid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    nickname = str(form.get("nickname", "")).strip()
    try:
        if not nickname:
            raise DomainError("field_required")
        service.invite(session, actor=user, campaign_id=cid, nickname=nickname)
    except DomainError as exc:
        message = refusal(request, session, exc)
        return _players_page(request, session, user, cid, status_code=exc.status, invite_error=message, nickname=nickname)
    return _players_page(request, session, user, cid, invited=nickname)


# --- Rules tab (R9.1) ----------------------------------------------------------------


@router.get("/campaigns/{cid}/rules")
def rules_tab(cid: int, request: Request, user: PageLogin, session: SessionDep):
    viewer = viewer_for(session, user, cid)
    return render(request, "campaigns/rules.html", viewer=viewer, campaign=viewer.campaign, tab="rules")

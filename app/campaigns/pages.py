"""Campaign pages: wizard, dashboard with the GM's controls, players, Rules."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import house_rules, lifecycle, rules, service, terms
from app.campaigns.covers import Cover, cover_step, media_dir
from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.models import Campaign
from app.campaigns.schemas import CampaignCreate, CampaignPatch, HideoutIn, InviteForm, StatusIn
from app.campaigns.wizard import FIELD_LABELS, FORM_FIELD, REFUSAL_FIELD, STEP_FIELDS, STEP_TITLES, read_step, wizard_context
from app.core import flash
from app.core.errors import N_, DomainError, Msg
from app.core.forms import Form, refusal, typed, unplaced, validate
from app.core.i18n import translations
from app.core.page_actions import Ask, PageContext, page_action
from app.core.ports import Port
from app.core.templating import add_globals, render
from app.core.types import PathId
from app.maps import reading as map_reading
from app.maps import service as maps
from app.maps.pages import editor_context as place_editor
from app.people import service as people
from app.visibility import Viewer

add_globals(
    PHASES=rules.PHASES,
    PHASE_NAMES=rules.PHASE_NAMES,
    STATUS_NAMES=rules.STATUS_NAMES,
    ADVICE_TEXTS=rules.ADVICE_TEXTS,
    MODULE_NAMES=terms.MODULE_NAMES,
)

router = APIRouter()
LABELS = {"status": N_("Status"), "place_id": N_("Place"), "nickname": N_("Nickname")}


@router.get("/media/{name}")
def media(name: str, request: Request):
    path = media_dir(request) / name
    if "/" in name or name.startswith(".") or not path.is_file():
        raise DomainError("not_found")
    return FileResponse(path, headers={"Cache-Control": "public, max-age=31536000, immutable"})


# --- wizard (R1.1) -----------------------------------------------------------------


@router.get("/campaigns/new")
def new_campaign(request: Request, user: PageLogin):
    return render(request, "campaigns/wizard.html", **wizard_context(None, 1), form={}, errors={})


@router.post("/campaigns/new")
def create_campaign(request: Request, user: PageLogin, session: SessionDep, form: Form, cover: Cover):
    page = PageContext(request, session, form)
    data, model, errors = read_step(request, 1, form, CampaignCreate)
    kept, errors = cover_step(request, session, form, cover, errors)

    def again(status_code: int, **shown):
        return render(
            request,
            "campaigns/wizard.html",
            status_code=status_code,
            **wizard_context(None, 1),
            form=data,
            kept_cover=kept,
            **shown,
        )

    if errors:
        return again(422, errors=errors)

    def create():
        campaign = service.create_campaign(session, actor=user, data=model.model_dump(exclude_unset=True))
        campaign.cover_image = kept or campaign.cover_image
        campaign.wizard_step = 2
        return campaign

    return page_action(
        page,
        create,
        again=lambda status_code, error: again(status_code, errors={}, error=error),
        done=lambda campaign: page.redirect(
            f"/campaigns/{campaign.id}/setup/2", N_("Campaign %(name)s created."), name=campaign.name
        ),
    )


def _wizard_page(page: PageContext, viewer: Viewer, step: PathId, status_code=200, **extra):
    ctx = wizard_context(viewer.campaign, step)
    if step == 3:
        ctx.update(place_editor(page.session, viewer.campaign.id))
        ctx["pathless"] = [p.name for p in maps.places_without_paths(page.session, viewer, ctx["places"])]
        ctx["tally"] = maps.tally(ctx["places"], page.session, viewer.campaign.id)
    if step == 6:
        ctx["term_names"] = terms.term_names(translations(getattr(page.request.state, "locale", "en")))
    return render(
        page.request, "campaigns/wizard.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign, **ctx, **extra
    )


@router.get("/campaigns/{cid}/setup/{step}")
def wizard_step(step: PathId, page: CampaignPage):
    viewer = service.gm_campaign(page.session, actor=page.user, campaign_id=page.cid)
    if step not in STEP_FIELDS:
        raise DomainError("wizard_step_invalid")
    return _wizard_page(page, viewer, step, form={}, errors={})


# A refusal of one setting is shown next to its field.
SETTING_REFUSALS = {code: (FORM_FIELD[setting], FIELD_LABELS[setting]) for code, setting in REFUSAL_FIELD.items()}


@router.post("/campaigns/{cid}/setup/{step}")
def wizard_save(step: PathId, page: CampaignPage, cover: Cover):
    if step not in STEP_FIELDS:
        raise DomainError("wizard_step_invalid")
    request, session, form, cid = page.request, page.session, page.form, page.cid
    gm = service.gm_campaign(session, actor=page.user, campaign_id=cid)
    data, model, errors = read_step(request, step, form, CampaignPatch, term=terms.term_of(gm.campaign))
    viewer = page.viewer
    kept, errors = cover_step(request, session, form, cover, errors)
    if errors:
        return _wizard_page(page, viewer, step, status_code=422, form=data, errors=errors, kept_cover=kept)

    def save():
        campaign = service.update_settings(
            session, actor=page.user, campaign_id=cid, changes=model.model_dump(exclude_unset=True), wizard_step=step
        )
        campaign.cover_image = kept or campaign.cover_image

    def again(status_code: int, error: str | None = None, errors: dict | None = None):
        viewer = service.campaign_of(session, actor=page.user, campaign_id=cid)
        return _wizard_page(
            page, viewer, step, status_code=status_code, form=data, errors=errors or {}, error=error, kept_cover=kept
        )

    if form.get("back") and step > 1:
        target = f"/campaigns/{cid}/setup/{step - 1}"
    elif step >= rules.WIZARD_STEPS:
        target = f"/campaigns/{cid}"
    else:
        target = f"/campaigns/{cid}/setup/{step + 1}"
    return page_action(
        page,
        save,
        again=again,
        fields=SETTING_REFUSALS,
        done=lambda _none: page.redirect(target, N_("Saved: %(title)s."), title=Msg(STEP_TITLES[step])),
    )


# --- dashboard and the GM's controls (R1.5, R1.6, R2.1-R2.3) -----------------------


# The dashboard's panels from higher layers (guilds, letters, the round's to-do…), each given
# the session and the viewer, returning (template, context) or None: a port, wired in display
# order in app/wiring.py.
dashboard_panels = Port[Callable[..., "tuple[str, dict] | None"]]("dashboard panels")
# What the viewer has done of this step (orders sent, results in, settlements closed, the
# company confirmed): higher domains know it (app/season/reminders.py). "What to do now" is
# worked out from it at render time and never asks for a step already done (issue 29).
advice_facts = Port[Callable[..., frozenset]]("advice facts")


def dashboard_page(page: CampaignContext, status_code: int = 200, error: str | None = None):
    session = page.session
    # A pending invitee sees the dashboard too (its Accept button): not `page.viewer`.
    viewer = page.invitee_viewer()
    campaign = viewer.campaign
    players, places = map_reading.roster_and_places_seen(session, viewer)
    flagged = [p for p in places if p.hideout_slot]
    free = [p for p in flagged if p.owner_player_id is None]
    mine = next((p for p in players if viewer.player and p.player_id == viewer.player.id), None)
    todo = rules.advice(
        status=campaign.status,
        phase=campaign.phase,
        is_gm=viewer.is_gm,
        setup_complete=campaign.setup_complete,
        wizard_step=campaign.wizard_step,
        players=len(players),
        flagged_places=len(flagged),
        has_hideout=bool(mine and mine.hideouts),
        all_have_hideouts=all(p.hideouts for p in players),
        pathless=tuple(p.name for p in maps.places_without_paths(session, viewer, places)),
        is_player=viewer.player is not None,
        done=frozenset().union(*(facts(session, viewer) for facts in advice_facts())),
    )
    panels = [found for found in (panel(session, viewer) for panel in dashboard_panels()) if found]
    return render(
        page.request,
        "campaigns/dashboard.html",
        status_code=status_code,
        viewer=viewer,
        campaign=campaign,
        panels=panels,
        players=players,
        places={p.id: p for p in places},
        free_places=free,
        todo=todo,
        mine=mine,
        error=error,
        next_phase=rules.next_phase(campaign.phase) if campaign.phase else None,
        tab="overview",
    )


@router.get("/campaigns/{cid}")
def dashboard(page: CampaignPage):
    return dashboard_page(page)


# One-way steps ask first (a dialog with JavaScript, a confirm page without): the question,
# what it means, and the button. The dashboard's buttons carry the same texts.
CONFIRM_HIDEOUTS = (
    N_("Open hideout selection?"),
    N_("The roster closes: no more invitations, and players choose their hideouts. This cannot be undone."),
    N_("Open hideout selection"),
)
CONFIRM_START = (
    N_("Start the campaign?"),
    N_("Round 1 begins with Preparation and hideout selection closes. This cannot be undone."),
    N_("Start the campaign"),
)
CONFIRM_FINISH = (
    N_("Finish the campaign?"),
    N_("A finished campaign becomes read-only. This cannot be undone."),
    N_("Finish the campaign"),
)


def dashboard_ask(page: CampaignContext, texts: tuple[str, str, str] | None, **params) -> Ask | None:
    """The confirm step of a dashboard button (`texts`: question, detail, button), if it has one."""
    if texts is None:
        return None
    return page.ask(texts, cancel=f"/campaigns/{page.cid}", tab="overview", danger=texts is CONFIRM_FINISH, **params)


STATUS_DONE = {
    "hideouts": N_("Hideout selection is open; the roster is closed."),
    "running": N_("The campaign has started: round %(n)s, %(phase)s."),
    "finished": N_("The campaign is finished."),
}


@router.post("/campaigns/{cid}/status")
def set_status(page: CampaignPage):
    body, errors = validate(page.request, StatusIn, typed(page.form, "status"), LABELS)
    if errors:  # the dashboard's buttons: said above it
        return dashboard_page(page, status_code=422, error=unplaced(errors))
    target = body.status
    texts = {"hideouts": CONFIRM_HIDEOUTS, "running": CONFIRM_START, "finished": CONFIRM_FINISH}.get(target)

    def done(campaign):
        params = {"n": campaign.round, "phase": Msg(rules.PHASE_NAMES[campaign.phase])} if campaign.phase else {}
        return page.redirect(f"/campaigns/{page.cid}", STATUS_DONE[campaign.status], **params)

    return page_action(
        page,
        lambda: lifecycle.set_status(page.session, actor=page.user, campaign_id=page.cid, target=target),
        again=partial(dashboard_page, page),
        ask=lambda _campaign: dashboard_ask(page, texts),
        done=done,
    )


# POST /campaigns/{cid}/phase and /end-round: the round's flow, in app/rounds/pages.py.


@router.post("/campaigns/{cid}/hideouts")
def claim_hideout(page: CampaignPage):
    body, errors = validate(page.request, HideoutIn, typed(page.form, "place_id"), LABELS)
    if errors:  # a Claim button per free place: said above the dashboard
        return dashboard_page(page, status_code=422, error=unplaced(errors))
    place_id = body.place_id

    def done(_hideout):
        name = next((p.name for p in maps.places(page.session, page.cid) if p.id == place_id), "")
        return page.redirect(f"/campaigns/{page.cid}", N_("Your hideout is at %(place)s."), place=name)

    return page_action(
        page,
        lambda: lifecycle.claim_hideout(page.session, actor=page.user, campaign_id=page.cid, place_id=place_id),
        again=partial(dashboard_page, page),
        done=done,
    )


def _joined(session, user, cid: int) -> Campaign | None:
    """The campaign, when the viewer is already in it (a player or its GM)."""
    try:
        return service.campaign_of(session, actor=user, campaign_id=cid).campaign
    except DomainError:
        return None


@router.post("/campaigns/{cid}/invitation/{decision}")
def decide_invitation(cid: PathId, decision: str, request: Request, user: PageLogin, session: SessionDep):
    try:
        if decision == "accept":
            lifecycle.accept_invitation(session, actor=user, campaign_id=cid)
        elif decision == "decline":
            lifecycle.decline_invitation(session, actor=user, campaign_id=cid)
        else:
            raise DomainError("not_found")
    except DomainError as exc:
        message = refusal(request, session, exc)
        joined = _joined(session, user, cid) if exc.code == "no_invitation" and decision == "accept" else None
        if joined is not None:  # a stale Accept (another tab, a page from before): the campaign is there
            return flash.redirect(request, f"/campaigns/{cid}", N_("You are already in %(campaign)s."), campaign=joined.name)
        return render(request, "error.html", status_code=exc.status, message=message, status=exc.status)
    campaign = session.get(Campaign, cid)
    if decision == "accept":
        return flash.redirect(request, f"/campaigns/{cid}", N_("You joined %(campaign)s."), campaign=campaign.name)
    return flash.redirect(request, "/", N_("You declined the invitation to %(campaign)s."), campaign=campaign.name)


# --- players and invitations (R1.4) ------------------------------------------------


def players_page(page: CampaignContext, status_code=200, **extra):
    viewer, session = page.viewer, page.session
    players, places = map_reading.roster_and_places_seen(session, viewer)
    return render(
        page.request,
        "campaigns/players.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        players=players,
        places={p.id: p for p in places},  # the hideouts' names: rows, not Place objects
        invitations=service.invitations_seen_by(session, viewer),
        game_masters=people.game_masters(session, viewer) if viewer.is_gm else [],
        tab="players",
        **extra,
    )


@router.get("/campaigns/{cid}/players")
def players(page: CampaignPage):
    return players_page(page)


@router.post("/campaigns/{cid}/invitations")
def invite(page: CampaignPage):
    data = typed(page.form, "nickname")
    body, errors = validate(page.request, InviteForm, data, LABELS)
    if errors:
        return players_page(page, status_code=422, errors=errors, nickname=data.get("nickname", ""))
    nickname = body.nickname
    return page_action(
        page,
        lambda: lifecycle.invite(page.session, actor=page.user, campaign_id=page.cid, nickname=nickname),
        again=partial(players_page, page, nickname=nickname),
        field=("nickname", LABELS["nickname"]),
        done=lambda _invitation: page.redirect(
            f"/campaigns/{page.cid}/players", N_("%(nickname)s is invited."), nickname=nickname
        ),
    )


# --- Rules tab (R9.1) ----------------------------------------------------------------


# Sections of the Rules tab from higher domains (the battle clock, webhooks, export):
# (session, viewer) -> (template, context); a port, wired in app/wiring.py.
rules_sections = Port[Callable[..., "tuple[str, dict]"]]("rules page sections")


def rules_page(page: CampaignContext, status_code: int = 200, error: str | None = None):
    viewer = page.viewer
    house = house_rules.of(viewer.campaign.settlement_rules)
    sections = [section(page.session, viewer) for section in rules_sections()]
    return render(
        page.request,
        "campaigns/rules.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        tab="rules",
        house=house,
        casualty_rows=house_rules.table_text(house["casualty_table"]),
        RESULT_NAMES=house_rules.RESULT_NAMES,
        XP_NAMES=house_rules.XP_NAMES,
        sections=sections,
        error=error,
    )


@router.get("/campaigns/{cid}/rules")
def rules_tab(page: CampaignPage):
    return rules_page(page)

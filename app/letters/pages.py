"""The Messages tab (R8.12, R9.4; the manual's „Wiadomości”): inbox and outbox, the compose
page with a preview before sending, the thread view with a reply form, read marks, the tab's
unread badge and the dashboard panel. Every success redirects with a flash message saying what
was done (post/redirect/get); a refusal shows the page again with the reason and changes nothing.
Previews change nothing and render the form again (no JavaScript needed)."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Query
from sqlalchemy.orm import object_session

from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.service import nicknames
from app.campaigns.terms import require_module
from app.core.errors import N_, DomainError
from app.core.forms import blank_to_none, typed, validate
from app.core.markdown import render_letter
from app.core.page_actions import page_action
from app.core.templating import render, request_gettext
from app.core.types import MAX_ID, PathId
from app.core.validation import named, named_code, required
from app.letters import rules, service
from app.letters.schemas import LetterIn, ReplyIn
from app.visibility import is_letter_recipient, letter_party

router = APIRouter()
PER_PAGE = 20
LABELS = {"to": N_("Write to"), "subject": N_("Subject"), "body": N_("Letter")}
SENT = (N_("Letter sent to %(to)s."), N_("Letter sent to the game master."))
REPLIED = (N_("Reply sent to %(to)s."), N_("Reply sent to the game master."))


def _names(session, viewer) -> dict[int, str]:
    """Who is who in letters: player id -> nickname (the GM's side, None, is "Game master")."""
    return nicknames(session, viewer.campaign.id)


def _context(viewer, **extra) -> dict:
    member, me = letter_party(viewer)
    can_write = viewer.campaign.status != "finished" and member
    return {
        "viewer": viewer,
        "campaign": viewer.campaign,
        "me": me,
        "can_write": can_write,
        "tab": "letters",
        "render_letter": render_letter,
        **extra,
    }


def _box(box: str | None) -> str:
    return "out" if box == "out" else "in"


# --- the Messages tab --------------------------------------------------------------------------


def _list_page(page: CampaignContext, box: str = "in", number: int = 1, status_code: int = 200, **extra):
    box = _box(box)
    session = page.session
    viewer, result = service.letters_for(session, page.viewer, box=box, page=number, per_page=PER_PAGE)
    return render(
        page.request,
        "letters/letters.html",
        status_code=status_code,
        box=box,
        page=result,
        names=_names(session, viewer),
        unread=service.unread_count(session, viewer),
        **_context(viewer, **extra),
    )


@router.get("/campaigns/{cid}/letters")
def letters(page: CampaignPage, box: str = "in", number: int = Query(1, ge=1, le=100_000, alias="page")):
    return _list_page(page, box, number)


# --- writing -----------------------------------------------------------------------------------


def _to_value(to: str | None) -> str:
    """The compose form's recipient: "gm" or a player id, as text ("" when none)."""
    to = (to or "").strip()
    return to if to == "gm" or (to.isdigit() and 0 < int(to) <= MAX_ID) else ""


def _compose(page: CampaignContext, status_code: int = 200, form: dict | None = None, **extra):
    viewer = page.viewer
    require_module(viewer.campaign, service.MODULE)
    member, me = letter_party(viewer)
    if not member:
        raise DomainError("not_found")
    return render(
        page.request,
        "letters/compose.html",
        status_code=status_code,
        form=form or {},
        recipients=service.recipients(page.session, viewer),
        gm_recipient=me is not None,
        **_context(viewer, **extra),
    )


@router.get("/campaigns/{cid}/letters/new")
def compose(page: CampaignPage, to: str = ""):
    """Two taps from a player's row (`?to=<player_id>`) or from the Messages tab; `?to=gm`
    writes to the game master."""
    return _compose(page, form={"to": _to_value(to)})


def _letter_data(form) -> dict:
    data = typed(form, "to", "subject", "body")
    data["to"] = _to_value(data.get("to"))
    return data


def _checked(request, model, data: dict):
    """`validate` with the letter's field names: core/validation.py reads a field called
    "body" as the request body and files its problem under "form"; here it is the letter's body
    (the schemas have no problem of the whole form)."""
    body, errors = validate(request, model, data, LABELS)
    if "form" in errors:
        gettext = request_gettext(request)
        message = errors.pop("form")
        unnamed = message == required(gettext, None)
        errors["body"] = required(gettext, LABELS["body"]) if unnamed else named(gettext, LABELS["body"], message)
    return body, {("to" if k == "to_player_id" else k): v for k, v in errors.items()}


def _validate_letter(request, data: dict):
    to = data.get("to", "")
    body, errors = _checked(
        request,
        LetterIn,
        {
            "to_player_id": to if to not in ("", "gm") else None,
            "to_gm": to == "gm",
            "subject": data.get("subject", ""),
            "body": data.get("body", ""),
        },
    )
    if not to:
        errors["to"] = named_code(request_gettext(request), LABELS["to"], "field_required")
        body = None
    return body, errors


@router.post("/campaigns/{cid}/letters/preview")
def preview(page: CampaignPage):
    """The compose form (or a thread's reply form, with `reply_to`) again, with the body as it
    will be shown. Changes nothing."""
    form = page.form
    reply_to = (form.get("reply_to") or "").strip()
    if reply_to:
        lid = int(reply_to) if reply_to.isdigit() and 0 < int(reply_to) <= MAX_ID else 0
        if not lid:
            raise DomainError("not_found")
        data = blank_to_none(typed(form, "subject", "body"))
        _, errors = _checked(page.request, ReplyIn, data)
        return _thread_page(
            page,
            lid,
            status_code=422 if errors else 200,
            errors=errors,
            form={k: v or "" for k, v in data.items()},
            preview=not errors,
        )
    data = _letter_data(form)
    _, errors = _validate_letter(page.request, data)
    return _compose(page, status_code=422 if errors else 200, form=data, errors=errors, preview=not errors)


def _sent(page: CampaignContext, messages: tuple[str, str]):
    """Back to the thread, at the letter just sent: "Letter sent to anna." (or to the GM)."""

    def done(letter):
        url = f"/campaigns/{page.cid}/letters/{letter.thread_id}#letter-{letter.id}"
        if letter.to_player_id is None:
            return page.redirect(url, messages[1])
        return page.redirect(url, messages[0], to=nicknames(page.session, page.cid).get(letter.to_player_id, ""))

    return done


@router.post("/campaigns/{cid}/letters")
def send(page: CampaignPage):
    data = _letter_data(page.form)
    body, errors = _validate_letter(page.request, data)
    if errors:
        return _compose(page, status_code=422, form=data, errors=errors)
    return page_action(
        page,
        lambda: service.send(
            page.session,
            actor=page.user,
            campaign_id=page.cid,
            to_player_id=body.to_player_id,
            to_gm=body.to_gm,
            subject=body.subject,
            body=body.body,
        ),
        again=partial(_compose, page, form=data),
        done=_sent(page, SENT),
    )


# --- a thread ------------------------------------------------------------------------------------


def _thread_page(page: CampaignContext, lid: int, status_code: int = 200, open_: bool = False, **extra):
    session = page.session
    view = service.thread(session, actor=page.user, campaign_id=page.cid, letter_id=lid, open_=open_)
    viewer = view.viewer
    latest = view.latest
    return render(
        page.request,
        "letters/thread.html",
        status_code=status_code,
        thread=view,
        latest=latest,
        names=_names(session, viewer),
        received={x.id for x in view.letters if is_letter_recipient(viewer, x)},
        reply_subject=rules.reply_subject(latest.subject),
        **_context(viewer, **extra),
    )


@router.get("/campaigns/{cid}/letters/{lid}")
def thread(lid: PathId, page: CampaignPage):
    # Opening a thread as its recipient marks its letters read: a GET that changes read_at, as
    # mail clients do. It changes nothing of the game and nothing anybody else sees; "Mark as
    # unread" undoes it (the API marks only explicitly). A live refresh (static/live.js) may not
    # show the new letter (a half-written reply keeps the old part), so it marks nothing.
    return _thread_page(page, lid, open_=page.request.headers.get("x-hideout-live") is None)


@router.post("/campaigns/{cid}/letters/{lid}/reply")
def reply(lid: PathId, page: CampaignPage):
    data = blank_to_none(typed(page.form, "subject", "body"))
    shown = {k: v or "" for k, v in data.items()}
    body, errors = _checked(page.request, ReplyIn, data)
    if errors:
        return _thread_page(page, lid, status_code=422, errors=errors, form=shown)
    return page_action(
        page,
        lambda: service.reply(
            page.session, actor=page.user, campaign_id=page.cid, letter_id=lid, body=body.body, subject=body.subject
        ),
        again=partial(_thread_page, page, lid, form=shown),
        passing=("not_found",),  # a thread this viewer cannot see: the 404 page
        done=_sent(page, REPLIED),
    )


def _back_to_box(form, cid: int) -> str:
    """Back to the inbox page the mark was made on."""
    number = (form.get("page") or "").strip()
    return f"/campaigns/{cid}/letters" + (f"?page={number}" if number.isdigit() and 1 < int(number) <= 100_000 else "")


def _mark(page: CampaignContext, lid: int, read: bool):
    message = N_("Marked as read: %(subject)s") if read else N_("Marked as unread: %(subject)s")
    return page_action(
        page,
        lambda: service.mark(page.session, actor=page.user, campaign_id=page.cid, letter_id=lid, read=read),
        again=partial(_thread_page, page, lid),
        passing=("not_found", "module_disabled"),
        done=lambda letter: page.redirect(_back_to_box(page.form, page.cid), message, subject=letter.subject),
    )


@router.post("/campaigns/{cid}/letters/{lid}/read")
def mark_read(lid: PathId, page: CampaignPage):
    return _mark(page, lid, True)


@router.post("/campaigns/{cid}/letters/{lid}/unread")
def mark_unread(lid: PathId, page: CampaignPage):
    return _mark(page, lid, False)


# --- the tab's badge and the dashboard -------------------------------------------------------------


def letters_tab(context: dict) -> dict:
    """Template hook: the campaign tabs get `letters_unread()`, the viewer's unread count (one
    statement, only when the tab is drawn, shared with the dashboard panel)."""
    campaign, viewer = context.get("campaign"), context.get("viewer")
    if (
        campaign is None
        or viewer is None
        or not getattr(viewer, "is_member", False)
        or not (getattr(campaign, "modules", None) or {}).get(service.MODULE)
    ):
        return {}
    session = object_session(campaign)
    if session is None:
        return {}
    return {"letters_unread": lambda: service.unread_count(session, viewer)}


def dashboard_panel(session, viewer):
    """ "N unread letters", a tap from the inbox."""
    unread = service.unread_count(session, viewer)
    return ("letters/_dashboard.html", {"unread": unread}) if unread else None

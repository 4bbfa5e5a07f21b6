"""The Messages tab (R8.12, R9.4; the manual's „Wiadomości”): inbox and outbox, the compose
page with a preview before sending, the thread view with a reply form, read marks, the tab's
unread badge and the dashboard panel. Every success redirects with a flash message saying what
was done (post/redirect/get); a refusal shows the page again with the reason and changes nothing.
Previews change nothing and render the form again (no JavaScript needed)."""
from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy.orm import object_session

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import pages as campaign_pages
from app.campaigns.service import campaign_of
from app.campaigns.terms import require_module
from app.core import flash
from app.core.errors import N_, DomainError
from app.core.forms import Form, blank_to_none, refusal, typed, validate
from app.core.markdown import render_letter
from app.core.templating import add_context_hook, render, request_gettext
from app.core.types import MAX_ID, PathId, QueryPage
from app.core.validation import named, named_code, required
from app.letters import rules, service
from app.letters.schemas import LetterIn, ReplyIn
from app.campaigns.service import nicknames
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
    return {"viewer": viewer, "campaign": viewer.campaign, "me": me, "can_write": can_write, "tab": "letters",
            "render_letter": render_letter, **extra}


def _box(box: str | None) -> str:
    return "out" if box == "out" else "in"


# --- the Messages tab --------------------------------------------------------------------------


def _list_page(request, session, user, cid: int, box: str = "in", page: int = 1, status_code: int = 200, **extra):
    box = _box(box)
    viewer, result = service.letters(session, actor=user, campaign_id=cid, box=box, page=page, per_page=PER_PAGE)
    return render(request, "letters/letters.html", status_code=status_code, box=box, page=result,
                  names=_names(session, viewer), unread=service.unread_count(session, viewer), **_context(viewer, **extra))


@router.get("/campaigns/{cid}/letters")
def letters(cid: PathId, request: Request, user: PageLogin, session: SessionDep, box: str = "in", page: int = QueryPage()):
    return _list_page(request, session, user, cid, box, page)


# --- writing -----------------------------------------------------------------------------------


def _to_value(to: str | None) -> str:
    """The compose form's recipient: "gm" or a player id, as text ("" when none)."""
    to = (to or "").strip()
    return to if to == "gm" or (to.isdigit() and 0 < int(to) <= MAX_ID) else ""


def _compose(request, session, user, cid: int, status_code: int = 200, form: dict | None = None, **extra):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    require_module(viewer.campaign, service.MODULE)
    member, me = letter_party(viewer)
    if not member:
        raise DomainError("not_found")
    return render(request, "letters/compose.html", status_code=status_code, form=form or {},
                  recipients=service.recipients(session, viewer), gm_recipient=me is not None, **_context(viewer, **extra))


@router.get("/campaigns/{cid}/letters/new")
def compose(cid: PathId, request: Request, user: PageLogin, session: SessionDep, to: str = ""):
    """Two taps from a player's row (`?to=<player_id>`) or from the Messages tab; `?to=gm`
    writes to the game master."""
    return _compose(request, session, user, cid, form={"to": _to_value(to)})


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
    body, errors = _checked(request, LetterIn, {"to_player_id": to if to not in ("", "gm") else None, "to_gm": to == "gm",
                                                 "subject": data.get("subject", ""), "body": data.get("body", "")})
    if not to:
        errors["to"] = named_code(request_gettext(request), LABELS["to"], "field_required")
        body = None
    return body, errors


@router.post("/campaigns/{cid}/letters/preview")
def preview(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """The compose form (or a thread's reply form, with `reply_to`) again, with the body as it
    will be shown. Changes nothing."""
    reply_to = (form.get("reply_to") or "").strip()
    if reply_to:
        lid = int(reply_to) if reply_to.isdigit() and 0 < int(reply_to) <= MAX_ID else 0
        if not lid:
            raise DomainError("not_found")
        data = blank_to_none(typed(form, "subject", "body"))
        _, errors = _checked(request, ReplyIn, data)
        return _thread_page(request, session, user, cid, lid, status_code=422 if errors else 200, errors=errors,
                            form={k: v or "" for k, v in data.items()}, preview=not errors)
    data = _letter_data(form)
    _, errors = _validate_letter(request, data)
    return _compose(request, session, user, cid, status_code=422 if errors else 200, form=data, errors=errors,
                    preview=not errors)


def _sent(request, cid: int, names: dict, letter, messages: tuple[str, str]):
    """Back to the thread, at the letter just sent: "Letter sent to anna." (or to the GM)."""
    url = f"/campaigns/{cid}/letters/{letter.thread_id}#letter-{letter.id}"
    if letter.to_player_id is None:
        return flash.redirect(request, url, messages[1])
    return flash.redirect(request, url, messages[0], to=names.get(letter.to_player_id, ""))


@router.post("/campaigns/{cid}/letters")
def send(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    data = _letter_data(form)
    body, errors = _validate_letter(request, data)
    if errors:
        return _compose(request, session, user, cid, status_code=422, form=data, errors=errors)
    try:
        letter = service.send(session, actor=user, campaign_id=cid, to_player_id=body.to_player_id, to_gm=body.to_gm,
                              subject=body.subject, body=body.body)
    except DomainError as exc:
        return _compose(request, session, user, cid, status_code=exc.status, form=data, error=refusal(request, session, exc))
    return _sent(request, cid, nicknames(session, cid), letter, SENT)


# --- a thread ------------------------------------------------------------------------------------


def _thread_page(request, session, user, cid: int, lid: int, status_code: int = 200, open_: bool = False, **extra):
    view = service.thread(session, actor=user, campaign_id=cid, letter_id=lid, open_=open_)
    viewer = view.viewer
    latest = view.latest
    return render(request, "letters/thread.html", status_code=status_code, thread=view, latest=latest,
                  names=_names(session, viewer), received={x.id for x in view.letters if is_letter_recipient(viewer, x)},
                  reply_subject=rules.reply_subject(latest.subject), **_context(viewer, **extra))


@router.get("/campaigns/{cid}/letters/{lid}")
def thread(cid: PathId, lid: PathId, request: Request, user: PageLogin, session: SessionDep):
    # Opening a thread as its recipient marks its letters read: a GET that changes read_at, as
    # mail clients do. It changes nothing of the game and nothing anybody else sees; "Mark as
    # unread" undoes it (the API marks only explicitly). A live refresh (static/live.js) may not
    # show the new letter (a half-written reply keeps the old part), so it marks nothing.
    return _thread_page(request, session, user, cid, lid, open_=request.headers.get("x-hideout-live") is None)


@router.post("/campaigns/{cid}/letters/{lid}/reply")
def reply(cid: PathId, lid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    data = blank_to_none(typed(form, "subject", "body"))
    shown = {k: v or "" for k, v in data.items()}
    body, errors = _checked(request, ReplyIn, data)
    if errors:
        return _thread_page(request, session, user, cid, lid, status_code=422, errors=errors, form=shown)
    try:
        letter = service.reply(session, actor=user, campaign_id=cid, letter_id=lid, body=body.body, subject=body.subject)
    except DomainError as exc:
        message = refusal(request, session, exc)
        if exc.code == "not_found":
            raise
        return _thread_page(request, session, user, cid, lid, status_code=exc.status, error=message, form=shown)
    return _sent(request, cid, nicknames(session, cid), letter, REPLIED)


def _back_to_box(form, cid: int) -> str:
    """Back to the inbox page the mark was made on."""
    page = (form.get("page") or "").strip()
    return f"/campaigns/{cid}/letters" + (f"?page={page}" if page.isdigit() and 1 < int(page) <= 100_000 else "")


def _mark(request, session, user, cid: int, lid: int, form, read: bool):
    try:
        letter = service.mark(session, actor=user, campaign_id=cid, letter_id=lid, read=read)
    except DomainError as exc:
        message = refusal(request, session, exc)
        if exc.code in ("not_found", "module_disabled"):
            raise
        return _thread_page(request, session, user, cid, lid, status_code=exc.status, error=message)
    message = N_("Marked as read: %(subject)s") if read else N_("Marked as unread: %(subject)s")
    return flash.redirect(request, _back_to_box(form, cid), message, subject=letter.subject)


@router.post("/campaigns/{cid}/letters/{lid}/read")
def mark_read(cid: PathId, lid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    return _mark(request, session, user, cid, lid, form, True)


@router.post("/campaigns/{cid}/letters/{lid}/unread")
def mark_unread(cid: PathId, lid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    return _mark(request, session, user, cid, lid, form, False)


# --- the tab's badge and the dashboard -------------------------------------------------------------


def letters_tab(context: dict) -> dict:
    """Template hook: the campaign tabs get `letters_unread()`, the viewer's unread count (one
    statement, only when the tab is drawn, shared with the dashboard panel)."""
    campaign, viewer = context.get("campaign"), context.get("viewer")
    if campaign is None or viewer is None or not getattr(viewer, "is_member", False) \
            or not (getattr(campaign, "modules", None) or {}).get(service.MODULE):
        return {}
    session = object_session(campaign)
    if session is None:
        return {}
    return {"letters_unread": lambda: service.unread_count(session, viewer)}


add_context_hook(letters_tab)


def dashboard_panel(session, viewer):
    """"N unread letters", a tap from the inbox."""
    unread = service.unread_count(session, viewer)
    return ("letters/_dashboard.html", {"unread": unread}) if unread else None


campaign_pages.add_dashboard_panel(dashboard_panel)

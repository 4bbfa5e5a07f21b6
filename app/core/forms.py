"""HTML form helpers: read the posted form once, validate it with the API's models, and
turn refusals into messages shown in place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar
from urllib.parse import quote, urlsplit

from fastapi import Depends, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ValidationError
from sqlmodel import Session
from starlette.datastructures import FormData

from app.core.errors import DomainError, message_for
from app.core.security import CSRF_FIELD
from app.core.templating import render, request_gettext
from app.core.validation import Label, field_errors, named_code


async def posted_form(request: Request) -> FormData:
    """The posted form (empty when none was posted)."""
    if "form" in request.headers.get("content-type", ""):
        return await request.form()
    return FormData()


Form = Annotated[FormData, Depends(posted_form)]


def typed(form: FormData, *names: str, lists: tuple[str, ...] = ()) -> dict[str, Any]:
    """What was posted in the fields `names` (those sent, as text) and in the repeated fields
    `lists` (as lists of text): the input of a schema, and what a refused form shows again.
    Nothing is parsed here; the schema does that."""
    data: dict[str, Any] = {name: value for name in names if isinstance(value := form.get(name), str)}
    data.update({name: [v for v in form.getlist(name) if isinstance(v, str)] for name in lists})
    return data


def unplaced(errors: dict[str, str], *placed: str) -> str | None:
    """The problems of fields the page shows no message next to (hidden fields, buttons),
    together as one message above the form."""
    return " ".join(message for field, message in errors.items() if field not in placed) or None


def blank_to_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, str) and v.strip() == "" else v) for k, v in data.items()}


Schema = TypeVar("Schema", bound=BaseModel)


def validate(
    request: Request, model: type[Schema], data: dict[str, Any], labels: Mapping[str, Label] | None = None
) -> tuple[Schema | None, dict[str, str]]:
    """Every problem of the form at once, each named by its field's label (an English
    message id per field name)."""
    try:
        return model.model_validate(data), {}
    except ValidationError as exc:
        return None, field_errors(exc, request_gettext(request), labels)


def field_refusal(request: Request, session: Session, exc: DomainError, label: str | None) -> str:
    """A refusal that belongs to one field, named by the field's label; rolls back."""
    session.rollback()
    return named_code(request_gettext(request), label, exc.code, exc.params)


def refusal(request: Request, session: Session, exc: DomainError) -> str:
    """A refused form changes nothing: roll back, then say why in the user's language."""
    session.rollback()
    return message_for(exc.code, exc.params, request_gettext(request))


def see_other(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def safe_next(url: str | None, default: str = "/") -> str:
    """A return-to address of this site only: one leading slash, no backslash (browsers read
    `/\\evil.example` as another host), no scheme, no control characters."""
    if not url or not url.startswith("/") or url.startswith("//"):
        return default
    if "\\" in url or "%5c" in url.lower() or ":" in url.split("?", 1)[0] or any(ord(c) < 32 or ord(c) == 127 for c in url):
        return default
    return url


def return_to(request: Request) -> str:
    """The page to come back to after logging in (issue 30): this one for a plain GET; for a
    form or an htmx part, the page it was sent from (the Referer, this site's only)."""
    if request.method == "GET" and not request.headers.get("hx-request"):
        return safe_next(request.url.path + (f"?{request.url.query}" if request.url.query else ""))
    referer = urlsplit(request.headers.get("referer", ""))
    if referer.netloc != request.url.netloc:
        return "/"
    return safe_next(referer.path + (f"?{referer.query}" if referer.query else ""))


def login_url(next_url: str) -> str:
    """The login page that returns to next_url (a local path) afterwards."""
    next_url = safe_next(next_url)
    return "/login" if next_url == "/" else f"/login?next={quote(next_url, safe='/')}"


def confirmed(form) -> bool:
    """A one-way step was confirmed: the JavaScript dialog or the confirm page adds confirm=1."""
    return form.get("confirm") == "1"


def confirm_page(
    request: Request,
    session: Session,
    form,
    *,
    question: str,
    action: str,
    button: str,
    cancel: str,
    detail: str = "",
    danger: bool = False,
    **context: Any,
):
    """The confirm step without JavaScript. The route ran the action only to see that it
    would succeed (so refusals show at once): roll it back, then ask. The page re-posts
    every field of the form with confirm=1."""
    session.rollback()
    fields = [(k, v) for k, v in form.multi_items() if k not in (CSRF_FIELD, "confirm") and isinstance(v, str)]
    return render(
        request,
        "confirm.html",
        question=question,
        detail=detail,
        action=action,
        fields=fields,
        button=button,
        cancel=cancel,
        danger=danger,
        **context,
    )

"""HTML form helpers: read the posted form once, validate it with the API's models, and
turn refusals into messages shown in place."""
from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ValidationError
from sqlmodel import Session
from starlette.datastructures import FormData

from app.core.errors import DomainError, message_for
from app.core.templating import request_gettext
from app.core.validation import field_errors


async def _form(request: Request) -> FormData:
    if "form" in request.headers.get("content-type", ""):
        return await request.form()
    return FormData()


Form = Annotated[FormData, Depends(_form)]


def blank_to_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, str) and v.strip() == "" else v) for k, v in data.items()}


def validate(request: Request, model: type[BaseModel], data: dict[str, Any]) -> tuple[BaseModel | None, dict[str, str]]:
    try:
        return model.model_validate(data), {}
    except ValidationError as exc:
        return None, field_errors(exc, request_gettext(request))


def refusal(request: Request, session: Session, exc: DomainError) -> str:
    """A refused form changes nothing: roll back, then say why in the user's language."""
    session.rollback()
    return message_for(exc.code, exc.params, request_gettext(request))


def see_other(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def safe_next(url: str | None, default: str = "/") -> str:
    if url and url.startswith("/") and not url.startswith("//"):
        return url
    return default


def int_field(value, default: int | None = None) -> int | None:
    """A whole number from a form field, or `default` when it is missing or not one."""
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default

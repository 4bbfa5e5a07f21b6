"""DomainError: a refusal with a stable code; the message is translated from the code.

The codes live in two tables: app/core/error_codes.py (the server and the campaign's frame) and
app/core/rule_codes.py (the game's rules); add a new code to the one its subject belongs to."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.core.error_codes import N_ as N_
from app.core.error_codes import SERVER_ERRORS
from app.core.rule_codes import PLURALS, RULE_ERRORS

if SERVER_ERRORS.keys() & RULE_ERRORS.keys():
    raise RuntimeError(f"error codes in both tables: {sorted(SERVER_ERRORS.keys() & RULE_ERRORS.keys())}")

# code -> (HTTP status, English message with %(name)s parameters)
ERRORS: dict[str, tuple[int, str]] = {**SERVER_ERRORS, **RULE_ERRORS}


class DomainError(Exception):
    def __init__(self, code: str, *, details: list[dict[str, Any]] | None = None, persist: bool = False, **params: Any):
        if code not in ERRORS:
            raise KeyError(f"unknown error code {code}")
        super().__init__(code)
        self.code = code
        # A refusal normally changes nothing; a failed login must still be counted.
        self.persist = persist
        self.params = params
        self.details = details or []

    @property
    def status(self) -> int:
        return ERRORS[self.code][0]


def _plural_template(code: str, params: dict[str, Any], gettext) -> str | None:
    singular, counted = PLURALS[code]
    count = params.get(counted)
    if not isinstance(count, int):
        return None
    ngettext = getattr(getattr(gettext, "__self__", None), "ngettext", None) or _english_ngettext
    return ngettext(singular, ERRORS[code][1], count)


def _template(message: str, params: dict[str, Any], gettext) -> str:
    """`message` in the reader's language. A parameter with `contexts(gettext)` (a campaign's
    word, R8.2) has it looked up in those contexts first: its adjectives and pronouns then
    agree with the word's gender."""
    catalog = getattr(gettext, "__self__", None)
    given = next((v for v in params.values() if hasattr(v, "contexts")), None)
    if given is None or catalog is None:
        return gettext(message)
    for context in given.contexts(gettext):
        found = catalog.pgettext(context, message)
        if found != message:
            return found
    return gettext(message)


def message_for(code: str, params: dict[str, Any], gettext) -> str:
    template = (_plural_template(code, params, gettext) if code in PLURALS else None) or _template(
        ERRORS[code][1], params, gettext
    )
    # Msg: a message; anything with `text(gettext)`: a wait, or a campaign's word (R8.2).
    translated = {
        k: (gettext(v) if isinstance(v, Msg) else v.text(gettext) if hasattr(v, "text") else v) for k, v in params.items()
    }
    try:
        return template % translated if translated else template
    except (KeyError, TypeError, ValueError):
        return template


def detail_messages(details: list[dict[str, Any]], gettext) -> list[dict[str, Any]]:
    """Services report every problem as a code with raw parameters; the reader's language is
    added at the edge (API error body, page)."""
    out = []
    for detail in details:
        if "message" not in detail and detail.get("code") in ERRORS:
            params = {k: v for k, v in detail.items() if k not in ("code", "field")}
            detail = {**detail, "message": message_for(detail["code"], params, gettext)}
        out.append(detail)
    return out


class Msg(str):
    """A parameter that is itself a message to translate (a phase or status name)."""


def _english_ngettext(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


class Duration(int):
    """A parameter that is a wait in whole seconds, said in the reader's language:
    seconds under two minutes, else minutes rounded up ("45 seconds", "3 minuty")."""

    def text(self, gettext) -> str:
        # `gettext` is a catalog's bound method; its catalog has the plural forms too.
        ngettext = getattr(getattr(gettext, "__self__", None), "ngettext", None) or _english_ngettext
        seconds = max(1, int(self))
        if seconds < 120:
            return ngettext("%(num)s second", "%(num)s seconds", seconds) % {"num": seconds}
        minutes = -(-seconds // 60)
        return ngettext("%(num)s minute", "%(num)s minutes", minutes) % {"num": minutes}


# The error body of API.md, declared on every API operation (OpenAPI `responses`).
def error_responses() -> dict[int, dict]:
    class ErrorDetail(BaseModel):
        code: str
        message: str
        details: list[dict[str, Any]] = []
        request_id: str | None = None

    class ErrorBody(BaseModel):
        error: ErrorDetail

    texts = {
        401: "Not logged in",
        403: "Not allowed",
        404: "Not found, or not visible to you",
        405: "Method not allowed",
        409: "Wrong state (phase, status, already done)",
        413: "Request body too large",
        422: "Invalid input: every problem in details",
        429: "Too many attempts; wait and try again",
        503: "The database cannot be reached just now (database_unavailable): nothing was written; try again",
    }
    return {status: {"model": ErrorBody, "description": text} for status, text in texts.items()}

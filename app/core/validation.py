"""Pydantic validation problems as translated error details."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import ValidationError

from app.core.errors import N_, message_for

# A form's problem names its field, so that every problem can be listed at once.
FIELD_NAMED = N_("%(field)s: %(message)s")
FIELD_REQUIRED = N_("%(field)s is required.")


class WordedLabel(Protocol):
    """A label in a campaign's words (R8.2, app/campaigns/terms.py)."""

    def text(self, gettext: Any) -> str: ...


# A field's label: an English message id, or one in the campaign's words.
Label = str | WordedLabel

_TYPE_TO_CODE = {
    "missing": "field_required",
    "string_too_short": "field_too_short",
    "string_too_long": "field_too_long",
    "greater_than_equal": "field_too_small",
    "greater_than": "field_too_small",
    "less_than_equal": "field_too_large",
    "less_than": "field_too_large",
    "int_parsing": "field_not_integer",
    "int_type": "field_not_integer",
    "int_from_float": "field_not_integer",
    "float_parsing": "field_not_number",
    "float_type": "field_not_number",
    "bool_parsing": "field_not_boolean",
    "bool_type": "field_not_boolean",
    "literal_error": "field_choice",
    "enum": "field_choice",
}


def _params(code: str, ctx: dict[str, Any]) -> dict[str, Any]:
    if code == "field_too_short":
        return {"min": ctx.get("min_length", "")}
    if code == "field_too_long":
        return {"max": ctx.get("max_length", "")}
    if code == "field_too_small":
        return {"min": ctx.get("ge", ctx.get("gt", ""))}
    if code == "field_too_large":
        return {"max": ctx.get("le", ctx.get("lt", ""))}
    if code == "field_choice":
        return {"choices": str(ctx.get("expected", "")).replace("'", "")}
    return {}


def details_from_errors(errors: list[dict[str, Any]], gettext) -> list[dict[str, Any]]:
    details = []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path")]
        code = _TYPE_TO_CODE.get(err.get("type", ""), "field_invalid")
        details.append(
            {
                "field": ".".join(loc),
                "code": code,
                "message": message_for(code, _params(code, err.get("ctx") or {}), gettext),
            }
        )
    return details


def _label(gettext, label: Label) -> str:
    if hasattr(label, "text"):  # a label in a campaign's words (R8.2), said in the reader's language
        return label.text(gettext)
    # Form labels may hold a literal percent sign written "%%" for Jinja's gettext.
    return gettext(label).replace("%%", "%")


def named(gettext, label: Label | None, message: str) -> str:
    """ "Nickname: A nickname has 3 to 32 letters…" — `label` is an English message id."""
    return gettext(FIELD_NAMED) % {"field": _label(gettext, label), "message": message} if label else message


def required(gettext, label: Label | None) -> str:
    """ "Campaign name is required." """
    if not label:
        return message_for("field_required", {}, gettext)
    return gettext(FIELD_REQUIRED) % {"field": _label(gettext, label)}


def named_code(gettext, label: Label | None, code: str, params: dict[str, Any] | None = None) -> str:
    """A DomainError code's message for one field of a form, named by its label."""
    if code == "field_required":
        return required(gettext, label)
    return named(gettext, label, message_for(code, params or {}, gettext))


def _form_field(loc) -> list[str]:
    """A form's field of an error: an item of a list (`model_ids.3`, `ranks.2`,
    `casualty_table.4.result`) is a problem of the list's one field on the page."""
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            break
        if part not in ("body", "query", "path"):
            parts.append(str(part))
    return parts


def field_errors(exc: ValidationError, gettext, labels: Mapping[str, Label] | None = None) -> dict[str, str]:
    """For forms: every field's first problem, so all are shown at once, each named by its
    label (`labels`: field -> English message id of its label). A blank field that needs a
    value is "required", not "too short" or "not a number"."""
    labels = labels or {}
    out: dict[str, str] = {}
    for err in exc.errors():
        field = ".".join(_form_field(err.get("loc", ()))) or "form"
        if field in out:
            continue
        code = _TYPE_TO_CODE.get(err.get("type", ""), "field_invalid")
        blank = err.get("input") is None or (isinstance(err.get("input"), str) and not err["input"].strip())
        if code == "field_required" or blank:
            out[field] = required(gettext, labels.get(field))
        else:
            out[field] = named_code(gettext, labels.get(field), code, _params(code, err.get("ctx") or {}))
    return out

"""Pydantic validation problems as translated error details."""
from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from app.core.errors import message_for

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


def field_errors(exc: ValidationError, gettext) -> dict[str, str]:
    """For forms: the first message per field name."""
    out: dict[str, str] = {}
    for d in details_from_errors(exc.errors(), gettext):
        out.setdefault(d["field"] or "form", d["message"])
    return out

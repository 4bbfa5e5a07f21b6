"""Ids inside JSON columns. Most references are foreign keys, which the document renumbers
by the schema itself; these few live inside JSON and are renumbered here, the same way out
(database id -> document number) and in (document number -> new id).

A reference that leads nowhere (an item sold since a draft named it) is dropped rather than
guessed: the number it had means nothing on the other server. Values a player typed that are
not ids at all stay as they were, for the rules to refuse as they would have."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# (part, id) -> the id on the other side, or None
Lookup = Callable[[str, int], int | None]

MODELS, ITEMS, PLAYERS, COMPANIES, BATTLES = "company_models", "company_items", "players", "companies", "battles"


def _one(look: Lookup, part: str, value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return look(part, value)
    if isinstance(value, str) and value.lstrip("-").isdigit():
        found = look(part, int(value))
        return None if found is None else str(found)
    return value


def _many(look: Lookup, part: str, values: Any) -> Any:
    if not isinstance(values, list):
        return values
    return [v for v in (_one(look, part, value) for value in values) if v is not None]


def _keyed(look: Lookup, part: str, mapping: Any, inner: Callable[[Any], Any] = lambda v: v) -> Any:
    """A dict keyed by ids (JSON keys are text)."""
    if not isinstance(mapping, dict):
        return mapping
    out = {}
    for key, value in mapping.items():
        found = _one(look, part, str(key))
        if found is not None:
            out[str(found)] = inner(value)
    return out


def _entries(look: Lookup, entries: Any, fields: dict[str, str]) -> Any:
    if not isinstance(entries, list):
        return entries
    return [
        {**e, **{f: _one(look, part, e[f]) for f, part in fields.items() if f in e}} if isinstance(e, dict) else e
        for e in entries
    ]


STEP_ENTRIES = {
    "injuries": {"model_id": MODELS, "captor_player_id": PLAYERS},
    "experience": {"model_id": MODELS},
    "promotions": {"model_id": MODELS},
    "equipment": {"item_id": ITEMS, "model_id": MODELS},
}


def steps(look: Lookup, value: Any) -> Any:
    """A settlement's six steps (app/settlement/rules.py resolve)."""
    if not isinstance(value, dict):
        return value
    out = dict(value)
    course = value.get("course")
    if isinstance(course, dict):
        out["course"] = {**course, **{k: _many(look, MODELS, course[k]) for k in ("taken_out", "objectives") if k in course}}
        if "took_out" in course:
            out["course"]["took_out"] = _keyed(look, MODELS, course["took_out"])
    for key, fields in STEP_ENTRIES.items():
        if key in value:
            out[key] = _entries(look, value[key], fields)
    retinue = value.get("retinue")
    if isinstance(retinue, dict):
        out["retinue"] = {
            **retinue,
            "leader_id": _one(look, MODELS, retinue.get("leader_id")),
            "retinue_ids": _many(look, MODELS, retinue.get("retinue_ids") or []),
        }
    for key in ("proposal", "due"):
        if key in value:
            out[key] = _keyed(look, MODELS, value[key])
    return out


def rolls(look: Lookup, value: Any) -> Any:
    return _keyed(look, MODELS, value)


def applied(look: Lookup, value: Any) -> Any:
    """What closing a settlement changed, kept so that the GM can reopen it."""
    if not isinstance(value, dict) or not value:
        return value
    out = dict(value)
    if "steps" in value:
        out["steps"] = steps(look, value["steps"])
    if "models" in value:
        out["models"] = _keyed(look, MODELS, value["models"])
    if "items" in value:
        out["items"] = _keyed(
            look,
            ITEMS,
            value["items"],
            lambda moved: {k: _one(look, MODELS, v) for k, v in moved.items()} if isinstance(moved, dict) else moved,
        )
    if isinstance(value.get("lost_items"), list):
        # A lost item is gone: reopening adds it back as a new row, so its old id is not kept.
        out["lost_items"] = [
            {**_entries(look, [d], {"company_id": COMPANIES, "model_id": MODELS})[0], "id": None} if isinstance(d, dict) else d
            for d in value["lost_items"]
        ]
    return out


def winners(look: Lookup, value: Any) -> Any:
    return _many(look, PLAYERS, value)


def roster(look: Lookup, value: Any) -> Any:
    """A battle's roster as announced: a hired mercenary has no model (model_id null)."""
    return _entries(look, value, {"model_id": MODELS})


def chronicle_params(look: Lookup, value: Any) -> Any:
    """A decided battle's entry names its battle (R12.3: the chronicle shows its photos)."""
    if not isinstance(value, dict) or "battle_id" not in value:
        return value
    found = _one(look, BATTLES, value["battle_id"])
    return {k: v for k, v in value.items() if k != "battle_id"} | ({"battle_id": found} if found is not None else {})


# (table, column) -> translator
BLOBS: dict[tuple[str, str], Callable[[Lookup, Any], Any]] = {
    ("settlement", "steps"): steps,
    ("settlement", "rolls"): rolls,
    ("settlement", "applied"): applied,
    ("battle", "winners"): winners,
    ("battle_warband", "roster"): roster,
    ("chronicle_entry", "params"): chronicle_params,
}

"""Step 2, injuries (V12): a casualty result for every model taken out, rolled on the
campaign's table with a die the caller seeds; a Healer allows one re-roll per battle."""

from __future__ import annotations

import random
from typing import Any

from app.campaigns import house_rules
from app.core.errors import DomainError
from app.settlement.warband import Context, _text, healer_in


def check_injuries(ctx: Context, course: dict, injuries: list, rolls: dict[int, dict]) -> list[dict]:
    """V12: a casualty result per taken-out model; a rolled result stands (only the Healer's
    re-roll changes it); a capture names an opponent of this battle."""
    out = set(course.get("taken_out") or [])
    seen: dict[int, dict] = {}
    for entry in injuries or []:
        if not isinstance(entry, dict):
            raise DomainError("field_invalid")
        # As sent (JSON): it counts only if it is one of the battle's models, taken out.
        model_id: Any = entry.get("model_id")
        member = ctx.member(model_id)
        if model_id not in out:
            continue  # left over from a model no longer marked as taken out
        result = entry.get("result")
        if result not in house_rules.RESULTS:
            raise DomainError("field_choice", choices=", ".join(house_rules.RESULTS))
        rolled = rolls.get(model_id)
        if rolled is not None and rolled["result"] != result:
            raise DomainError("settlement_result_rolled", model=member.name)
        clean = {"model_id": model_id, "result": result}
        if result == "permanent":
            clean["text"] = _text(entry.get("text"))
        if result == "captured":
            captor = entry.get("captor_player_id")
            if captor is None and len(ctx.opponents) == 1:
                captor = ctx.opponents[0]
            if captor is not None and captor not in ctx.opponents:
                raise DomainError("settlement_captor_unknown")
            clean["captor_player_id"] = captor
        if result == "dead":
            clean["items_lost"] = bool(entry.get("items_lost", rolled["items_lost"] if rolled else False))
        seen[model_id] = clean
    for model_id, rolled in rolls.items():
        if model_id in out and model_id not in seen:
            entry = {"model_id": model_id, "result": rolled["result"]}
            if rolled["result"] == "captured" and len(ctx.opponents) == 1:
                entry["captor_player_id"] = ctx.opponents[0]
            if rolled["result"] == "dead":
                entry["items_lost"] = bool(rolled["items_lost"])
            if rolled["result"] == "permanent":
                entry["text"] = ""
            seen[model_id] = entry
    return [seen[m] for m in ctx.member_ids if m in seen]


def check_complete_injuries(ctx: Context, course: dict, injuries: list[dict]) -> None:
    """Closing needs a result for every taken-out model, a text for every permanent injury
    and a captor for every capture."""
    by_model = {i["model_id"]: i for i in injuries}
    missing = [ctx.member(m).name for m in course.get("taken_out") or [] if m not in by_model]
    if missing:
        raise DomainError("settlement_injury_missing", models=", ".join(missing))
    for i in injuries:
        if i["result"] == "permanent" and not i.get("text"):
            raise DomainError("settlement_injury_text", model=ctx.member(i["model_id"]).name)
        if i["result"] == "captured" and i.get("captor_player_id") is None:
            raise DomainError("settlement_captor_missing", model=ctx.member(i["model_id"]).name)


def roll(table: list[dict], rng: random.Random) -> dict:
    """One casualty roll on the campaign's table: the face and what it says."""
    face = rng.randint(1, len(table))
    entry = table[face - 1]
    return {"face": face, "result": entry["result"], "items_lost": bool(entry.get("items_lost"))}


def check_roll(ctx: Context, course: dict, rolls: dict[int, dict], model_id: int, reroll: bool, healer_used: bool) -> None:
    member = ctx.member(model_id)
    if model_id not in (course.get("taken_out") or []):
        raise DomainError("settlement_injury_not_taken_out", model=member.name)
    if not reroll and model_id in rolls:
        raise DomainError("settlement_rolled_already", model=member.name)
    if reroll:
        if not healer_in(ctx):
            raise DomainError("settlement_no_healer")
        if healer_used:
            raise DomainError("settlement_healer_used")
        if model_id not in rolls:
            raise DomainError("settlement_nothing_to_reroll", model=member.name)

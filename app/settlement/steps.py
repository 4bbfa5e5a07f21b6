"""Steps 1, 3 and 6 (V11, V13, V16): the course of the battle, the equipment of the models
that remain, the company's leader and retinue."""

from __future__ import annotations

from app.campaigns import house_rules
from app.companies.rules import Carried, check_item
from app.core.errors import DomainError, Msg
from app.core.types import whole_number
from app.settlement.warband import GONE, RESULT_NAMES, Context, _ids


def check_course(ctx: Context, course: dict) -> dict:
    """V11: who was taken out, whom each model took out, objectives; the result is the
    battle's, and a different one is refused."""
    taken_out = _ids(course.get("taken_out") or [], ctx)
    took_out: dict[int, int] = {}
    for key, n in (course.get("took_out") or {}).items():
        model_id = int(key) if isinstance(key, str) and key.lstrip("-").isdigit() else key
        ctx.member(model_id)
        n = whole_number(n, 0, 99)
        if n:
            took_out[model_id] = n
    if sum(took_out.values()) > ctx.enemy_models:
        raise DomainError("settlement_took_out_too_many", count=sum(took_out.values()), enemies=ctx.enemy_models)
    objectives = _ids(course.get("objectives") or [], ctx)
    claimed = course.get("result")
    if claimed is not None and ctx.result is not None and claimed != ctx.result:
        raise DomainError("settlement_result_mismatch", result=Msg(RESULT_NAMES[ctx.result]))
    return {
        "taken_out": taken_out,
        "took_out": {str(k): v for k, v in sorted(took_out.items())},
        "objectives": objectives,
        "result": ctx.result,
    }


def check_equipment(ctx: Context, injuries: list[dict], equipment: list) -> dict[int, tuple[int | None, bool]]:
    """V13: items of dead (and captured) models go back to the stash unless they are lost;
    any item may move between the warband's remaining models and the stash (V8 holds)."""
    by_model = {i["model_id"]: i for i in injuries}
    gone = {m for m, i in by_model.items() if i["result"] in GONE}
    items = {i.item_id: i for i in ctx.items}
    layout: dict[int, tuple[int | None, bool]] = {}
    for item in ctx.items:
        lost = item.model_id in gone and bool(by_model[item.model_id].get("items_lost"))
        layout[item.item_id] = (None if item.model_id in gone else item.model_id, lost)
    for entry in equipment or []:
        if not isinstance(entry, dict) or entry.get("item_id") not in items:
            raise DomainError("settlement_item_unknown")
        item = items[entry["item_id"]]
        target = entry.get("model_id")
        lost = bool(entry.get("lost"))
        if lost and item.model_id not in gone:
            raise DomainError("settlement_item_not_lost", item=item.name)
        if target is not None:
            member = ctx.member(target)
            if target in gone:
                raise DomainError("settlement_item_to_gone", item=item.name, model=member.name)
        layout[item.item_id] = (None if lost else target, lost)
    return layout


def item_problems(ctx: Context, layout: dict[int, tuple[int | None, bool]]) -> None:
    """V8 on the final layout: at most two items, one per slot, a Grunt one Common item."""
    members = {m.model_id: m for m in ctx.members}
    carried: dict[int, list[Carried]] = {}
    for item in sorted(ctx.items, key=lambda i: i.item_id):
        target, lost = layout[item.item_id]
        if lost or target is None:
            continue
        member = members.get(target)
        if member is None:
            continue
        check_item(list(member.types), carried.setdefault(target, []), Carried(item.slot, item.rarity), member.name)
        carried[target].append(Carried(item.slot, item.rarity))


def check_retinue(ctx: Context, retinue: dict | None, injuries: list[dict]) -> dict:
    """V16: the company's leader (a Command model) and its retinue, among models still in
    play; unchanged when the step is not filled (the dead and captured lose their roles)."""
    gone = {i["model_id"] for i in injuries if i["result"] in GONE}
    alive = {m.model_id: m for m in ctx.company if m.status not in GONE and m.model_id not in gone}
    if retinue is None:
        leader = next((m.model_id for m in alive.values() if m.role == "leader"), None)
        return {"leader_id": leader, "retinue_ids": sorted(m.model_id for m in alive.values() if m.role == "retinue")}
    leader = retinue.get("leader_id")
    if leader is not None:
        if leader not in alive:
            raise DomainError("settlement_model_unknown", model_id=leader)
        if "Command" not in alive[leader].types:
            raise DomainError("settlement_leader_command", model=alive[leader].name)
    ids = []
    for model_id in retinue.get("retinue_ids") or []:
        if model_id not in alive:
            raise DomainError("settlement_model_unknown", model_id=model_id)
        if model_id != leader and model_id not in ids:
            ids.append(model_id)
    return {"leader_id": leader, "retinue_ids": sorted(ids)}


def retinue_cost(retinue_size: int, settings: dict) -> int:
    return house_rules.retinue_cost(retinue_size, settings)

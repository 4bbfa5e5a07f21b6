"""The six settlement steps of a warband after a battle (R7.1, V11-V17), as pure functions:
no session, no clock; every die is rolled with a `random.Random` the caller seeds (and
stores). `plan` turns the saved steps into what closing the settlement changes.

Each step is checked in its own module (warband, steps, injuries, experience); this one puts
them together and is where callers find every name."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.errors import DomainError
from app.settlement.experience import check_experience, check_promotions, due_ranks, proposal, rank_for
from app.settlement.injuries import check_complete_injuries, check_injuries, check_roll, roll
from app.settlement.steps import check_course, check_equipment, check_retinue, item_problems, retinue_cost
from app.settlement.warband import (
    GONE,
    MAX_TEXT,
    RESULT_NAMES,
    RESULTS,
    STEP_NAMES,
    STEPS,
    Context,
    Item,
    Member,
    healer_in,
    result_for,
)

__all__ = [
    "GONE",
    "MAX_TEXT",
    "RESULTS",
    "RESULT_NAMES",
    "STEPS",
    "STEP_NAMES",
    "Context",
    "Item",
    "Member",
    "ModelChange",
    "Plan",
    "check_complete_injuries",
    "check_course",
    "check_equipment",
    "check_experience",
    "check_injuries",
    "check_promotions",
    "check_retinue",
    "check_roll",
    "due_ranks",
    "healer_in",
    "item_problems",
    "plan",
    "proposal",
    "rank_for",
    "resolve",
    "result_for",
    "retinue_cost",
    "roll",
]


@dataclass
class ModelChange:
    model_id: int
    status: str
    miss_round: int | None
    xp: int
    rank: int
    injuries: list[str]
    upgrades: list[dict]


@dataclass
class Plan:
    """What closing a settlement does: each model's new state, each item's new place (or its
    loss), the company's roles, and the prisoners whose ransom is to be asked (V12)."""

    steps: dict
    models: list[ModelChange]
    items: dict[int, tuple[int | None, bool]]
    roles: dict[int, str | None]
    captures: list[tuple[int, int]]  # (model_id, captor_player_id)


def resolve(ctx: Context, saved: dict, rolls: dict[int, dict]) -> dict:
    """Every step as it stands: what was saved, checked, and the defaults for the rest
    (nobody taken out; experience by the house rules; no promotion; the retinue as it is)."""
    course = check_course(ctx, saved.get("course") or {})
    for model_id in rolls:
        if model_id not in course["taken_out"]:
            raise DomainError("settlement_rolled_taken_out", model=ctx.member(model_id).name)
    injuries = check_injuries(ctx, course, saved.get("injuries") or [], rolls)
    proposed = proposal(ctx, course)
    gains = check_experience(ctx, proposed, saved.get("experience") or [])
    due = due_ranks(ctx, gains, injuries)
    promotions = check_promotions(ctx, due, saved.get("promotions") or [])
    layout = check_equipment(ctx, injuries, saved.get("equipment") or [])
    retinue = check_retinue(ctx, saved.get("retinue"), injuries)
    return {
        "course": course,
        "injuries": injuries,
        "experience": [{"model_id": m, "xp": gains[m]} for m in ctx.member_ids],
        "promotions": promotions,
        "equipment": [{"item_id": i, "model_id": t, "lost": lost} for i, (t, lost) in sorted(layout.items())],
        "retinue": retinue,
        "proposal": proposed,
        "due": due,
    }


def plan(ctx: Context, saved: dict, rolls: dict[int, dict]) -> Plan:
    """Checks everything for closing and says what changes."""
    if ctx.result is None:
        raise DomainError("settlement_result_pending")
    steps = resolve(ctx, saved, rolls)
    check_complete_injuries(ctx, steps["course"], steps["injuries"])
    layout = {e["item_id"]: (e["model_id"], e["lost"]) for e in steps["equipment"]}
    item_problems(ctx, layout)
    injuries = {i["model_id"]: i for i in steps["injuries"]}
    gains = {e["model_id"]: e["xp"] for e in steps["experience"]}
    changes = []
    for m in ctx.members:
        injury = injuries.get(m.model_id)
        status, miss_round, texts = m.status, None, []
        if injury is not None:
            if injury["result"] in GONE:
                status = injury["result"]
            elif injury["result"] == "miss_next":
                status, miss_round = "miss_next", ctx.round + 1
            elif injury["result"] == "permanent":
                texts = [injury["text"]]
        upgrades = [
            {"rank": p["rank"], "text": p["upgrade"], "round": ctx.round}
            for p in steps["promotions"]
            if p["model_id"] == m.model_id
        ]
        changes.append(
            ModelChange(
                m.model_id,
                status,
                miss_round,
                m.xp + gains.get(m.model_id, 0),
                max([m.rank] + [u["rank"] for u in upgrades]),
                texts,
                upgrades,
            )
        )
    roles: dict[int, str | None] = {m.model_id: None for m in ctx.company if m.role}
    for m in ctx.members:
        if m.role:
            roles[m.model_id] = None
    if steps["retinue"]["leader_id"] is not None:
        roles[steps["retinue"]["leader_id"]] = "leader"
    for model_id in steps["retinue"]["retinue_ids"]:
        roles[model_id] = "retinue"
    captures = [(i["model_id"], i["captor_player_id"]) for i in steps["injuries"] if i["result"] == "captured"]
    return Plan(steps=steps, models=changes, items=layout, roles=roles, captures=captures)

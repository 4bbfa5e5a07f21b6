"""Steps 4 and 5, experience and promotions (V14, V15): what the house rules award, the
leader's extra points, and the ranks a model's experience reaches."""

from __future__ import annotations

from app.core.errors import DomainError
from app.core.types import whole_number
from app.settlement.warband import GONE, Context, _text


def proposal(ctx: Context, course: dict) -> dict[int, int]:
    """V14 with the campaign's awards: for taking part, per enemy model taken out, for an
    objective, for the winning side (the leader's extra points come on top)."""
    xp = ctx.settings["xp"]
    took_out = {int(k): v for k, v in (course.get("took_out") or {}).items()}
    objectives = set(course.get("objectives") or [])
    won = (course.get("result") or ctx.result) == "won"
    return {
        m.model_id: xp["taking_part"]
        + xp["per_enemy"] * took_out.get(m.model_id, 0)
        + xp["objective"] * (m.model_id in objectives)
        + xp["win"] * won
        for m in ctx.members
    }


def check_experience(ctx: Context, proposed: dict[int, int], experience: list) -> dict[int, int]:
    """Each model's gain; more than the house proposal only by the leader's extra points."""
    gains = dict(proposed)
    for entry in experience or []:
        if not isinstance(entry, dict):
            raise DomainError("field_invalid")
        ctx.member(entry.get("model_id"))
        gains[entry["model_id"]] = whole_number(entry.get("xp"), 0, 999)
    extra = sum(max(0, gains[m] - proposed[m]) for m in gains)
    bonus = ctx.settings["xp"]["leader_bonus"]
    if extra > bonus:
        raise DomainError("settlement_xp_over", extra=extra, bonus=bonus)
    return gains


def rank_for(xp: int, thresholds: list[int]) -> int:
    """V15: the rank a model's experience reaches."""
    return sum(1 for t in thresholds if xp >= t)


def due_ranks(ctx: Context, gains: dict[int, int], injuries: list[dict]) -> dict[int, list[int]]:
    """The ranks each surviving model may rise to after this battle."""
    gone = {i["model_id"] for i in injuries if i["result"] in GONE}
    due = {}
    for m in ctx.members:
        if m.model_id in gone:
            continue
        reached = rank_for(m.xp + gains.get(m.model_id, 0), ctx.settings["ranks"])
        if reached > m.rank:
            due[m.model_id] = list(range(m.rank + 1, reached + 1))
    return due


def check_promotions(ctx: Context, due: dict[int, list[int]], promotions: list) -> list[dict]:
    """V15: a promotion is to a rank the model's experience reached, recorded as text."""
    result = []
    for entry in promotions or []:
        if not isinstance(entry, dict):
            raise DomainError("field_invalid")
        member = ctx.member(entry.get("model_id"))
        rank = entry.get("rank")
        if rank not in due.get(member.model_id, []):
            raise DomainError("settlement_rank_not_due", model=member.name, rank=rank if isinstance(rank, int) else "?")
        upgrade = _text(entry.get("upgrade"))
        if upgrade:
            result.append({"model_id": member.model_id, "rank": rank, "upgrade": upgrade})
    # Ranks are climbed in order: rank 3 is recorded only with rank 2 below it.
    for model_id, ranks in due.items():
        recorded = sorted(p["rank"] for p in result if p["model_id"] == model_id)
        if recorded and recorded != ranks[: len(recorded)]:
            raise DomainError("settlement_rank_order", model=ctx.member(model_id).name)
    return sorted(result, key=lambda p: (ctx.member_ids.index(p["model_id"]), p["rank"]))

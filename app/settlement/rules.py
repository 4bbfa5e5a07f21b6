"""The six settlement steps of a warband after a battle (R7.1, V11-V17), as pure functions:
no session, no clock; every die is rolled with a `random.Random` the caller seeds (and
stores). `plan` turns the saved steps into what closing the settlement changes."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from app.campaigns import house_rules
from app.companies.rules import Carried, check_item
from app.core.errors import DomainError, Msg, N_
from app.core.types import whole_number

STEPS = ("course", "injuries", "equipment", "experience", "promotions", "retinue")
RESULTS = ("won", "lost", "draw")
RESULT_NAMES = {"won": N_("won"), "lost": N_("lost"), "draw": N_("a draw")}
STEP_NAMES = {"course": N_("Course of the battle"), "injuries": N_("Injuries"), "equipment": N_("Equipment"),
              "experience": N_("Experience"), "promotions": N_("Promotions"), "retinue": N_("Retinue")}
GONE = ("dead", "captured")  # never again (R4.7)
MAX_TEXT = 200


@dataclass(frozen=True)
class Member:
    """A model of the company, as the settlement sees it."""

    model_id: int
    name: str
    types: tuple[str, ...] = ()
    healer: bool = False
    status: str = "ready"
    xp: int = 0
    rank: int = 0
    role: str | None = None


@dataclass(frozen=True)
class Item:
    item_id: int
    name: str
    slot: str
    rarity: str
    model_id: int | None


@dataclass
class Context:
    """What a settlement is checked against: the warband's models in this battle (`members`),
    the company's other models still in play (`company`, for the retinue), the items those
    models carry and the stash, the opponents and how many enemy models there were."""

    player_id: int
    round: int
    result: str | None  # won / lost / draw, None while the battle is undecided
    members: list[Member]
    company: list[Member] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    opponents: list[int] = field(default_factory=list)
    enemy_models: int = 0
    settings: dict = field(default_factory=lambda: house_rules.of({}))

    def member(self, model_id) -> Member:
        found = next((m for m in self.members if m.model_id == model_id), None)
        if found is None:
            raise DomainError("settlement_model_unknown", model_id=model_id)
        return found

    @property
    def member_ids(self) -> list[int]:
        return [m.model_id for m in self.members]


def result_for(winners: list[int], player_id: int) -> str:
    """V11: the warband's result comes from the battle's (R6.8; no winner is a draw)."""
    if not winners:
        return "draw"
    return "won" if player_id in winners else "lost"


def healer_in(ctx: Context) -> bool:
    """V12: a Healer in the warband lets the player re-roll one casualty result per battle."""
    return any(m.healer for m in ctx.members)


# --- checking each step -------------------------------------------------------------------


def _ids(value, ctx: Context) -> list[int]:
    if not isinstance(value, list):
        raise DomainError("field_invalid")
    ids = []
    for v in value:
        ctx.member(v)
        if v not in ids:
            ids.append(v)
    return ids


def _text(value) -> str:
    text = str(value or "").strip()
    if len(text) > MAX_TEXT:
        raise DomainError("field_too_long", max=MAX_TEXT)
    return text


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
    return {"taken_out": taken_out, "took_out": {str(k): v for k, v in sorted(took_out.items())}, "objectives": objectives,
            "result": ctx.result}


def check_injuries(ctx: Context, course: dict, injuries: list, rolls: dict[int, dict]) -> list[dict]:
    """V12: a casualty result per taken-out model; a rolled result stands (only the Healer's
    re-roll changes it); a capture names an opponent of this battle."""
    out = set(course.get("taken_out") or [])
    seen: dict[int, dict] = {}
    for entry in injuries or []:
        if not isinstance(entry, dict):
            raise DomainError("field_invalid")
        model_id = entry.get("model_id")
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


def proposal(ctx: Context, course: dict) -> dict[int, int]:
    """V14 with the campaign's awards: for taking part, per enemy model taken out, for an
    objective, for the winning side (the leader's extra points come on top)."""
    xp = ctx.settings["xp"]
    took_out = {int(k): v for k, v in (course.get("took_out") or {}).items()}
    objectives = set(course.get("objectives") or [])
    won = (course.get("result") or ctx.result) == "won"
    return {m.model_id: xp["taking_part"] + xp["per_enemy"] * took_out.get(m.model_id, 0)
            + xp["objective"] * (m.model_id in objectives) + xp["win"] * won for m in ctx.members}


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
        if recorded and recorded != ranks[:len(recorded)]:
            raise DomainError("settlement_rank_order", model=ctx.member(model_id).name)
    return sorted(result, key=lambda p: (ctx.member_ids.index(p["model_id"]), p["rank"]))


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


# --- rolling (V12) ----------------------------------------------------------------------


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


# --- the whole settlement ------------------------------------------------------------------


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
    return {"course": course, "injuries": injuries, "experience": [{"model_id": m, "xp": gains[m]} for m in ctx.member_ids],
            "promotions": promotions, "equipment": [{"item_id": i, "model_id": t, "lost": lost} for i, (t, lost) in sorted(layout.items())],
            "retinue": retinue, "proposal": proposed, "due": due}


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
        upgrades = [{"rank": p["rank"], "text": p["upgrade"], "round": ctx.round} for p in steps["promotions"] if p["model_id"] == m.model_id]
        changes.append(ModelChange(m.model_id, status, miss_round, m.xp + gains.get(m.model_id, 0),
                                   max([m.rank] + [u["rank"] for u in upgrades]), texts, upgrades))
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

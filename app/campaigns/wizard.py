"""The wizard's steps (R1.1): which settings each step edits, and its form parsing."""

from __future__ import annotations

import re

from app.campaigns import house_rules
from app.campaigns.models import Campaign
from app.campaigns.rules import DEFAULT_GUILD, DEFAULT_MODULES, GUILD_TERMS, MODULE_KEYS
from app.campaigns.schemas import CasualtyDieForm
from app.campaigns.terms import CampaignMsg
from app.core.errors import N_
from app.core.forms import blank_to_none, typed, validate
from app.core.validation import Label

STEP_TITLES = {
    1: N_("Story"),
    2: N_("Players"),
    3: N_("Map"),
    4: N_("Gold"),
    5: N_("Warbands"),
    6: N_("Campaign modules"),
}
STEP_FIELDS: dict[int, tuple[str, ...]] = {
    1: ("name", "story"),
    2: ("max_players",),
    3: (),
    4: ("starting_gold", "round_income", "gold_per_point", "sale_loss_percent"),
    5: ("warband_points", "underdog_points_per_die"),
    6: ("modules", "guild", "alliance_fee"),
}
GUILD_NUMBERS = ("level_cost", "level_income", "max_level", "request_fee", "entry_fee")
# Each field's label, so that a problem names its field ("Campaign name is required.").
FIELD_LABELS = {
    "name": N_("Campaign name"),
    "story": N_("Story"),
    "cover": N_("Cover image"),
    "max_players": N_("Number of players"),
    "starting_gold": N_("Starting gold"),
    "round_income": N_("Income per round"),
    "gold_per_point": N_("Gold per point"),
    "sale_loss_percent": N_("Sale loss (%%)"),
    "warband_points": N_("Warband size in points"),
    "underdog_points_per_die": N_("Points of difference per Underdog die"),
    "modules.battle_size_limit": N_("Warbands per battle at most"),
    "guild.level_cost": N_("Cost per level"),
    "guild.level_income": N_("Income per level"),
    "guild.max_level": N_("Highest level"),
    "guild.request_fee": N_("Request fee"),
    "guild.entry_fee": N_("Entry fee"),
    "alliance_fee": N_("%(Alliance)s fee"),  # in the campaign's words (read_step)
    "settlement_rules.ranks": N_("Experience for each rank"),
    "settlement_rules.xp.taking_part": N_("Experience for taking part"),
    "settlement_rules.xp.per_enemy": N_("Experience per enemy model taken out"),
    "settlement_rules.xp.objective": N_("Experience for an objective"),
    "settlement_rules.xp.win": N_("Experience for the winning side"),
    "settlement_rules.xp.leader_bonus": N_("Experience the leader hands out"),
    "settlement_rules.retinue.free_retinue": N_("Free retinue models"),
    "settlement_rules.retinue.role_cost": N_("Points per further role"),
    "settlement_rules.casualty_table": N_("Casualty table"),
    "die": N_("Sides of the casualty die"),
}
# The form's own field of each setting (the schema nests them; the form does not).
FORM_FIELD = {
    "modules.battle_size_limit": "battle_size_limit",
    **{f"guild.{key}": f"guild_{key}" for key in GUILD_NUMBERS},
    "guild.term": "guild_term",
    **{f"settlement_rules.xp.{key}": f"xp_{key}" for key in house_rules.XP_KEYS},
    **{f"settlement_rules.retinue.{key}": f"retinue_{key}" for key in ("free_retinue", "role_cost")},
    "settlement_rules.ranks": "ranks",
    "settlement_rules.casualty_table": "casualty_table",
}
# The service's refusals that belong to one field of the form.
REFUSAL_FIELD = {"ranks_invalid": "settlement_rules.ranks", "casualty_table_invalid": "settlement_rules.casualty_table"}
# Every field of every step's form, as posted.
FORM_NAMES = (
    "name",
    "story",
    *(key for fields in STEP_FIELDS.values() for key in fields if key not in ("modules", "guild")),
    "modules_form",
    *(f"module_{key}" for key in MODULE_KEYS),
    "battle_size_limit",
    "guild_term",
    *(f"guild_{key}" for key in GUILD_NUMBERS),
    "settlement_form",
    "die",
    *(f"face_{face}" for face in range(1, house_rules.MAX_DIE + 1)),
    "ranks",
    *(f"xp_{key}" for key in house_rules.XP_KEYS),
    "retinue_free_retinue",
    "retinue_role_cost",
)
# The casualty table's choices in the wizard: a result, and "dead, items lost" (V12, V13).
FACE_CHOICES = ("recovered", "miss_next", "permanent", "dead", "dead_lost", "captured")


def _given(data: dict) -> dict:
    """The fields filled in: a blank one is left unchanged."""
    return {k: v for k, v in blank_to_none(data).items() if v is not None}


def settlement_changes(posted: dict, die: int | None) -> dict:
    """Step 5's settlement settings (casualty table, experience, ranks, retinue) as a change;
    the table only when the die's sides are known. The schema checks every value."""
    changes: dict = {}
    if die is not None:
        # A face the form did not show yet (the die grew) starts as "recovered".
        choices = [posted.get(f"face_{face}") or "recovered" for face in range(1, die + 1)]
        changes["casualty_table"] = [
            {"result": "dead" if c == "dead_lost" else c, "items_lost": c == "dead_lost"} for c in choices
        ]
    ranks = [t for t in re.split(r"[\s/,;]+", posted.get("ranks", "")) if t]
    changes["ranks"] = ranks or None
    changes["xp"] = _given({key: posted.get(f"xp_{key}") for key in house_rules.XP_KEYS})
    changes["retinue"] = _given({key: posted.get(f"retinue_{key}") for key in ("free_retinue", "role_cost")})
    return changes


def form_changes(step: int, posted: dict, die: int | None = None) -> dict:
    """The form of one step, as posted, as a settings change (blank numbers are left unchanged)."""
    if step == 6:
        # The alliance fee stays editable while running (manual ch. 9 fixes only modules,
        # guild amounts and the battle limit); a disabled fieldset submits none of those.
        data = _given({"alliance_fee": posted.get("alliance_fee")})
        if posted.get("modules_form") == "1":
            modules = {key: posted.get(f"module_{key}") == "on" for key in MODULE_KEYS}
            modules["battle_size_limit"] = blank_to_none(posted).get("battle_size_limit")  # blank: no limit
            guild = _given({"term": posted.get("guild_term"), **{key: posted.get(f"guild_{key}") for key in GUILD_NUMBERS}})
            data.update(modules=modules, guild=guild)
        return data
    if step == 1:
        return {"name": posted.get("name", ""), "story": posted.get("story", "")}
    data = _given({key: posted.get(key) for key in STEP_FIELDS[step]})
    if step == 5 and posted.get("settlement_form") == "1":
        data["settlement_rules"] = settlement_changes(posted, die)
    return data


def read_step(request, step: int, form, schema, term: str | None = None) -> tuple[dict, object, dict[str, str]]:
    """One step's form checked by the API's `schema`: (what was posted, to show again; the
    change, or None; every problem by the form's field, named by its label — the fee's in the
    campaign's words, `term` being its guild word)."""
    labels: dict[str, Label] = {**FIELD_LABELS, "alliance_fee": CampaignMsg(term or "guild", FIELD_LABELS["alliance_fee"])}
    posted = typed(form, *FORM_NAMES)
    die: int | None = None
    errors: dict[str, str] = {}
    if step == 5 and posted.get("settlement_form") == "1":
        body, errors = validate(request, CasualtyDieForm, _given({"die": posted.get("die")}), labels)
        die = body.die if body else None
    model, problems = validate(request, schema, form_changes(step, posted, die), labels)
    return posted, model, {**{FORM_FIELD.get(k, k): v for k, v in problems.items()}, **errors}


def wizard_context(campaign: Campaign | None, step: int) -> dict:
    return {
        "step": step,
        "steps": STEP_TITLES,
        "reached": campaign.wizard_step if campaign else 1,
        "module_keys": MODULE_KEYS,
        "modules": {**DEFAULT_MODULES, **(campaign.modules if campaign else {})},
        "guild": {**DEFAULT_GUILD, **(campaign.guild if campaign else {})},
        "guild_terms": GUILD_TERMS,
        "house": house_rules.of(campaign.settlement_rules if campaign else {}),
        "face_choices": FACE_CHOICES,
        "RESULT_NAMES": house_rules.RESULT_NAMES,
        "XP_LABELS": {key: FIELD_LABELS[f"settlement_rules.xp.{key}"] for key in house_rules.XP_KEYS},
        "tab": "setup",
    }

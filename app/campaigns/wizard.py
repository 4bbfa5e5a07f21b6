"""The wizard's steps (R1.1): which settings each step edits, and its form parsing."""
from __future__ import annotations

from app.campaigns.models import Campaign
from app.campaigns.rules import DEFAULT_GUILD, DEFAULT_MODULES, GUILD_TERMS, MODULE_KEYS
from app.core.errors import N_
from app.core.forms import blank_to_none

STEP_TITLES = {
    1: N_("Story"),
    2: N_("Players"),
    3: N_("Map"),
    4: N_("Gold"),
    5: N_("Warbands"),
    6: N_("Modules"),
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


def form_changes(step: int, form) -> dict:
    """The form of one step as a settings change (blank numbers are left unchanged)."""
    if step == 6:
        # A disabled fieldset (settings fixed once running) submits nothing of this step.
        if form.get("modules_form") != "1":
            return {}
        modules = {key: form.get(f"module_{key}") == "on" for key in MODULE_KEYS}
        limit = str(form.get("battle_size_limit", "")).strip()
        modules["battle_size_limit"] = limit or None
        guild = {"term": form.get("guild_term") or None}
        guild.update({key: str(form.get(f"guild_{key}", "")).strip() or None for key in GUILD_NUMBERS})
        data = {
            "modules": modules,
            "guild": {k: v for k, v in guild.items() if v is not None},
            "alliance_fee": str(form.get("alliance_fee", "")).strip() or None,
        }
        return {k: v for k, v in data.items() if v is not None}
    data = {key: form.get(key) for key in STEP_FIELDS[step] if key in form}
    if step == 1:
        data["story"] = str(form.get("story", ""))
        return {"name": str(form.get("name", "")), "story": data["story"]}
    return {k: v for k, v in blank_to_none(data).items() if v is not None}


def wizard_context(campaign: Campaign | None, step: int) -> dict:
    return {
        "step": step,
        "steps": STEP_TITLES,
        "reached": campaign.wizard_step if campaign else 1,
        "module_keys": MODULE_KEYS,
        "modules": {**DEFAULT_MODULES, **(campaign.modules if campaign else {})},
        "guild": {**DEFAULT_GUILD, **(campaign.guild if campaign else {})},
        "guild_terms": GUILD_TERMS,
        "tab": "setup",
    }

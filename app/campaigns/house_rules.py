"""The campaign's settlement settings (V12, V14, V15, V16): the casualty table, the experience
awards, the rank thresholds and the retinue's cost. The rulebook's tables are Mantic's text,
so the service ships plain *house defaults* that the GM may replace in the wizard; they are
campaign settings, so they live with the campaign, and the settlement rules read them."""

from __future__ import annotations

from copy import deepcopy
from itertools import pairwise
from typing import Any

from app.core.errors import N_, DomainError
from app.core.types import whole_number

# Casualty results (V12), in the order the pages offer them.
RESULTS = ("recovered", "miss_next", "permanent", "dead", "captured")
RESULT_NAMES = {
    "recovered": N_("recovered"),
    "miss_next": N_("misses the next battle"),
    "permanent": N_("permanent injury"),
    "dead": N_("dead"),
    "captured": N_("captured"),
}
MIN_DIE, MAX_DIE = 2, 20
XP_KEYS = ("taking_part", "per_enemy", "objective", "win", "leader_bonus")
XP_NAMES = {
    "taking_part": N_("for taking part"),
    "per_enemy": N_("per enemy model taken out"),
    "objective": N_("for an objective"),
    "win": N_("for the winning side"),
    "leader_bonus": N_("the leader hands out"),
}
MAX_XP_AWARD = 20
MAX_RANKS = 10

# House defaults. A D10 per taken-out model: 1 dead with its items lost, 2 dead, 3 captured,
# 4 a permanent injury, 5-6 misses the next battle, 7-10 recovered.
DEFAULT_CASUALTY_TABLE = (
    [
        {"result": "dead", "items_lost": True},
        {"result": "dead", "items_lost": False},
        {"result": "captured", "items_lost": False},
        {"result": "permanent", "items_lost": False},
    ]
    + [{"result": "miss_next", "items_lost": False}] * 2
    + [{"result": "recovered", "items_lost": False}] * 4
)
DEFAULTS: dict[str, Any] = {
    "casualty_table": DEFAULT_CASUALTY_TABLE,
    # V14: 1 for taking part, 1 per enemy model taken out, 1 for an objective, 1 for the
    # winning side; the leader hands out 2 more.
    "xp": {"taking_part": 1, "per_enemy": 1, "objective": 1, "win": 1, "leader_bonus": 2},
    # V15: experience at which a model reaches ranks 1-5.
    "ranks": [5, 10, 16, 23, 31],
    # V16: the leader and one retinue model are free; each further role costs 3 points of
    # the warband limit.
    "retinue": {"free_retinue": 1, "role_cost": 3},
}


def of(stored: dict | None) -> dict:
    """The campaign's settings with the house defaults filled in."""
    stored = stored or {}
    result = deepcopy(DEFAULTS)
    for key in ("casualty_table", "ranks"):
        if stored.get(key):
            result[key] = deepcopy(stored[key])
    for key in ("xp", "retinue"):
        result[key].update(stored.get(key) or {})
    return result


def normalize(current: dict | None, changes: dict) -> dict:
    """Validates a change of any part of the settings (null keeps a part as it was)."""
    result = of(current)
    table = changes.get("casualty_table")
    if table is not None:
        if not isinstance(table, list) or not MIN_DIE <= len(table) <= MAX_DIE:
            raise DomainError("casualty_table_invalid", min=MIN_DIE, max=MAX_DIE)
        faces = []
        for face in table:
            if not isinstance(face, dict) or face.get("result") not in RESULTS:
                raise DomainError("casualty_table_invalid", min=MIN_DIE, max=MAX_DIE)
            faces.append({"result": face["result"], "items_lost": bool(face.get("items_lost")) and face["result"] == "dead"})
        result["casualty_table"] = faces
    ranks = changes.get("ranks")
    if ranks is not None:
        if (
            not isinstance(ranks, list)
            or not 1 <= len(ranks) <= MAX_RANKS
            or any(isinstance(r, bool) or not isinstance(r, int) or r < 1 for r in ranks)
            or any(b <= a for a, b in pairwise(ranks))
        ):
            raise DomainError("ranks_invalid", max=MAX_RANKS)
        result["ranks"] = list(ranks)
    for key, value in (changes.get("xp") or {}).items():
        if key in XP_KEYS and value is not None:
            result["xp"][key] = whole_number(value, 0, MAX_XP_AWARD)
    for key, value in (changes.get("retinue") or {}).items():
        if key in ("free_retinue", "role_cost") and value is not None:
            result["retinue"][key] = whole_number(value, 0, 100)
    return result


def retinue_cost(retinue_size: int, settings: dict) -> int:
    """V16 (house default): the leader and `free_retinue` retinue models are free; each
    further role costs `role_cost` points of the warband limit."""
    rules = settings["retinue"]
    return max(0, retinue_size - rules["free_retinue"]) * rules["role_cost"]


def table_text(table: list[dict]) -> list[tuple[str, str, bool]]:
    """The casualty table as rows of (faces, result, items lost), runs of equal faces
    joined: [("1", "dead", True), ("5-6", "miss_next", False), ...] — for the Rules tab."""
    rows: list[tuple[int, int, dict]] = []
    for face, entry in enumerate(table, start=1):
        if rows and rows[-1][2] == entry:
            rows[-1] = (rows[-1][0], face, entry)
        else:
            rows.append((face, face, entry))
    return [(str(a) if a == b else f"{a}-{b}", e["result"], bool(e.get("items_lost"))) for a, b, e in rows]

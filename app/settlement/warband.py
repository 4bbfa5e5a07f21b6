"""The warband as its settlement sees it (R7.1, V11): the six steps' names, the models that
fought and the company's others, the items they carry, the battle's result; and the checks
every step shares (a model of this warband, a short text)."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.campaigns import house_rules
from app.core.errors import N_, DomainError

STEPS = ("course", "injuries", "equipment", "experience", "promotions", "retinue")
RESULTS = ("won", "lost", "draw")
RESULT_NAMES = {"won": N_("won"), "lost": N_("lost"), "draw": N_("a draw")}
STEP_NAMES = {
    "course": N_("Course of the battle"),
    "injuries": N_("Injuries"),
    "equipment": N_("Equipment"),
    "experience": N_("Experience"),
    "promotions": N_("Promotions"),
    "retinue": N_("Retinue"),
}
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

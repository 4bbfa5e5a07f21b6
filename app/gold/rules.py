"""Pure gold rules (R3.2, R3.4, R3.8)."""

from __future__ import annotations

from app.core.errors import N_

KINDS = {
    "start": N_("Starting gold"),
    "income": N_("Round income"),
    "place_income": N_("Place income"),
    "guild_income": N_("%(Guild)s income"),
    "purchase": N_("Purchase"),
    "sale": N_("Sale"),
    "mercenary_fee": N_("Mercenary fee"),
    "guild_fee": N_("%(Guild)s fee"),
    "alliance_fee": N_("%(Alliance)s fee"),
    "transfer": N_("Transfer"),
    "gm_adjustment": N_("Game master's adjustment"),
    "ransom": N_("Ransom"),
}


def price(points: int, gold_per_point: int) -> int:
    """R3.2: points × the campaign's gold per point."""
    return points * gold_per_point


def refund(paid: int, *, confirmed: bool, sale_loss_percent: int) -> int:
    """R3.4: the full price before the company is confirmed, less the sale loss after."""
    if not confirmed:
        return paid
    return paid * (100 - sale_loss_percent) // 100

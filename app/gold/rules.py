"""Pure gold rules (R3.2, R3.4, R3.8)."""

from __future__ import annotations

from app.campaigns.rules import orders_public
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


# Ledger entries nobody but their owner sees (R11.2): gold transfers, always (R8.11), and the
# mission-alliance fees of a round whose Battles have not begun (R8.8). Said in SQL by
# app/visibility/'s `_hidden_entries`, in Python by `seen_by_owner_alone`.
OWNERS_ALONE = "transfer"
OWNERS_BEFORE_BATTLES = "alliance_fee"


def seen_by_owner_alone(campaign, kind: str, round_: int) -> bool:
    return kind == OWNERS_ALONE or (
        kind == OWNERS_BEFORE_BATTLES and round_ == campaign.round and not orders_public(campaign, round_)
    )


def gms_see_balances(campaign) -> bool:
    """R11.2: the GMs see a balance unless the gold transfers module is on (any figure would then
    be worked out from transfers they may not see)."""
    return not (campaign.modules or {}).get("gold_transfers")

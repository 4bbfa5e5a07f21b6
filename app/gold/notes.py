"""Ledger notes in the reader's language (R3.8, R11.3), at the edge (pages and API)."""

from __future__ import annotations

from app.core.errors import N_
from app.gold.models import LedgerEntry

# The notes written with parameters: the only ones ever formatted (issue 28). Any other note is
# text as typed (a GM's reason, a model's or a place's name) and is shown as it is, so that a
# note from an imported document cannot act as a format string ("%(x)99999999s").
# tests/security/test_hostile_import.py checks that every `note=N_(…)` of app/ is here.
NOTES = frozenset(
    {
        N_("%(event)s"),
        N_("Refund · %(event)s"),
        N_("%(mercenary)s · %(warband)s"),
        N_("Refund · %(warband)s"),
        N_("%(model)s · to %(player)s"),
        N_("%(model)s · from %(player)s"),
        N_("Founding · %(name)s"),
        N_("Request to join · %(name)s"),
        N_("Level %(level)s · %(name)s"),
        N_("%(name)s, level %(level)s"),
        N_("Entry fee · %(name)s"),
        N_("Faction change: %(old)s → %(new)s"),
        N_("To %(player)s"),
        N_("To %(player)s: %(note)s"),
        N_("From %(player)s"),
        N_("From %(player)s: %(note)s"),
    }
)


def note_text(entry: LedgerEntry, gettext) -> str:
    """A ledger note in the reader's language (R3.8, R11.3)."""
    if not entry.params or not isinstance(entry.params, dict) or entry.note not in NOTES:
        return entry.note
    try:
        return gettext(entry.note) % entry.params
    except (KeyError, TypeError, ValueError):
        return entry.note

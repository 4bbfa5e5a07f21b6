"""Ledger notes in the reader's language (R3.8, R11.3), at the edge (pages and API)."""
from __future__ import annotations

from app.gold.models import LedgerEntry

def note_text(entry: LedgerEntry, gettext) -> str:
    """A ledger note in the reader's language (R3.8, R11.3)."""
    if not entry.params:
        return entry.note
    try:
        return gettext(entry.note) % entry.params
    except (KeyError, TypeError, ValueError):
        return entry.note

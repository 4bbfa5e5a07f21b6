"""Issue 37, SPEC R11.2: every table's audience is decided in app/versions/rules.py. A page's
revalidation is answered from memory while the viewer's counters stand, so a new table whose
changes moved the wrong seats would either leave pages stale or tell others of a secret by a
revalidation's timing: it must be placed in one set on purpose."""

from __future__ import annotations

from sqlmodel import SQLModel

import app.models
from app.versions import rules


def test_every_table_has_one_decided_audience():
    sets = {
        "ignored": set(rules.IGNORED),
        "owned": set(rules.OWNED),
        "game masters only": rules.GMS_ONLY,
        "a rule of its own": rules.RULED,
        "every member": rules.EVERY_MEMBER,
    }
    tables = set(SQLModel.metadata.tables)
    placed = {table: [name for name, members in sets.items() if table in members] for table in tables}
    assert not [t for t, where in placed.items() if not where], "tables with no audience decided"
    assert not {t: where for t, where in placed.items() if len(where) > 1}, "tables placed twice"
    assert not set().union(*sets.values()) - tables, "sets naming tables that do not exist"

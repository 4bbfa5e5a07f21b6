"""Counting the SQL statements an engine runs (tests' `count_statements`, and
bench/page_statements.py): reads and writes, not BEGIN, COMMIT or PRAGMA."""

from __future__ import annotations

import re

from sqlalchemy import event


class StatementCounter:
    def __init__(self, engine):
        self.engine = engine
        self.count = 0
        self.statements: list[str] = []

    def _on_execute(self, conn, cursor, statement, parameters, context, executemany):
        # The suite's check of the revalidation reads a key before every campaign page
        # (`Settings.revalidation_check`): not the page's work.
        if context is not None and context.execution_options.get("revalidation_check"):
            return
        if re.match(r"\s*(SELECT|INSERT|UPDATE|DELETE)", statement, re.I):
            self.count += 1
            self.statements.append(statement)

    def __enter__(self):
        self.count = 0
        self.statements = []
        event.listen(self.engine, "before_cursor_execute", self._on_execute)
        return self

    def __exit__(self, *exc):
        event.remove(self.engine, "before_cursor_execute", self._on_execute)

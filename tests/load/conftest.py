from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items) -> None:
    """Every test here is slow (servers started and killed, races, faults): `make test` runs
    them after the fast suites (tests/conftest.py orders them last, slowest first)."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.load)

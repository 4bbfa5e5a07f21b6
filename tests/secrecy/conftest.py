from __future__ import annotations

import pytest

from tests.secrecy.world import Cast, kept


@pytest.fixture
def cast(client, make_client, engine) -> Cast:
    """The six roles and three planted campaigns of tests/secrecy/world.py, built once per
    worker and written back for the tests after (tests/builders/memo.py)."""
    return kept(client, make_client, engine)

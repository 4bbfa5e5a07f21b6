from __future__ import annotations

import pytest

from tests.builders import memo
from tests.secrecy.world import Cast, build


@pytest.fixture
def cast(client, make_client, engine) -> Cast:
    """The six roles and three planted campaigns of tests/secrecy/world.py, built once per
    worker and written back for the tests after (tests/builders/memo.py)."""
    return memo.kept_with_browsers("secrecy cast", lambda: build(client, make_client, engine), make_client, lambda c: c.pages)

from __future__ import annotations

import pytest

from tests.secrecy.world import Cast, build


@pytest.fixture
def cast(client, make_client, engine) -> Cast:
    """The six roles and three planted campaigns of tests/secrecy/world.py."""
    return build(client, make_client, engine)

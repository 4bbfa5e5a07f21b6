"""R11.5: a NUL in the query is refused before any route runs, read off the raw query string
from which the parameters are parsed (issue 37 reads it off the scope, not off a parsed URL)."""

import asyncio

import pytest
from starlette.requests import Request

from app.core.errors import DomainError
from app.core.nul import reject_nul


def _get(path: str, query: bytes) -> Request:
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query, "headers": [], "root_path": ""}
    return Request(scope)


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/campaigns/1", b"x=%00"),
        # A URL's query stops at a `#`; the parameters, parsed from the raw string, do not.
        ("/campaigns/1", b"x=1#y=%00"),
        ("/campaigns/\x00", b""),
    ],
)
def test_r11_5_a_nul_in_the_path_or_the_raw_query_is_refused(path, query):
    with pytest.raises(DomainError) as refused:
        asyncio.run(reject_nul(_get(path, query)))
    assert refused.value.code == "text_nul"


def test_r11_5_a_plain_get_passes():
    assert asyncio.run(reject_nul(_get("/campaigns/1", b"x=%2000&y=0"))) is None

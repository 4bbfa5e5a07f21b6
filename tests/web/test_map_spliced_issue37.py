"""Issue 37: the map page goes out gzipped from its parts, its drawing compressed once and kept
(app/core/spliced.py). What the browser receives is the very page it received before: the same
bytes compressed or not, the same ETag, the same 304."""

from __future__ import annotations

import gzip

from app.core import spliced
from bench import large_campaign
from tests.builders.pages import register


def _raw(client, url: str, **headers) -> tuple[dict, bytes]:
    with client.stream("GET", url, headers=headers) as answer:
        return dict(answer.headers), b"".join(answer.iter_raw())


def test_issue37_the_map_page_is_the_same_page_gzipped_from_its_parts_or_not(client, engine, monkeypatch):
    register(client, "gamemaster")
    cid = large_campaign.build_map(engine, gm_nickname="gamemaster", places=40, paths=60, players=4)
    client.get("/")  # the welcome message, shown once
    url = f"/campaigns/{cid}/map"
    deflated = []
    real = spliced._deflated
    monkeypatch.setattr(spliced, "_deflated", lambda data, level, mode: deflated.append(level) or real(data, level, mode))

    zipped_headers, zipped = _raw(client, url, **{"Accept-Encoding": "gzip"})
    plain_headers, plain = _raw(client, url, **{"Accept-Encoding": "identity"})
    assert zipped_headers["content-encoding"] == "gzip" and "content-encoding" not in plain_headers
    assert gzip.decompress(zipped) == plain and b"Place 039" in plain
    assert int(zipped_headers["content-length"]) == len(zipped) and zipped_headers["vary"] == "Accept-Encoding"
    assert zipped_headers["etag"] == plain_headers["etag"]
    assert len(zipped) < len(plain) // 3
    # The drawing's three fragments were deflated for the first page only.
    _raw(client, url, **{"Accept-Encoding": "gzip"})
    assert deflated.count(spliced.KEPT_LEVEL) == 3

    again = client.get(url, headers={"If-None-Match": zipped_headers["etag"], "Accept-Encoding": "gzip"})
    assert again.status_code == 304 and again.content == b"" and "content-encoding" not in again.headers


def test_issue37_a_page_without_kept_fragments_is_compressed_as_before(client, engine):
    register(client, "gamemaster")
    cid = large_campaign.build_map(engine, gm_nickname="gamemaster", places=10, paths=10, players=2)
    headers, zipped = _raw(client, f"/campaigns/{cid}/players", **{"Accept-Encoding": "gzip"})
    assert headers["content-encoding"] == "gzip" and b"gamemaster" in gzip.decompress(zipped)

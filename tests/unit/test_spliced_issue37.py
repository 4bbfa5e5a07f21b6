"""Issue 37: a page's kept fragments (a map's drawing) are compressed once and spliced into each
page's gzip stream; the stream is a valid gzip member of exactly the page's bytes, whatever the
parts, and nothing a user writes can pass for a fragment's marker."""

from __future__ import annotations

import asyncio
import gzip

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup, escape

from app.core import spliced
from app.core.spliced import Kept, SplicedGzip, cut, drawing, gzipped

_TEXT = st.text(st.characters(codec="utf-8"), max_size=3000)
_PARTS = st.lists(st.one_of(_TEXT, _TEXT.map(Kept)), max_size=8)


@given(_PARTS, st.integers(1, 9))
def test_issue37_the_spliced_stream_is_one_gzip_member_of_the_pages_bytes(parts, level):
    compressed, size = gzipped(parts, level)
    page = "".join(parts).encode()
    assert gzip.decompress(compressed) == page and size == len(page)


@given(_PARTS)
def test_issue37_a_page_drawn_with_kept_fragments_is_cut_into_its_parts_and_joins_back(parts):
    with drawing() as found:
        html = "".join(str(escape(p)) if isinstance(p, Kept) else p for p in parts)
    cut_parts = cut(html, found)
    expected = "".join(parts)
    if any(isinstance(p, Kept) for p in parts):
        assert "".join(cut_parts) == expected
        assert [p for p in cut_parts if isinstance(p, Kept)] == [p for p in parts if isinstance(p, Kept)]
    else:
        assert cut_parts == [] and html == expected


def test_issue37_outside_a_page_a_kept_fragment_is_plain_markup():
    kept = Kept("<g>a</g>")
    assert escape(kept) == Markup("<g>a</g>") and str(Markup(kept)) == "<g>a</g>"


def test_issue37_a_users_text_shaped_like_a_marker_is_not_cut():
    # The marker holds a secret of the process: a name typed to look like one stays text.
    forged = f"\ue000{'0' * 24}:1\ue001"
    kept = Kept("<p>x</p>")
    with drawing() as found:
        html = str(escape(forged)) + str(escape(kept))
    parts = cut(html, found)
    assert parts[0] == forged and parts[1] is kept and "".join(parts) == forged + "<p>x</p>"


def test_issue37_a_fragment_is_deflated_once_however_many_pages_send_it(monkeypatch):
    calls = []
    real = spliced._deflated
    monkeypatch.setattr(spliced, "_deflated", lambda data, level, mode: calls.append(level) or real(data, level, mode))
    kept = Kept("<path/>" * 500)
    for _ in range(3):
        assert gzip.decompress(gzipped(["a", kept, "b"], 5)[0]) == ("a" + "<path/>" * 500 + "b").encode()
    assert calls.count(spliced.KEPT_LEVEL) == 1 and calls.count(5) == 6
    # Made where it is drawn (a worker thread), not first on its way out through the event loop.
    made = Kept.made(Markup("<circle/>"))
    assert calls.count(spliced.KEPT_LEVEL) == 2
    gzipped([made], 5)
    assert calls.count(spliced.KEPT_LEVEL) == 2


def _answer(body: bytes, parts, accept: str = "gzip") -> tuple[dict, bytes]:
    """SplicedGzip around an app answering `body` with `parts` in the request's state."""

    async def app(scope, receive, send):
        scope["state"][spliced.STATE_KEY] = parts
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    sent = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "headers": [(b"accept-encoding", accept.encode())], "state": {}}
    asyncio.run(SplicedGzip(app, level=5)(scope, None, send))
    return {k.decode(): v.decode() for k, v in sent[0]["headers"]}, sent[1]["body"]


def test_issue37_the_middleware_sends_the_spliced_page_to_a_client_that_takes_gzip():
    parts = ["<html>", Kept("<svg>" + "<line/>" * 300 + "</svg>"), "</html>"]
    page = "".join(parts).encode()
    headers, body = _answer(page, parts)
    assert headers["content-encoding"] == "gzip" and headers["vary"] == "Accept-Encoding"
    assert int(headers["content-length"]) == len(body) and gzip.decompress(body) == page


def test_issue37_the_middleware_leaves_other_answers_and_clients_alone():
    parts = ["<html>", Kept("<svg/>"), "</html>"]
    page = "".join(parts).encode()
    assert _answer(page, parts, accept="identity") == ({"content-type": "text/html"}, page)
    # A body that is not the parts' (changed on its way) goes on as it is, for the usual compression.
    assert _answer(page + b"!", parts) == ({"content-type": "text/html"}, page + b"!")

"""R12.8 with R11.2: a co-GM is the GM's equal in what they may see — no more, no less. In the
secrecy matrix's planted worlds (orders, settlements, ledgers, a mission alliance before
Battles, transfers, letters), a co-GM added to each campaign gets, on every readable API
route of the matrix, exactly the GM's answer (status and body). The GM's secrets-limits are
checked for the GM by the matrix itself (tests/secrecy/test_matrix.py), so the co-GM has them."""

from __future__ import annotations

import json

from tests.builders.accounts import register, token_headers
from tests.secrecy.matrix import API, MATRIX, Read
from tests.secrecy.test_matrix import url_for
from tests.secrecy.world import Cast

# Answers that name who asks, not what they may see.
ABOUT_THE_CALLER = ("/me", "/calendar-link")


def _add_co_gm(client, c: Cast) -> dict:
    register(client, "mx-cogm")
    headers = token_headers(client, "mx-cogm")
    for w in c.worlds.values():
        r = client.post(f"{API}/campaigns/{w.cid}/game-masters", json={"nickname": "mx-cogm"}, headers=c.api["gm"])
        assert r.status_code == 201, r.text
    return headers


def _body(r) -> object:
    text = r.text
    return json.loads(text) if text.lstrip().startswith(("{", "[")) else text


def test_r12_8_r11_2_a_co_gm_reads_every_api_route_exactly_as_the_gm(cast, client):
    co = _add_co_gm(client, cast)
    browser = cast.pages["anonymous"]
    compared = 0
    for (method, path), entry in sorted(MATRIX.items()):
        if method != "GET" or not isinstance(entry, Read) or entry.surface != "api" or path.endswith(ABOUT_THE_CALLER):
            continue
        if "gm" not in entry.who and not any(v.who and "gm" in v.who for v in entry.variants):
            continue
        for w in cast.worlds.values():
            for variant in entry.variants:
                url = url_for(path, w, variant.params, variant.query)
                if url is None:
                    continue
                as_gm, as_co = browser.get(url, headers=cast.api["gm"]), browser.get(url, headers=co)
                assert (as_co.status_code, _body(as_co)) == (as_gm.status_code, _body(as_gm)), (w.name, url)
                compared += 1
    assert compared > 40

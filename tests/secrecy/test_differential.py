"""R11.2, last paragraph (issue 27 item 7): no side channel. For every readable route of the
matrix (pages, htmx partials, the API, the live stream's replay) and every role that may not
see a secret, the answer — its status, its body and every header — is byte for byte the same
before and after another role's secret action: an order sent, a purchase, a GM reward, a GM
adjustment, a gold transfer, a letter, a mission alliance before Battles (made in two
groups, by who may not see them).

Headers left out, each varying with every request and never with anyone's secrets:
`X-Request-ID` (a fresh id per request, app/core/logging.py) and `Date` (the server's clock;
uvicorn adds it, the test client does not). `Set-Cookie` is compared: a page sets a cookie
only when its own browser needs one (CSRF, flash, an ended session), never because of others.
The ETag is compared too: it was made of the campaign's change counters, which every secret
action moved."""

from __future__ import annotations

import pytest

from app.core import page_cache
from app.core.db import unit_of_work
from app.versions.service import versions
from tests.secrecy.matrix import API, MATRIX, Read
from tests.secrecy.test_matrix import _get, url_for
from tests.secrecy.world import Cast, World

VARYING = {"x-request-id", "date"}
OUTSIDERS = ("outsider", "anonymous")


def _answers(cast: Cast, world: World, roles, only=None) -> dict:
    """(status, headers, body) of every readable route (or those of `only`) as each role gets it."""
    answers = {}
    for (method, path), entry in sorted(MATRIX.items()):
        if not isinstance(entry, Read) or entry.surface in ("docs", "media") or (only is not None and path not in only):
            continue
        for variant in entry.variants:
            url = url_for(path, world, variant.params, variant.query)
            if url is None:
                continue
            for role in roles:
                for htmx in (False,) if path.startswith(API) else (False, True):
                    r = _get(cast, role, url, api=path.startswith(API), htmx=htmx)
                    headers = sorted((k, v) for k, v in r.headers.multi_items() if k.lower() not in VARYING)
                    answers[(url, role, htmx)] = (r.status_code, headers, r.content)
    return answers


def _ok(r, status: int) -> dict:
    assert r.status_code == status, (r.request.method, r.request.url, r.text[:300])
    return r.json() if r.content else {}


# Each secret action, a request against the orders world (Orders phase, before Battles).
def _order(client, c: Cast, w: World):
    _ok(
        client.put(
            f"/api/v1/campaigns/{w.cid}/warbands/{w.ids['warband_home']}/order",
            json={"place_id": w.ids["place_a"]},
            headers=c.api["owner"],
        ),
        200,
    )


def _purchase(client, c: Cast, w: World):
    _ok(client.post(f"/api/v1/campaigns/{w.cid}/company/models", json={"profile": "orcs.ax"}, headers=c.api["owner"]), 201)


def _reward(client, c: Cast, w: World):
    _ok(
        client.post(
            f"/api/v1/campaigns/{w.cid}/rewards",
            json={"player_id": w.ids["owner_player"], "item": "item.bandages"},
            headers=c.api["gm"],
        ),
        201,
    )


def _adjustment(client, c: Cast, w: World):
    _ok(
        client.post(
            f"/api/v1/campaigns/{w.cid}/ledger/adjustments",
            headers=c.api["gm"],
            json={"player_id": w.ids["owner_player"], "amount": 11, "reason": "A secret bonus"},
        ),
        201,
    )


def _transfer(client, c: Cast, w: World):
    _ok(
        client.post(
            f"/api/v1/campaigns/{w.cid}/transfers",
            headers=c.api["ally"],
            json={"to_player_id": w.ids["owner_player"], "amount": 5, "note": "Between us"},
        ),
        201,
    )


def _letter(client, c: Cast, w: World):
    _ok(
        client.post(
            f"/api/v1/campaigns/{w.cid}/letters",
            headers=c.api["ally"],
            json={"to_player_id": w.ids["owner_player"], "subject": "Tonight", "body": "Between us"},
        ),
        201,
    )


def _alliance(client, c: Cast, w: World):
    made = _ok(
        client.post(
            f"/api/v1/campaigns/{w.cid}/alliances",
            headers=c.api["ally"],
            json={"event_id": w.ids["event_b"], "invite_player_ids": [w.ids["owner_player"]]},
        ),
        201,
    )
    _ok(client.post(f"/api/v1/campaigns/{w.cid}/alliances/{made['id']}/accept", headers=c.api["owner"]), 200)


# Two audiences: what the GM does not see either (transfers, letters between players, mission
# alliances before Battles: R8.8, R8.11, R8.12), then what only the owner and the GM see
# (orders, the company, gold: R11.2). In the orders world the invited user's invitation has
# lapsed: they are an outsider there, and are read as one. Each action names the owner's page
# that must show it (it did something the walk could see).
SECRETS = (
    (
        ("other", "gm", *OUTSIDERS),
        {
            "gold transfer": (_transfer, "ledger"),
            "letter": (_letter, "letters"),
            "mission alliance before Battles": (_alliance, "alliances"),
        },
    ),
    (
        ("other", *OUTSIDERS),
        {
            "order sent": (_order, "orders"),
            "purchase": (_purchase, "company"),
            "GM reward": (_reward, "company"),
            "GM adjustment": (_adjustment, "ledger"),
        },
    ),
)


def _differences(name: str, before: dict, after: dict) -> list[str]:
    found = []
    for key, answer in before.items():
        if after[key] != answer:
            url, role, htmx = key
            parts = [label for label, i in (("status", 0), ("headers", 1), ("body", 2)) if after[key][i] != answer[i]]
            if "headers" in parts:
                parts[parts.index("headers")] = "headers " + ", ".join(
                    sorted({k for k, _ in set(answer[1]) ^ set(after[key][1])})
                )
            found.append(f"{name}: GET {url}{' (htmx)' if htmx else ''} as {role}: {' and '.join(parts)} changed")
    return found


@pytest.mark.load
def test_r11_2_no_side_channel_every_answer_is_the_same_byte_for_byte_after_others_secrets(cast, client):
    """One planted world; every route is read as every role of an audience, the audience's
    secret actions are made, and every route is read again. The reading after the first
    audience's actions is the reading before the second's (each walk of the whole matrix
    costs seconds: three walks keep the test within a minute)."""
    world = cast.worlds["orders"]
    cast.pages["anonymous"].get("/login")  # its CSRF cookie, set once, before the first reading
    changed: list[str] = []
    before = _answers(cast, world, SECRETS[0][0])
    for onlookers, actions in SECRETS:
        before = {key: answer for key, answer in before.items() if key[1] in onlookers}
        for name, (act, shown_on) in actions.items():
            mine = cast.pages["owner"].get(f"/campaigns/{world.cid}/{shown_on}")
            act(client, cast, world)
            again = cast.pages["owner"].get(f"/campaigns/{world.cid}/{shown_on}")
            assert again.status_code == 200 and again.content != mine.content, (
                f"{name}: the owner's {shown_on} page did not change"
            )
        after = _answers(cast, world, onlookers)
        changed += _differences(" + ".join(actions), before, after)
        before = after
    assert not changed, "what others did out of sight changed what these roles get:\n" + "\n".join(changed)


def test_r11_2_the_differential_walk_can_fail(cast, client, monkeypatch):
    """The walk sees a header that follows others' secrets: with the ETag made of the campaign's
    change counters again (as before issue 27 item 7), a GM adjustment of the owner's gold is
    seen by the other player in the ETag of every campaign page, though the page is the same."""

    def counters_etag(scope, body):
        with unit_of_work(scope["app"].state.engine, write=False) as session:
            return page_cache.body_etag(repr(versions(session, int(scope["path_params"]["cid"]))).encode())

    monkeypatch.setattr(page_cache, "page_etag_of", counters_etag)
    world = cast.worlds["orders"]
    only = {"/campaigns/{cid}", "/campaigns/{cid}/players", API + "/campaigns/{cid}"}
    before = _answers(cast, world, ("other",), only)
    _adjustment(client, cast, world)
    after = _answers(cast, world, ("other",), only)
    found = _differences("GM adjustment", before, after)
    assert f"GM adjustment: GET /campaigns/{world.cid} as other: headers etag changed" in found, found
    assert f"GM adjustment: GET /campaigns/{world.cid}/players (htmx) as other: headers etag changed" in found, found
    assert not any(API in line for line in found), found  # the API carries no ETag

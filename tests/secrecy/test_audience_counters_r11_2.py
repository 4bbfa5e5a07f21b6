"""SPEC R11.2, side channels, issue 37: a campaign page's revalidation is answered from memory
while its viewer's key stands (app/core/revalidation.py), so that key must move exactly when
something the viewer may see changed. Each secret action of the differential walk (an order,
a purchase, a GM reward and adjustment, a gold transfer, a letter, a mission alliance before
Battles) leaves the key of every role that may not see it as it was, and moves the key of
its owner, who sees it."""

from __future__ import annotations

import pytest

from app.accounts.revalidation import viewer_key
from app.core.security import SESSION_COOKIE
from app.versions import audience
from tests.secrecy.test_differential import SECRETS
from tests.secrecy.world import Cast

MEMBERS = ("owner", "other", "gm")


def _keys(app, cast: Cast, cid: int) -> dict:
    keys = {}
    for role in MEMBERS:
        browser = cast.pages.get(role)
        token = browser.cookies.get(SESSION_COOKIE) if browser is not None else None
        if token:
            keys[role] = viewer_key(app, token, cid)
    return keys


@pytest.mark.load
def test_r11_2_a_secret_moves_the_key_of_who_may_see_it_and_nobody_elses(app, cast, client):
    world = cast.worlds["orders"]
    for onlookers, actions in SECRETS:
        for name, (act, _shown_on) in actions.items():
            before = _keys(app, cast, world.cid)
            act(client, cast, world)
            after = _keys(app, cast, world.cid)
            for role in onlookers:
                if role in MEMBERS:  # outsiders are answered 404 whatever the keys; the ally has no browser
                    assert before[role] is not None, f"{role} has no key"
                    assert after[role] == before[role], f"{name}: the {role}'s key moved: {before[role]} -> {after[role]}"
            assert after["owner"] != before["owner"], f"{name}: the owner's key stood still"


@pytest.mark.load
def test_r11_2_the_counters_test_can_fail(app, cast, client, monkeypatch):
    """With every change placed in every member's row (as a campaign-wide counter would), a GM
    adjustment of the owner's gold moves the other player's key: the test above sees it."""
    real = audience._place

    def everyone(session, table, row, changed, seen, *later):
        real(session, table, row, changed, seen, *later)
        seen.everyone = True

    monkeypatch.setattr(audience, "_place", everyone)
    world = cast.worlds["orders"]
    before = _keys(app, cast, world.cid)
    SECRETS[1][1]["GM adjustment"][0](client, cast, world)
    after = _keys(app, cast, world.cid)
    assert after["other"] != before["other"]

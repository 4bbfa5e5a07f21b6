"""SPEC R11.2, side channels: when only someone else's secret changed, a viewer's page costs
the same work as before — the same SQL statements and the same templates drawn, not only the
same answer. A page answered from a memory of "nothing changed in the campaign" (issue 37
tried it first) was cheaper while nobody acted and dearer after a hidden act, so its timing
told a player that another had bought, written or sent something they cannot see. The memory
is now keyed by what the viewer may see (app/versions/audience.py): the revalidation after a
hidden act is answered from it as before."""

from __future__ import annotations

import pytest

from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy
from tests.builders.pages import login

PAGES = ("", "/map", "/players", "/battles", "/chronicle")


def _work(browser, url: str, etag: str, count_statements, drawn) -> tuple[int, int, list[str]]:
    drawn.clear()
    with count_statements() as counted:
        answer = browser.get(url, headers={"If-None-Match": etag})
    return answer.status_code, counted.count, list(drawn)


@pytest.mark.parametrize("page", PAGES)
def test_r11_2_a_hidden_purchase_changes_neither_the_answer_nor_the_work_of_a_revalidation(
    page, client, make_client, count_statements, drawn
):
    gm, cid, players, places = running_campaign(client, 2)
    anna = make_client()
    login(anna, "player0")
    anna.get("/")  # the login's flash message, shown and cleared
    url = f"/campaigns/{cid}{page}"
    etag = anna.get(url).headers["etag"]
    _work(anna, url, etag, count_statements, drawn)  # warm: what a first revalidation may still do once
    quiet = _work(anna, url, etag, count_statements, drawn)
    buy(client, cid, players[1], "orcs.krusher", faction="orcs")  # Borys's company: hidden from Anna
    after = _work(anna, url, etag, count_statements, drawn)
    assert quiet[0] == after[0] == 304
    assert after[1:] == quiet[1:], (
        f"{url}: {quiet[1]} statements and {len(quiet[2])} templates, after: {after[1]}, {len(after[2])}"
    )

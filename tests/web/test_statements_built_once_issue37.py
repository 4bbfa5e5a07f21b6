"""Issue 37: a page's statements are built once, with bind parameters, not anew on each visit
(building one cost each request about 80 µs of SQLAlchemy's construction and cache key). Two
visits of the same page run the very same statement objects, as the GM and as a player.

The statements whose secrecy filter changes with the viewer and the campaign (the letters,
the ledger, the ransoms, the GM's hidden gold) are built once for each of their cases, and
tests/web/test_reads_coerce_once_issue37.py checks them, with every other tab and the API's
reads, in a campaign with its modules on."""

import pytest
from sqlalchemy import event

from bench import large_campaign
from tests.builders.pages import bench_player, register

GM_PAGES = ["", "/players", "/places", "/rules", "/chronicle", "/events", "/orders", "/battles", "/standings", "/twilight"]
PLAYER_PAGES = ["", "/company", "/shop", "/warbands", "/warbands/new", "/events", "/orders", "/battles", "/players"]


def _built_anew(engine, browser, url: str) -> list[str]:
    """The statements the second of three visits ran that the third did not run again as they were."""
    visits: list[list] = []

    def seen(_conn, clause, *_args):
        visits[-1].append(clause)

    event.listen(engine, "before_execute", seen)
    try:
        for _ in range(3):
            visits.append([])
            assert browser.get(url).status_code == 200, url
    finally:
        event.remove(engine, "before_execute", seen)
    kept = {id(clause) for clause in visits[2]}
    return [" ".join(str(clause).split())[:120] for clause in visits[1] if id(clause) not in kept]


@pytest.mark.parametrize("path", GM_PAGES)
def test_issue37_the_gms_pages_build_no_statement_anew(client, engine, path):
    register(client, "gamemaster")
    cid, _ = large_campaign.build_round(engine, gm_nickname="gamemaster", players=6)
    assert _built_anew(engine, client, f"/campaigns/{cid}{path}") == []


@pytest.mark.parametrize("path", PLAYER_PAGES)
def test_issue37_a_players_pages_build_no_statement_anew(client, engine, make_client, path):
    register(client, "gamemaster")
    cid, nicknames = large_campaign.build_round(engine, gm_nickname="gamemaster", players=6)
    player = bench_player(engine, make_client, nicknames[0])
    assert _built_anew(engine, player, f"/campaigns/{cid}{path}") == []

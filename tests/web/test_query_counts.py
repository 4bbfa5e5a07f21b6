"""Pages run a bounded number of statements whatever the campaign's size."""
import pytest

from bench import large_campaign
from tests.web.helpers import login, register


def build(engine, size: int) -> int:
    return large_campaign.build(engine, gm_nickname="gamemaster", players=size)


@pytest.mark.parametrize("path", ["", "/players", "/places", "/rules", "/chronicle"])
def test_campaign_pages_run_the_same_statements_with_10x_players_and_places(client, engine, count_statements, path):
    register(client, "gamemaster")
    small, large = build(engine, 4), build(engine, 40)
    counts = []
    for cid in (small, large):
        with count_statements() as counter:
            r = client.get(f"/campaigns/{cid}{path}")
        assert r.status_code == 200
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
    assert counts[0] <= 12, counts


def test_home_page_statements_do_not_grow_with_campaigns(client, engine, count_statements):
    register(client, "gamemaster")
    build(engine, 2)
    with count_statements() as few:
        client.get("/")
    for _ in range(5):
        build(engine, 2)
    with count_statements() as many:
        client.get("/")
    assert few.count == many.count

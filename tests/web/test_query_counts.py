"""Pages run a bounded number of statements whatever the campaign's size."""
import pytest
from sqlmodel import Session

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.chronicle.models import ChronicleEntry
from app.maps.models import Hideout, Place
from tests.web.helpers import login, register


def build(engine, size: int) -> int:
    """A running campaign with `size` players, 2×size places and hideouts, and a long chronicle."""
    with Session(engine) as s:
        gm = s.exec(__import__("sqlmodel").select(User).where(User.nickname_key == "gamemaster")).one()
        c = Campaign(gm_user_id=gm.id, name=f"Big {size}", status="running", round=3, phase="orders",
                     max_players=40, setup_complete=True, wizard_step=6)
        s.add(c)
        s.flush()
        for i in range(size):
            u = User(nickname=f"p{c.id}_{i}", nickname_key=f"p{c.id}_{i}", password_hash="x")
            s.add(u)
            s.flush()
            p = Player(campaign_id=c.id, user_id=u.id)
            s.add(p)
            s.flush()
            home = Place(campaign_id=c.id, name=f"Home {i}", hideout_slot=True, owner_player_id=p.id, income=3)
            other = Place(campaign_id=c.id, name=f"Field {i}", income=1)
            s.add_all([home, other])
            s.flush()
            s.add(Hideout(campaign_id=c.id, place_id=home.id, player_id=p.id))
            s.add(Place(campaign_id=c.id, parent_id=other.id, name=f"Inner {i}"))
        for i in range(size * 5):
            s.add(ChronicleEntry(campaign_id=c.id, round=1, kind="phase_changed",
                                 params={"round": 1, "from_phase": "preparation", "to_phase": "orders"}))
        s.commit()
        return c.id


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

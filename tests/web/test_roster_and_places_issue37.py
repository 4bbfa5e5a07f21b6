"""Issue 37: the dashboard and the players page read the roster and the places in two
statements (maps.reading.roster_and_places), and say the same as the three they read before:
each player's hideouts in the order made, the places they own in the places' order."""

from sqlmodel import Session, select

from app.campaigns import service as campaigns
from app.maps import reading as map_reading
from app.maps import service as maps
from app.maps.models import Hideout, Place
from bench import large_campaign
from tests.builders.pages import register


def _campaign_with_two_hideouts(engine) -> tuple[int, int]:
    """A campaign whose last player holds a second hideout, made after their first one at a
    place listed before it, and owns a place with no hideout; (campaign id, that player's id)."""
    cid = large_campaign.build(engine, gm_nickname="gamemaster", players=3)
    with Session(engine) as s:
        last = s.exec(select(Hideout).where(Hideout.campaign_id == cid).order_by(Hideout.id.desc())).first()  # type: ignore[union-attr]
        free = s.exec(
            select(Place).where(Place.campaign_id == cid, Place.owner_player_id == None).order_by(Place.id)  # noqa: E711
        ).all()
        assert last is not None and len(free) >= 2 and free[0].id < last.place_id
        for place in free[:2]:
            place.owner_player_id = last.player_id
        s.add(Hideout(campaign_id=cid, place_id=free[0].id, player_id=last.player_id))
        s.commit()
        return cid, last.player_id


def test_issue37_roster_and_places_say_what_players_and_place_rows_say(engine, client):
    register(client, "gamemaster")
    cid, pid = _campaign_with_two_hideouts(engine)
    with Session(engine) as s:
        players, places = map_reading.roster_and_places(s, cid)
        assert players == campaigns.players(s, cid)
        assert places == maps.place_rows(s, cid)
    mine = next(p for p in players if p.player_id == pid)
    assert len(mine.hideouts) == 2 and len(mine.places) == 3
    with Session(engine) as s:
        made = s.exec(select(Hideout.place_id).where(Hideout.player_id == pid).order_by(Hideout.id)).all()
    assert mine.hideouts == list(made)  # the order made, whatever the places' order
    assert mine.places == sorted(mine.places)


def test_issue37_the_dashboard_and_players_page_read_the_places_once(engine, client, count_statements):
    register(client, "gamemaster")
    cid, _ = _campaign_with_two_hideouts(engine)
    for path in ("", "/players"):
        with count_statements() as counter:
            r = client.get(f"/campaigns/{cid}{path}")
        assert r.status_code == 200
        # The places, and the hideouts with them: one statement reads `FROM place`.
        assert sum("FROM place" in s for s in counter.statements) == 1, (path, counter.statements)
        assert sum("hideout" in s for s in counter.statements) == 1, (path, counter.statements)

"""Issue 37, SPEC R11.2: whose change counters a change moves (app/versions/audience.py). A
campaign page's revalidation is answered from memory while the viewer's counters stand, so a
change must move the counter of everyone who may see it (or their page stays stale) and of
nobody else (or the timing of their revalidation tells them of it). Each test names who moved:
a player's nickname, "game masters", "user <nickname>" (a user's own seat, an invitee's) or
"everyone" (the campaign's every-member row)."""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session

from app.core import commit_steps
from app.versions.service import map_version
from tests.api.test_settlement_api import _capture
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, running_campaign
from tests.builders.companies import buy, warband
from tests.builders.guilds import guild_campaign
from tests.builders.settlements import play_round

_ROWS = text(
    "SELECT a.campaign_id, CASE WHEN a.seat = 0 THEN 'everyone' WHEN a.seat = -1 THEN 'game masters' "
    "WHEN a.seat < -1 THEN 'user ' || alone.nickname ELSE u.nickname END, a.version "
    "FROM audience_version a LEFT JOIN player p ON p.id = a.seat LEFT JOIN user_account u ON u.id = p.user_id "
    "LEFT JOIN user_account alone ON alone.id = -1 - a.seat"
)


def _counters(engine) -> dict:
    with engine.connect() as connection:
        return {(c, who): version for c, who, version in connection.execute(_ROWS)}


def moved(engine, cid: int, act) -> set[str]:
    """Who in campaign `cid` had their counter moved by `act()`."""
    before = _counters(engine)
    act()
    after = _counters(engine)
    return {who for (c, who), version in after.items() if c == cid and before.get((c, who)) != version}


def _ok(r, status: int = 200):
    assert r.status_code == status, r.text
    return r.json() if r.content else None


def test_r11_2_renaming_an_unsent_warband_moves_its_owner_alone(client, engine):
    gm, cid, players, places = running_campaign(client, 2)
    band = warband(client, cid, players[0], buy(client, cid, players[0], "orcs.krusher", "orcs.ax", faction="orcs"))
    url = f"/api/v1/campaigns/{cid}/warbands/{band['id']}"
    assert moved(engine, cid, lambda: _ok(client.patch(url, json={"name": "Night Raiders"}, headers=players[0]["headers"]))) == {
        "player0"
    }


def test_r11_2_closing_a_settlement_moves_everyone_for_twilight_waits_on_it(client, engine):
    rnd = play_round(client)
    assert moved(engine, rnd.cid, lambda: _ok(rnd.close(0))) >= {"everyone"}


def test_r11_2_a_pending_guild_request_moves_its_asker_the_founder_and_the_gm_who_sees_its_fee(client, engine):
    g = guild_campaign(client, 3)
    gid = g.found(0, "Iron Wolves")["id"]
    who = moved(engine, g.cid, lambda: _ok(g.post(1, f"/guilds/{gid}/requests"), 201))
    assert who == {"player0", "player1", "game masters"}, who


def test_r8_8_a_mission_alliance_before_battles_moves_its_members_and_invitees_not_a_decliner_nor_the_gm(client, engine):
    g = guild_campaign(client, 4)
    event = g.event(4, "Bridge")
    aid = g.ally(0, event, 1, 2)["id"]
    assert g.post(2, f"/alliances/{aid}/decline").status_code == 204
    who = moved(engine, g.cid, lambda: _ok(g.post(1, f"/alliances/{aid}/accept")))
    assert who == {"player0", "player1"}, who


def test_the_counters_move_once_at_the_commit_not_at_a_savepoints_release(engine):
    """SQLAlchemy calls before_commit for a savepoint's release too: the steps wait for the
    real commit (their locks are taken last, app/core/commit_steps.py)."""
    calls: list[bool] = []
    step = commit_steps.before_commit(99)(lambda session: calls.append(session.in_nested_transaction()))
    try:
        with Session(engine) as session:
            with session.begin_nested():
                session.execute(text("SELECT 1"))
            assert calls == []
            session.commit()
        assert calls == [False]
    finally:
        commit_steps._STEPS.remove((99, step))


def test_r11_2_an_invitation_moves_the_game_masters_and_its_invitee_alone(client, engine):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    user(client, "newcomer")
    invite = lambda: _ok(client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": "newcomer"}, headers=gm), 201)  # noqa: E731
    assert moved(engine, cid, invite) == {"game masters", "user newcomer"}


def test_r11_2_a_settlement_begun_moves_its_owner_and_the_game_masters(client, engine):
    rnd = play_round(client)
    begin = lambda: _ok(rnd.put(0, {"course": {"taken_out": [], "took_out": {}, "objectives": []}}))  # noqa: E731
    assert moved(engine, rnd.cid, begin) == {"player0", "game masters"}


def test_r11_2_a_sold_captive_moves_its_captor_whose_ransom_the_database_deletes_with_it(client, engine):
    """V12: the ransom goes with the model (ON DELETE CASCADE, which no flush shows): the captor's
    ransoms page changes, so the captor's seat moves."""
    rnd = play_round(client)
    arms, _ransom = _capture(rnd)
    with engine.begin() as connection:  # the next round's Preparation, its shop open, the warband home
        connection.execute(text("UPDATE campaign SET round = 2, phase = 'preparation' WHERE id = :c"), {"c": rnd.cid})
    sell = lambda: _ok(client.delete(f"/api/v1/campaigns/{rnd.cid}/company/models/{arms}", headers=rnd.h(1)))  # noqa: E731
    assert moved(engine, rnd.cid, sell) == {"player0", "player1", "game masters"}


def test_r11_2_a_warband_standing_nowhere_leaves_the_maps_drawing_as_it_was(client, engine):
    """Without the movement module the map shows no warband: building one must not cost the
    map's next viewer a drawing (its timing would tell them someone built a warband)."""
    gm, cid, players, places = running_campaign(client, 2)
    models = buy(client, cid, players[0], "orcs.krusher", "orcs.ax", faction="orcs")
    with Session(engine) as session:
        before = map_version(session, cid)
    band = warband(client, cid, players[0], models)
    _ok(client.delete(f"/api/v1/campaigns/{cid}/warbands/{band['id']}", headers=players[0]["headers"]), 204)
    with Session(engine) as session:
        assert map_version(session, cid) == before

"""Issue 37: the writes a club night is made of build none of the statements every write runs
(the gold change, the counters of who may see it, the live event and who hears it, the
company's lock), nor their own (an order, a guild, an alliance), while they answer: checked as tests/web/test_reads_coerce_once_issue37.py
checks the reads, by SQLAlchemy's coercions, which a statement built makes and a statement
run makes once."""

from __future__ import annotations

from sqlmodel import Session

from app.campaigns.models import Campaign
from app.movement import service as movement
from app.warbands.models import Warband
from tests.builders.battles import campaign_with_warbands
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy
from tests.builders.guilds import guild_campaign
from tests.builders.movement import movement_campaign
from tests.builders.rounds import to_phase
from tests.web.test_reads_coerce_once_issue37 import counted


def test_issue37_a_purchase_a_sale_a_transfer_and_a_letter_build_no_statement(client, counted):
    _gm, cid, players, _places = running_campaign(client, 2)
    anna, borys = players
    buy(client, cid, anna, faction="orcs")
    url, h = f"/api/v1/campaigns/{cid}", anna["headers"]
    writes = {
        "a purchase": (201, lambda: client.post(f"{url}/company/models", json={"profile": "orcs.ax"}, headers=h)),
        "a transfer": (
            201,
            lambda: client.post(
                f"{url}/transfers", json={"to_player_id": borys["player_id"], "amount": 1, "note": "x"}, headers=h
            ),
        ),
        "a letter": (
            201,
            lambda: client.post(
                f"{url}/letters", json={"to_player_id": borys["player_id"], "subject": "s", "body": "x"}, headers=h
            ),
        ),
        "a sale": (200, lambda: client.delete(f"{url}/company/models/{_a_model(client, url, h)}", headers=h)),
    }
    built = []
    for name, (expected, write) in writes.items():
        status, coerced, ran = counted.of(write)
        assert status == expected, (name, status)
        if coerced > ran:
            built.append(f"{name}: {coerced} coercions for {ran} statements")
    assert not built, "\n".join(built)


def _a_model(client, url: str, headers: dict) -> int:
    return client.get(f"{url}/company", headers=headers).json()["models"][-1]["id"]


def test_issue37_an_order_sent_builds_no_statement(client, counted):
    _gm, cid, players, places = campaign_with_warbands(client, 3)
    to_phase(client, _gm, cid, "orders")

    def send(player):
        url = f"/api/v1/campaigns/{cid}/warbands/{player['band']['id']}/order"
        return client.put(url, json={"place_id": places[3]["id"]}, headers=player["headers"])

    assert send(players[0]).status_code == 200  # the first: the statements' first compiling
    counted.coerced = counted.ran = 0
    assert send(players[1]).status_code == 200
    assert counted.coerced <= counted.ran, f"{counted.coerced} coercions for {counted.ran} statements"


def test_issue37_guild_and_alliance_writes_build_no_statement(client, counted):
    g = guild_campaign(client, 6)
    built = []

    def measured(name: str, write):
        counted.coerced = counted.ran = 0
        response = write()
        assert response.status_code in (200, 201), (name, response.text)
        if counted.coerced > counted.ran:
            built.append(f"{name}: {counted.coerced} coercions for {counted.ran} statements")
        return response.json()

    # Each kind of write once first (its statements' first compiling), then measured for others.
    g.admit(0, g.found(0, "Warm")["id"], 4)
    gid = measured("founding a guild", lambda: g.post(1, "/guilds", {"name": "Wolves"}))["id"]
    invitation = g.invite(1, gid, 5)
    measured("joining it", lambda: g.post(5, f"/guilds/{gid}/invitations/{invitation['id']}/accept"))
    ford, hill = g.event(6, "Ford"), g.event(7, "Hill")
    assert g.post(3, f"/alliances/{g.ally(2, ford, 3)['id']}/accept").status_code == 200
    alliance = measured("an alliance", lambda: g.post(3, "/alliances", {"event_id": hill, "invite_player_ids": [g.pid(2)]}))
    measured("joining it", lambda: g.post(2, f"/alliances/{alliance['id']}/accept"))
    assert not built, "\n".join(built)


def test_issue37_r9_8_r9_7_where_a_warband_may_go_and_its_players_hideouts_are_read_by_statements_built_once(
    client, engine, counted
):
    """Read on every order sent and every warband built or changed with the movement module on
    (and the paths', R9.7): each read coerces no more often than it runs statements."""
    places = {"Ash": (10, 10, True), "Bree": (90, 90, True), "Ford": (30, 30, False)}
    m = movement_campaign(client, paths=True, places=places, links=[("Ash", "Ford", False)])
    band = m.band(0, "One")
    with Session(engine) as session:
        campaign, warband = session.get(Campaign, m.cid), session.get(Warband, band["id"])
        movement.allowed_places(session, campaign, warband)  # the statements' first compiling
        counted.coerced = counted.ran = 0
        hideouts = movement.hideouts_of(session, warband.player_id)
        moves = movement.allowed_places(session, campaign, warband)
    assert hideouts == [m.places["Ash"]] and moves == {m.places["Ash"], m.places["Ford"]}
    assert counted.ran and counted.coerced <= counted.ran, f"{counted.coerced} coercions for {counted.ran} statements"

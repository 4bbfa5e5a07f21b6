"""Battles announced: players' warbands sent to one place, Battles begun."""

from __future__ import annotations

from tests.builders.campaigns import running_campaign
from tests.builders.companies import BASILEANS, ORCS, UNDEAD, buy, warband
from tests.builders.rounds import fight


def campaign_with_warbands(client, n_players=3):
    """A running campaign where players 0, 1, 2 have a warband each ("orcs band",
    "basileans band", "undead band"), in `player["band"]`."""
    gm, cid, players, places = running_campaign(client, n_players)
    rosters = [("orcs", ORCS), ("basileans", BASILEANS), ("undead", UNDEAD)]
    for player, (faction, keys) in zip(players, rosters):
        player["band"] = warband(client, cid, player, buy(client, cid, player, *keys, faction=faction), f"{faction} band")
    return gm, cid, players, places


def battles(client, cid, headers):
    return client.get(f"/api/v1/campaigns/{cid}/battles", headers=headers).json()["items"]


def two_player_battle(client):
    """(gm, cid, players, battle id): the orcs and basileans bands meet at a free place."""
    gm, cid, players, places = campaign_with_warbands(client, 2)
    fight(client, gm, cid, players, place_id=places[2]["id"])
    return gm, cid, players, battles(client, cid, gm)[0]["id"]


def two_fight_one_watches(client):
    """Battles with one battle: players 0 and 1 fight at Place 3, player 2 stays at home."""
    gm, cid, players, places = running_campaign(client, 3)
    for p, (faction, keys) in zip(
        players[:2],
        (("orcs", ("orcs.krusher", "orcs.ax")), ("basileans", ("basileans.veteran-sergeant", "basileans.man-at-arms"))),
    ):
        p["band"] = warband(client, cid, p, buy(client, cid, p, *keys, faction=faction))
    fight(client, gm, cid, players[:2], place_id=places[3]["id"])
    [battle] = battles(client, cid, gm)
    return gm, cid, players, battle

"""Issue 31 item 3: sending a warband answers what it did (warbands.orders.Sent), and the send
page's question and flash are made from that answer: the warband's name and where it goes — an
event's title with its place, or the place alone (R4.5, R4.6)."""

from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.pages import login, post, prg
from tests.builders.rounds import event, to_phase

ORCS = ("orcs.krusher", "orcs.ax", "orcs.ax", "orcs.ax")


def test_the_send_page_asks_and_tells_where_the_warband_goes(client, make_client):
    gm, cid, players, places = running_campaign(client, n_players=2)
    for player, name in zip(players, ("Raiders", "Wolves")):
        player["warband"] = warband(client, cid, player, buy(client, cid, player, *ORCS, faction="orcs"), name=name)
    ev = event(client, gm, cid, places[2]["id"], "Ambush at the Mill")
    to_phase(client, gm, cid, "orders")
    anna, bert = make_client(), make_client()
    login(anna, "player0")
    login(bert, "player1")
    raiders, wolves = players[0]["warband"]["id"], players[1]["warband"]["id"]
    asked = post(anna, f"/campaigns/{cid}/warbands/{raiders}/send", {"target": f"event:{ev['id']}"})
    assert asked.status_code == 200 and f"Send Raiders to Ambush at the Mill · {places[2]['name']}?" in asked.text
    prg(
        anna,
        f"/campaigns/{cid}/warbands/{raiders}/send",
        {"target": f"event:{ev['id']}", "confirm": "1"},
        says=f"Raiders sent to Ambush at the Mill · {places[2]['name']}.",
    )
    prg(
        bert,
        f"/campaigns/{cid}/warbands/{wolves}/send",
        {"target": f"place:{places[0]['id']}", "confirm": "1"},
        says=f"Wolves sent to {places[0]['name']}.",
    )

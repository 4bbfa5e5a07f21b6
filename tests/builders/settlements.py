"""A round played up to Settlement through the API, for the settlement, Twilight and End
round tests: two players (Orcs and Basileans) meet at a free place and one of them wins."""

from __future__ import annotations

from dataclasses import dataclass

from tests.builders.campaigns import running_campaign
from tests.builders.companies import BASILEANS, buy, warband
from tests.builders.rounds import send, to_phase

ORCS = ("orcs.krusher", "orcs.ax", "orcs.ax")  # one Ax more than companies.ORCS
HEALERS = (
    "basileans.veteran-sergeant",
    "basileans.paladin-chaplain",
    "basileans.man-at-arms",
    "basileans.man-at-arms",
    "basileans.man-at-arms",
)


@dataclass
class Round:
    client: object
    gm: dict
    cid: int
    players: list[dict]
    places: list[dict]
    bid: int
    models: dict[int, list[int]]  # player index -> model ids

    def url(self, i: int) -> str:
        return f"/api/v1/campaigns/{self.cid}/battles/{self.bid}/settlements/{self.players[i]['band']['id']}"

    def h(self, i: int) -> dict:
        return self.players[i]["headers"]

    def get(self, i: int, who: dict | None = None):
        return self.client.get(self.url(i), headers=who or self.h(i))

    def put(self, i: int, body: dict, who: dict | None = None):
        return self.client.put(self.url(i), json=body, headers=who or self.h(i))

    def close(self, i: int, who: dict | None = None):
        return self.client.post(self.url(i) + "/close", headers=who or self.h(i))

    def roll(self, i: int, model_id: int, reroll: bool = False, who: dict | None = None):
        return self.client.post(self.url(i) + "/roll", json={"model_id": model_id, "reroll": reroll}, headers=who or self.h(i))

    def phase(self, phase: str):
        return self.client.post(f"/api/v1/campaigns/{self.cid}/phase", json={"phase": phase}, headers=self.gm)

    def campaign(self) -> dict:
        return self.client.get(f"/api/v1/campaigns/{self.cid}", headers=self.gm).json()


def play_round(
    client, *, winner: int | None = 0, healer: bool = False, settle: bool = True, place: int = 2, campaign=None, **body
) -> Round:
    """Round 1 up to Settlement: player 0 (Orcs) and player 1 (Basileans) fight at
    places[place]; `winner` 0 or 1 wins (None: a draw), confirmed by the other."""
    if campaign is None:
        gm, cid, players, places = running_campaign(client, 2)
        if body:
            r = client.patch(f"/api/v1/campaigns/{cid}", json=body, headers=gm)
            assert r.status_code == 200, r.text
    else:
        gm, cid, players, places = campaign
    models = {}
    for i, (faction, keys) in enumerate((("orcs", ORCS), ("basileans", HEALERS if healer else BASILEANS))):
        bought = buy(client, cid, players[i], *keys, faction=faction)
        models[i] = [m["id"] for m in bought]
        players[i]["band"] = warband(client, cid, players[i], bought, f"{faction} band")
    to_phase(client, gm, cid, "orders")
    for p in players[:2]:
        send(client, cid, p, place_id=places[place]["id"])
    to_phase(client, gm, cid, "battles")
    [battle] = client.get(f"/api/v1/campaigns/{cid}/battles", headers=gm).json()["items"]
    winners = [] if winner is None else [players[winner]["player_id"]]
    r = client.post(
        f"/api/v1/campaigns/{cid}/battles/{battle['id']}/result",
        json={"winner_player_ids": winners},
        headers=players[0]["headers"],
    )
    assert r.status_code == 200, r.text
    r = client.post(f"/api/v1/campaigns/{cid}/battles/{battle['id']}/confirm", headers=players[1]["headers"])
    assert r.status_code == 200, r.text
    if settle:
        to_phase(client, gm, cid, "settlement")
    return Round(client, gm, cid, players, places, battle["id"], models)


def close_all(rnd: Round) -> None:
    for i in range(2):
        r = rnd.close(i)
        assert r.status_code == 200, r.text

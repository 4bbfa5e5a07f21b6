"""A running campaign with the movement module (R9.8, with R9.7 paths and R6.6 roles) driven
over the API, for the movement tests: a named map, players with hideouts, warbands,
orders, and whole rounds played to End round (results resolved by the GM, every settlement
closed by its owner, Twilight, End round)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join, start_campaign
from tests.builders.companies import BASILEANS, ORCS, UNDEAD, buy
from tests.builders.maps import add_place
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase

ROSTERS = [("orcs", ORCS), ("basileans", BASILEANS), ("undead", UNDEAD)]
EVIL_MERCENARY = "merc.kuzlo-and-madfall"  # 46 points, a Spellcaster; Evil joins the Orcs

# name -> (x, y, hideout slot). The default map: two hideouts far apart, free places between.
MAP = {
    "Ash": (10, 10, True),
    "Bree": (90, 90, True),
    "Crag": (10, 90, True),
    "Ford": (50, 50, False),
    "Glen": (55, 45, False),
}


@dataclass
class M:
    client: object
    gm: dict
    cid: int
    players: list[dict]
    places: dict[str, int]  # name -> place id
    factions: dict[int, str] = field(default_factory=dict)

    # --- calls -----------------------------------------------------------------------------
    def url(self, path: str = "") -> str:
        return f"/api/v1/campaigns/{self.cid}{path}"

    def h(self, who) -> dict:
        if who == "gm":
            return self.gm
        if isinstance(who, dict):
            return who
        return self.players[who]["headers"]

    def pid(self, i: int) -> int:
        return self.players[i]["player_id"]

    def who_is(self, player_id: int) -> int:
        return next(i for i, p in enumerate(self.players) if p["player_id"] == player_id)

    def get(self, who, path: str):
        return self.client.get(self.url(path), headers=self.h(who))

    def post(self, who, path: str, body: dict | None = None):
        return self.client.post(self.url(path), json=body, headers=self.h(who))

    def put(self, who, path: str, body: dict | None = None):
        return self.client.put(self.url(path), json=body, headers=self.h(who))

    def patch(self, who, path: str, body: dict | None = None):
        return self.client.patch(self.url(path), json=body, headers=self.h(who))

    def delete(self, who, path: str):
        return self.client.delete(self.url(path), headers=self.h(who))

    def phase(self, phase: str) -> None:
        to_phase(self.client, self.gm, self.cid, phase)

    def campaign(self) -> dict:
        return self.get("gm", "").json()

    # --- companies and warbands -------------------------------------------------------------
    def buy(self, i: int, *keys: str) -> list[dict]:
        faction = ROSTERS[i % len(ROSTERS)][0]
        first = i not in self.factions
        self.factions[i] = faction
        return buy(self.client, self.cid, self.players[i], *keys, faction=faction if first else None)

    def create(self, i: int, name: str, models: list[dict], **extra):
        body = {"name": name, "model_ids": [m["id"] for m in models], **extra}
        return self.post(i, "/warbands", body)

    def band(
        self,
        i: int,
        name: str | None = None,
        *,
        keys: tuple[str, ...] | None = None,
        mercenary: str | None = None,
        location: int | None = None,
    ) -> dict:
        """Buys player i's usual roster (or `keys`) and builds a warband of it (gathering where it may)."""
        models = self.buy(i, *(keys or ROSTERS[i % len(ROSTERS)][1]))
        extra = {}
        if mercenary:
            extra["mercenary"] = mercenary
        if location is not None:
            extra["location_place_id"] = location
        r = self.create(i, name or f"band {i}", models, **extra)
        assert r.status_code == 201, r.text
        band = r.json()
        band["models"] = models
        return band

    def warbands(self, i: int) -> dict[int, dict]:
        r = self.get(i, "/warbands")
        assert r.status_code == 200, r.text
        return {w["id"]: w for w in r.json()}

    def location(self, i: int, wid: int) -> int | None:
        return self.warbands(i)[wid]["location_place_id"]

    def send(self, i: int, wid: int, **target):
        return self.put(i, f"/warbands/{wid}/order", target)

    def sent(self, i: int, wid: int, **target) -> dict:
        r = self.send(i, wid, **target)
        assert r.status_code == 200, r.text
        return r.json()

    def place_warband(self, who, wid: int, place_id: int):
        return self.put(who, f"/warbands/{wid}/position", {"place_id": place_id})

    def placed(self, wid: int, place_id: int) -> None:
        r = self.place_warband("gm", wid, place_id)
        assert r.status_code == 200, r.text

    def event(self, place: str, title: str, **extra) -> int:
        r = self.post("gm", "/events", {"place_id": self.places[place], "title": title, **extra})
        assert r.status_code == 201, r.text
        return r.json()["id"]

    # --- reading ---------------------------------------------------------------------------
    def positions(self, who="gm", of: int | None = None) -> dict[int, int]:
        """warband id -> place id, as the map of `of` (the top map by default) shows them."""
        r = self.get(who, "/map" + (f"?of={of}" if of else ""))
        assert r.status_code == 200, r.text
        return {p["warband_id"]: p["place_id"] for p in r.json()["warband_positions"]}

    def battles(self) -> list[dict]:
        return self.get("gm", "/battles").json()["items"]

    def chronicle(self, kind: str | None = None) -> list[dict]:
        return [e for e in self.get("gm", "/chronicle?per_page=200").json()["items"] if kind is None or e["kind"] == kind]

    def owners(self) -> dict[int, dict]:
        """player id -> {"places": [...], "hideouts": [...]}"""
        return {
            p["player_id"]: {"places": sorted(p["places"]), "hideouts": sorted(p["hideouts"])}
            for p in self.get("gm", "/players").json()
        }

    def ledger(self, i: int) -> dict:
        return self.get(i, "/ledger").json()

    # --- a whole round ------------------------------------------------------------------------
    def play(self, results: dict[int, list[int] | None] | None = None) -> None:
        """From Orders (or Battles) to the next round: each battle at a place gets the winners
        `results[place_id]` (player indices; [] a draw; a missing place: the first side wins),
        every settlement is closed by its owner, Twilight, End round."""
        results = results or {}
        if self.campaign()["phase"] in ("preparation", "orders"):
            self.phase("battles")
        for b in self.battles():
            if b["place_id"] in results:
                winners = [self.pid(i) for i in results[b["place_id"]] or []]
            else:
                winners = b["sides"][0]["player_ids"]
            r = self.post("gm", f"/battles/{b['id']}/resolve", {"winner_player_ids": winners})
            assert r.status_code == 200, r.text
        self.phase("settlement")
        for b in self.battles():
            for side in b["sides"]:
                for w in side["warbands"]:
                    r = self.post(self.who_is(w["player_id"]), f"/battles/{b['id']}/settlements/{w['id']}/close")
                    assert r.status_code == 200, r.text
        self.phase("twilight")
        r = self.post("gm", "/end-round", {"round": self.campaign()["round"]})
        assert r.status_code == 200, r.text

    def refused(self, response, status: int, code: str) -> None:
        assert (response.status_code, error_code(response)) == (status, code), response.text


def movement_campaign(
    client,
    n: int = 2,
    *,
    paths: bool = False,
    movement: bool = True,
    places: dict | None = None,
    hideouts: list[str] | None = None,
    links: list[tuple[str, str, bool]] = (),
    modules: dict | None = None,
    **body,
) -> M:
    """A running campaign in round 1, Preparation, with the movement module (and paths when
    asked): `places` name -> (x, y, hideout slot) (the default MAP), player i's hideout at
    `hideouts[i]` (Ash, Bree, Crag by default), paths `links` (from, to, one way)."""
    gm = user(client, "gamemaster")
    body.setdefault("name", "Movement test")
    body.setdefault("max_players", max(n, 2))
    body["modules"] = {"movement": movement, "paths": paths, **(modules or {})}
    cid = create_campaign(client, gm, **body)["id"]
    ids = {}
    for name, (x, y, slot) in (places or MAP).items():
        ids[name] = add_place(client, gm, cid, name, hideout_slot=slot, x=x, y=y)["id"]
    for a, b, one_way in links:
        r = client.post(
            f"/api/v1/campaigns/{cid}/paths", json={"from_id": ids[a], "to_id": ids[b], "one_way": one_way}, headers=gm
        )
        assert r.status_code == 201, r.text
    players = [join(client, gm, cid, f"player{i}") for i in range(n)]
    homes = [{"id": ids[name]} for _, name in zip(players, hideouts or ["Ash", "Bree", "Crag"])]
    start_campaign(client, gm, cid, players, homes)
    return M(client, gm, cid, players, ids)

"""A running campaign with distinct guild and mission-alliance amounts, driven over the API,
for the guild, alliance, battle-plan and race tests (R8.1-R8.10)."""

from __future__ import annotations

from dataclasses import dataclass

from tests.builders.campaigns import campaign_with_players, start_campaign
from tests.builders.companies import BASILEANS, ORCS, UNDEAD, buy, warband
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase

# Amounts that tell the fees apart in a ledger.
GUILD = {"term": "guild", "level_cost": 40, "level_income": 10, "max_level": 3, "request_fee": 7, "entry_fee": 11}
ALLIANCE_FEE = 13
START = 400

ROSTERS = [("orcs", ORCS), ("basileans", BASILEANS), ("undead", UNDEAD), ("orcs", ORCS), ("basileans", BASILEANS)]


@dataclass
class G:
    client: object
    gm: dict
    cid: int
    players: list[dict]
    places: list[dict]

    # --- calls ---------------------------------------------------------------------------
    def url(self, path: str = "") -> str:
        return f"/api/v1/campaigns/{self.cid}{path}"

    def h(self, who) -> dict:
        return self.gm if who == "gm" else self.players[who]["headers"]

    def pid(self, i: int) -> int:
        return self.players[i]["player_id"]

    def get(self, who, path: str):
        return self.client.get(self.url(path), headers=self.h(who))

    def post(self, who, path: str, body: dict | None = None):
        return self.client.post(self.url(path), json=body, headers=self.h(who))

    def delete(self, who, path: str):
        return self.client.delete(self.url(path), headers=self.h(who))

    def phase(self, phase: str) -> None:
        to_phase(self.client, self.gm, self.cid, phase)

    def end_round(self) -> None:
        rnd = self.campaign()["round"]
        r = self.post("gm", "/end-round", {"round": rnd})
        assert r.status_code == 200, r.text

    # --- guilds ----------------------------------------------------------------------------
    def found(self, i: int, name: str) -> dict:
        r = self.post(i, "/guilds", {"name": name})
        assert r.status_code == 201, r.text
        return r.json()

    def guild(self, gid: int, who="gm") -> dict | None:
        return next((g for g in self.get(who, "/guilds").json() if g["id"] == gid), None)

    def invite(self, founder: int, gid: int, i: int) -> dict:
        r = self.post(founder, f"/guilds/{gid}/invitations", {"player_id": self.pid(i)})
        assert r.status_code == 201, r.text
        return r.json()

    def admit(self, founder: int, gid: int, i: int) -> None:
        """`i` joins on the founder's invitation (free; the entry fee is paid on accepting)."""
        inv = self.invite(founder, gid, i)
        r = self.post(i, f"/guilds/{gid}/invitations/{inv['id']}/accept")
        assert r.status_code == 200, r.text

    # --- alliances -------------------------------------------------------------------------
    def ally(self, i: int, event_id: int, *invitees: int) -> dict:
        r = self.post(i, "/alliances", {"event_id": event_id, "invite_player_ids": [self.pid(j) for j in invitees]})
        assert r.status_code == 201, r.text
        return r.json()

    def alliances(self, who) -> list[dict]:
        r = self.get(who, "/alliances")
        assert r.status_code == 200, r.text
        return r.json()

    # --- reading -------------------------------------------------------------------------
    def campaign(self) -> dict:
        return self.get("gm", "").json()

    def ledger(self, i: int) -> dict:
        return self.get(i, "/ledger").json()

    def balance(self, i: int) -> int:
        return self.ledger(i)["balance"]

    def balances(self) -> list[int]:
        return [self.balance(i) for i in range(len(self.players))]

    def entries(self, i: int, kind: str) -> list[tuple[int, str]]:
        return [(e["amount"], e["note"]) for e in self.ledger(i)["items"] if e["kind"] == kind]

    def chronicle(self) -> list[dict]:
        return self.get("gm", "/chronicle?per_page=200").json()["items"]

    def chronicle_texts(self, kind: str | None = None) -> list[str]:
        return [e["text"] for e in self.chronicle() if kind is None or e["kind"] == kind]

    def guild_of(self) -> dict[int, int | None]:
        return {p["player_id"]: p["guild_id"] for p in self.get("gm", "/players").json()}

    def state(self) -> dict:
        """Everything a refusal must leave as it was: each player's ledger and the guilds and
        alliances as each player sees them, the players' guilds, the chronicle."""
        everyone = range(len(self.players))
        modules = self.campaign()["modules"]
        return {
            "ledgers": [self.ledger(i) for i in everyone],
            "guilds": [self.get(i, "/guilds").json() for i in everyone] if modules["guilds"] else None,
            "alliances": [self.get(i, "/alliances").json() for i in everyone] if modules["mission_alliances"] else None,
            "players": self.get("gm", "/players").json(),
            "chronicle": self.chronicle(),
            "campaign": self.campaign(),
        }

    def refused(self, response, status: int, code: str, before: dict) -> None:
        """The call was refused with this status and code, and nothing changed."""
        assert (response.status_code, error_code(response)) == (status, code), response.text
        assert self.state() == before

    # --- warbands ------------------------------------------------------------------------
    def band(self, i: int, name: str | None = None) -> int:
        faction, keys = ROSTERS[i % len(ROSTERS)]
        models = buy(self.client, self.cid, self.players[i], *keys, faction=faction)
        band = warband(self.client, self.cid, self.players[i], models, name or f"band {i}")
        self.players[i]["band"] = band
        return band["id"]

    def send(self, i: int, **target) -> None:
        r = self.client.put(self.url(f"/warbands/{self.players[i]['band']['id']}/order"), json=target, headers=self.h(i))
        assert r.status_code == 200, r.text

    def event(self, place: int, title: str) -> int:
        r = self.post("gm", "/events", {"place_id": self.places[place]["id"], "title": title})
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def battles(self) -> list[dict]:
        return self.get("gm", "/battles").json()["items"]

    def twilight(self) -> dict:
        return self.get("gm", "/twilight").json()

    def owners(self) -> dict[int, list[int]]:
        """player id -> the places they hold"""
        return {p["player_id"]: sorted(p["places"]) for p in self.get("gm", "/players").json()}


def guild_campaign(
    client,
    n: int = 3,
    *,
    guild: dict | None = None,
    alliance_fee: int = ALLIANCE_FEE,
    modules: dict | None = None,
    start: int = START,
    n_places: int | None = None,
) -> G:
    """A running campaign in round 1, Preparation: `n` players, each with a hideout at
    places[i]; the places after those are free."""
    body = {
        "name": "Guild test",
        "guild": {**GUILD, **(guild or {})},
        "alliance_fee": alliance_fee,
        "starting_gold": start,
        "max_players": max(n, 2),
    }
    if modules:
        body["modules"] = modules
    gm, cid, players, places = campaign_with_players(client, n, n_places or n + 2, **body)
    start_campaign(client, gm, cid, players, places)
    return G(client, gm, cid, players, places)


# --- guilds, alliances and orders of a G campaign -------------------------------------------------


def make_guild(g: G, founder: int, *members: int) -> int:
    """The founder's guild, upgraded until it holds the members, who join it."""
    gid = g.found(founder, "Iron Wolves")["id"]
    for _ in range(max(0, len(members) - 1)):
        assert g.post(founder, f"/guilds/{gid}/upgrade").status_code == 200
    for i in members:
        g.admit(founder, gid, i)
    return gid


def make_alliance(g: G, initiator: int, event_id: int, *allies: int) -> int:
    """A mission alliance at the event, accepted by every ally."""
    aid = g.ally(initiator, event_id, *allies)["id"]
    for i in allies:
        assert g.post(i, f"/alliances/{aid}/accept").status_code == 200
    return aid


def orders(g: G, **targets) -> None:
    """Orders: each `p<i>=target` sends player i's warband (`("place", index)` or `("event", id)`)."""
    g.phase("orders")
    for key, (kind, value) in targets.items():
        i = int(key[1:])
        g.send(i, **({"place_id": g.places[value]["id"]} if kind == "place" else {"event_id": value}))


def allied_at_an_event(g: G) -> int:
    """Players 0 and 1 in a mission alliance at an event ("Bridge", at places[3]), and the
    warbands of players 0, 1 and 2 ordered to it; returns the event's id."""
    bridge = g.event(3, "Bridge")
    make_alliance(g, 0, bridge, 1)
    for i in range(3):
        g.band(i)
    orders(g, p0=("event", bridge), p1=("event", bridge), p2=("event", bridge))
    return bridge


def sides_of(battle: dict) -> list[list[int]]:
    """Each side's player ids, sorted: comparable whatever order the plan gave them."""
    return sorted(sorted(s["player_ids"]) for s in battle["sides"])


def guild_battle(client, n: int = 4):
    """Players 1 and 3 in player 0's guild against player 2 (and player 4 with n=5), at a free place."""
    g = guild_campaign(client, n)
    make_guild(g, 0, 1, 3)
    fighters = [1, 2, 3] + ([4] if n > 4 else [])
    for i in fighters:
        g.band(i)
    orders(g, **{f"p{i}": ("place", n) for i in fighters})
    g.phase("battles")
    [battle] = g.battles()
    return g, battle

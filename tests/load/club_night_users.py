"""Locust users for the club night (issue 20, item 1): what members and GMs do on their phones.

Run by locust in its own process (bench/club_night.py starts it; gevent patches the process, so
nothing of the app is imported here). The plan of who is who comes from CLUB_NIGHT_PLAN (JSON
written by bench/club_night.py's setup). Two files come out:
- CLUB_NIGHT_ACTIONS: one JSON line per purchase or sale tried, then one per answer, so that the
  audit knows every purchase that answered 2xx (and any that never answered);
- CLUB_NIGHT_SAMPLES: every request's route, status and time, for the table of figures.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import time
from contextlib import contextmanager

from locust import HttpUser, between, events, task

PLAN = json.loads(open(os.environ["CLUB_NIGHT_PLAN"]).read()) if os.environ.get("CLUB_NIGHT_PLAN") else {}
ACTIONS_PATH = os.environ.get("CLUB_NIGHT_ACTIONS", os.devnull)
SAMPLES_PATH = os.environ.get("CLUB_NIGHT_SAMPLES", os.devnull)
CSRF = re.compile(r'name="csrf_token" value="([0-9a-f]+)"')
# Players and GMs are handed out in order: locust runs every user in this one process.
NEXT_PLAYER = itertools.count()
NEXT_GM = itertools.count()
SAMPLES: list[tuple] = []
ACTIONS = open(ACTIONS_PATH, "a", buffering=1)
ACTION_IDS = itertools.count(1)


# Purchases and sales stop a little before the run does: locust may kill a member mid-request
# when the time is up, and a purchase cut off there has an outcome nobody heard (the audit would
# rightly call it unknown). Reads go on to the end.
RUN_SECONDS = float(os.environ.get("CLUB_NIGHT_SECONDS", "0") or 0)
# How long members think between taps, as a share of a club's (1 to 3 s, the GM's 1 to 4 s): the
# suite's 15-second night of 20 members thinks faster, or its rarer taps (a battle's page, an
# item bought) may not happen at all while the other suites load the machine (seen in CI).
PACE = float(PLAN.get("pace", 1.0))
SHOP_MARGIN = min(10.0, RUN_SECONDS / 4)
shop_closes = float("inf")
PHASE_HOLD = min(5.0, RUN_SECONDS / 4) if RUN_SECONDS else 5.0


@events.test_start.add_listener
def _opening(**_kw):
    global shop_closes
    if RUN_SECONDS:
        shop_closes = time.monotonic() + RUN_SECONDS - SHOP_MARGIN


def _shop_open() -> bool:
    return time.monotonic() < shop_closes


@events.request.add_listener
def _sample(request_type, name, response_time, response, exception, **_kw):
    status = 0 if exception is not None and response is None else getattr(response, "status_code", 0) or 0
    SAMPLES.append((request_type, name, status, response_time))


@events.quitting.add_listener
def _write_samples(**_kw):
    with open(SAMPLES_PATH, "w") as f:
        json.dump(SAMPLES, f)
    ACTIONS.flush()


def _record(**fields) -> None:
    ACTIONS.write(json.dumps(fields) + "\n")


@contextmanager
def _answered(said: dict):
    """Writes the answer line however the request ended: one that raised is logged with its
    error (status -1), so the audit can tell a client's fault from a lost purchase."""
    try:
        yield
    except BaseException as exc:
        said.update(status=-1, error=repr(exc)[:300])
        raise
    finally:
        said.setdefault("status", -1)
        _record(**said)


class Member(HttpUser):
    abstract = True

    def login(self, nickname: str) -> None:
        page = self.client.get("/login", name="GET /login")
        token = CSRF.search(page.text).group(1)
        self.client.post(
            "/login",
            data={"nickname": nickname, "password": PLAN["password"], "csrf_token": token},
            allow_redirects=False,
            name="POST /login",
        )

    def api(self, method: str, path: str, route: str, **kwargs):
        return self.client.request(method, "/api/v1" + path, headers=self.headers, name=f"{method} /api/v1{route}", **kwargs)


class Player(Member):
    """A club member: reads the pages, shops, builds warbands, sends them, plays a battle."""

    wait_time = between(1 * PACE, 3 * PACE)

    def on_start(self):
        me = PLAN["players"][next(NEXT_PLAYER) % len(PLAN["players"])]
        self.me = me
        self.table = PLAN["tables"][me["table"]]
        self.league, self.battle_campaign = self.table["league"], self.table["battle"]
        self.headers = {"Authorization": f"Bearer {me['token']}"}
        # What this member believes they own: the audit does not trust it, the server decides.
        self.free = {"krusher": [], "ax": []}
        self.items: list[int] = []
        self.bands: list[int] = list(me["warbands"])
        self.sent: dict[int, int] = {}  # warband -> field
        self.battle_done = me["battle_id"] is None
        self.rng = random.Random(me["nickname"])
        self.login(me["nickname"])
        # Last game's result is what a member reports first on arriving, then the warband they
        # brought goes out (the night opens with Orders).
        self.result()
        self.send_order()

    # --- reading -------------------------------------------------------------------------
    @task(6)
    def dashboard(self):
        self.client.get(f"/campaigns/{self.league}", name="GET /campaigns/[cid] (dashboard)")

    @task(3)
    def map_page(self):
        self.client.get(f"/campaigns/{self.league}/map", name="GET /campaigns/[cid]/map")

    @task(3)
    def battle_pages(self):
        bid = self.me["battle_id"]
        if bid and self.rng.random() < 0.5:
            self.client.get(f"/campaigns/{self.battle_campaign}/battles/{bid}", name="GET /campaigns/[cid]/battles/[bid]")
        else:
            self.client.get(f"/campaigns/{self.battle_campaign}/battles", name="GET /campaigns/[cid]/battles")

    @task(2)
    def company(self):
        self.api("GET", f"/campaigns/{self.league}/company", "/campaigns/[cid]/company")

    # --- the shop --------------------------------------------------------------------------
    def _buy(self, kind: str, what: str) -> int | None:
        action = next(ACTION_IDS)
        path, body = ("models", {"profile": f"orcs.{what}"}) if kind == "model" else ("items", {"item": what})
        said = dict(action=action, op=f"buy_{kind}", player=self.me["league_player_id"])
        _record(**said, tried=True)
        with _answered(said):
            r = self.api("POST", f"/campaigns/{self.league}/company/{path}", f"/campaigns/[cid]/company/{path}", json=body)
            said.update(status=r.status_code, id=r.json()["id"] if r.status_code == 201 else None)
        return said["id"]

    def _sell(self, kind: str, row: int) -> bool:
        action = next(ACTION_IDS)
        path = "models" if kind == "model" else "items"
        said = dict(action=action, op=f"sell_{kind}", player=self.me["league_player_id"], id=row)
        _record(**said, tried=True)
        with _answered(said):
            r = self.api("DELETE", f"/campaigns/{self.league}/company/{path}/{row}", f"/campaigns/[cid]/company/{path}/[id]")
            said.update(status=r.status_code, refund=r.json()["refund"] if r.status_code == 200 else None)
        return said["status"] == 200

    @task(3)
    def buy_model(self):
        if not _shop_open():
            return
        what = self.rng.choice(["ax", "ax", "krusher"])
        row = self._buy("model", what)
        if row:
            self.free[what].append(row)

    @task(2)
    def sell_model(self):
        if not _shop_open():
            return
        pool = [(w, m) for w, ids in self.free.items() for m in ids]
        if pool:
            what, row = self.rng.choice(pool)
            self.free[what].remove(row)
            self._sell("model", row)

    @task(2)
    def buy_item(self):
        if not _shop_open():
            return
        row = self._buy("item", "item.bandages")
        if row:
            self.items.append(row)

    @task(1)
    def sell_item(self):
        if not _shop_open():
            return
        if self.items:
            self._sell("item", self.items.pop(self.rng.randrange(len(self.items))))

    # --- warbands and orders -----------------------------------------------------------------
    @task(1)
    def build_warband(self):
        if not _shop_open():
            return
        for what in ("krusher", "ax"):
            if not self.free[what]:
                row = self._buy("model", what)
                if not row:
                    return
                self.free[what].append(row)
        members = [self.free["krusher"].pop(), self.free["ax"].pop()]
        r = self.api(
            "POST",
            f"/campaigns/{self.league}/warbands",
            "/campaigns/[cid]/warbands",
            json={"name": f"Band {len(self.bands) + 1}", "model_ids": members},
        )
        if r.status_code == 201:
            self.bands.append(r.json()["id"])

    @task(2)
    def send_order(self):
        waiting = [w for w in self.bands if w not in self.sent]
        fields = [f for f in self.table["fields"] if f not in self.sent.values()]
        if not waiting or not fields:
            return
        band, field = self.rng.choice(waiting), self.rng.choice(fields)
        r = self.api(
            "PUT",
            f"/campaigns/{self.league}/warbands/{band}/order",
            "/campaigns/[cid]/warbands/[wid]/order",
            json={"place_id": field},
        )
        if r.status_code == 200:
            self.sent[band] = field

    # --- the battle -----------------------------------------------------------------------
    @task(2)
    def result(self):
        if self.battle_done:
            return
        me, url = self.me, f"/campaigns/{self.battle_campaign}/battles/{self.me['battle_id']}"
        if me["reports"]:
            winner = self.rng.choice([me["battle_player_id"], me["opponent_id"]])
            r = self.api("POST", f"{url}/result", "/campaigns/[cid]/battles/[bid]/result", json={"winner_player_ids": [winner]})
        else:
            r = self.api("POST", f"{url}/confirm", "/campaigns/[cid]/battles/[bid]/confirm")
        self.battle_done = r.status_code == 200


class GameMaster(Member):
    """One GM per table: moves the league between Preparation and Orders, watches the pages."""

    fixed_count = int(os.environ.get("CLUB_NIGHT_GMS", "0") or 0) or len(PLAN.get("tables", [])) or 1
    wait_time = between(1 * PACE, 4 * PACE)

    def on_start(self):
        self.table = PLAN["tables"][next(NEXT_GM) % len(PLAN["tables"])]
        self.headers = {"Authorization": f"Bearer {self.table['gm_token']}"}
        # The night opens with Orders (the setup opened them); from then on the GM goes back and
        # forth, holding each phase a while so that members act in both, even in a short run.
        self.phase, self.since = "orders", time.monotonic()
        self.login(self.table["gm"])

    @task(3)
    def change_phase(self):
        """Moves the phase once it has been held PHASE_HOLD; every task of the GM looks first,
        so a short run moves it whichever tasks locust happens to pick."""
        if time.monotonic() - self.since < PHASE_HOLD:
            return
        target = "orders" if self.phase == "preparation" else "preparation"
        r = self.api("POST", f"/campaigns/{self.table['league']}/phase", "/campaigns/[cid]/phase", json={"phase": target})
        if r.status_code == 200:
            self.phase, self.since = target, time.monotonic()

    @task(3)
    def dashboard(self):
        self.change_phase()
        self.client.get(f"/campaigns/{self.table['league']}", name="GET /campaigns/[cid] (dashboard)")

    @task(1)
    def orders_page(self):
        self.change_phase()
        self.client.get(f"/campaigns/{self.table['league']}/orders", name="GET /campaigns/[cid]/orders")

    @task(1)
    def battles_page(self):
        self.change_phase()
        self.client.get(f"/campaigns/{self.table['battle']}/battles", name="GET /campaigns/[cid]/battles")

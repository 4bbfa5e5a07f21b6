"""Lighthouse's mobile audit of every app page (issue 30: each category ≥ 95), against a demo
server on a free port with a temporary var dir.

    make lighthouse            # or: .venv/bin/python tools/lighthouse.py [--only map,shop] [--runs 3]

Prints one row per page: performance, accessibility, best practices, SEO, and the audits that
cost points. Exits 1 when a score is under 95. Lighthouse 12.2.3 from npm (tools/node/lighthouse)
drives Debian's Chromium (`make chromium`).

Each page is audited by whoever uses it (`PAGES`: the demo's game master, Anna the player, or
an anonymous visitor), in the state of the round where it has something to show: the demo is
played on through Orders, Battles (Anna's result waits for the other sides: her battle table
page and the confirm link she shares) and Settlement, and each page is audited at its step.

Every HTML page of the page routers (`@router.get` in app/*/pages.py, map_pages.py,
table_pages.py, main.py) is here, except what is not a page:
- /campaigns/{cid}/export, /calendar/{token}.ics: downloads (JSON, iCalendar);
- /media/{name}, /campaigns/{cid}/battles/{bid}/photos/{id}, /sw.js, /favicon.ico: files;
- /campaigns/{cid}/send: a redirect to the warband's send page (`warband-send`);
- /campaigns/{cid}/map/places/{pid}: without htmx it redirects to the map with the sheet open
  (audited as `map-place`), with htmx it is a fragment;
- the people (co-GMs, away rounds, seats), roster import, ready map, clock and webhook routes
  are POSTs only: their forms are on the players, company, map, battle and rules pages.

Performance is simulated from what the browser observed, so a busy machine costs points (its
slow tasks are multiplied by Lighthouse's CPU slowdown): the table says the load average at the
start and the end, and --runs N audits each page N times and reports the median."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.load.servers import free_port, server_env  # noqa: E402

LIGHTHOUSE = REPO / "tools" / "node" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
CHROME = shutil.which("chromium") or "/usr/bin/chromium"
CHROME_FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
    "--disable-sync --no-first-run"
)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
THRESHOLD = 95
GM, PLAYER, ANONYMOUS = "gm", "player", "anonymous"
# Page -> who audits it, grouped by the step of the round it is audited at (STEPS below).
PAGES: dict[str, str] = {
    # Preparation (the demo as it starts), and the pages outside any campaign
    "login": ANONYMOUS,
    "register": ANONYMOUS,
    "offline": ANONYMOUS,
    "digest-confirm": ANONYMOUS,
    "digest-unsubscribe": ANONYMOUS,
    "digest-done": ANONYMOUS,
    "screen": ANONYMOUS,
    "api-docs": GM,
    "home": PLAYER,
    "account": PLAYER,
    "catalog": PLAYER,
    "catalog-faction": PLAYER,
    "campaign-new": GM,
    "campaign-import": GM,
    **{f"setup-{step}": GM for step in range(1, 7)},
    "dashboard": GM,
    "dashboard-player": PLAYER,
    "players": GM,
    "rules": GM,
    "map": GM,
    "map-place": GM,
    "new-place": GM,
    "places": GM,
    "place-edit": GM,
    "events": GM,
    "audit": GM,
    "standings": GM,
    "season-book": GM,
    "companies": GM,
    "company": PLAYER,
    "shop": PLAYER,
    "ledger": PLAYER,
    "transfer-new": PLAYER,
    "warbands": PLAYER,
    "warband-new": PLAYER,
    "warband-edit": PLAYER,
    "guilds": PLAYER,
    "alliances": PLAYER,
    "letters": PLAYER,
    "letter-new": PLAYER,
    "letter": PLAYER,
    "chronicle": GM,
    # Orders
    "warband-send": PLAYER,
    "orders": PLAYER,
    # Battles: Anna's result waits for the other sides
    "battles": GM,
    "battle": GM,
    "battle-table": PLAYER,
    "confirm": ANONYMOUS,
    "confirm-done": ANONYMOUS,
    # Settlement
    "settlement": PLAYER,
    "ransoms": PLAYER,
    "twilight": GM,
}


def start(tmp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = server_env(f"sqlite:///{tmp / 'hideout.sqlite3'}", tmp / "var")
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/login", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"the demo server did not start: {(tmp / 'server.log').read_text()[-2000:]}")


def logged_in(url: str, nickname: str = "master") -> httpx.Client:
    client = httpx.Client(base_url=url, follow_redirects=False, timeout=30)
    token = re.search(r'name="csrf_token" value="([0-9a-f]+)"', client.get("/login").text).group(1)
    r = client.post("/login", data={"csrf_token": token, "nickname": nickname, "password": "vanguard-demo"})
    assert r.status_code == 303, r.text[:300]
    return client


class Demo:
    """The demo campaign, driven through the API as its game master and players."""

    def __init__(self, base: str, gm: httpx.Client, player: httpx.Client) -> None:
        self.base, self.gm, self.player = base, gm, player
        home = gm.get("/").text
        self.cid = int(re.search(r'href="/campaigns/(\d+)"', home).group(1))
        self.c = f"/campaigns/{self.cid}"
        self.auth = {}
        for nickname in ("master", "anna", "borys", "celina"):
            r = httpx.post(base + "/api/v1/auth/tokens", json={"nickname": nickname, "password": "vanguard-demo"}, timeout=30)
            self.auth[nickname] = {"Authorization": f"Bearer {r.json()['token']}"}
        self.anna = self.call("get", "/company", "anna")["player_id"]

    def call(self, method: str, path: str, who: str, body: object = None, campaign: bool = True) -> object:
        url = self.base + "/api/v1" + (self.c if campaign else "") + path
        r = httpx.request(method, url, json=body, headers=self.auth[who], timeout=30)
        assert r.status_code < 300, (method, path, r.status_code, r.text[:300])
        return r.json() if r.content else None

    def own_warband(self, nickname: str) -> int:
        me = self.call("get", "/company", nickname)["player_id"]
        return next(w["id"] for w in self.call("get", "/warbands", nickname) if w["player_id"] == me)

    def battle(self) -> int:
        return self.call("get", "/battles", "master")["items"][0]["id"]


def in_preparation(d: Demo) -> dict[str, str]:
    """The demo as it starts, plus what it lacks: a campaign in setup (the wizard), a letter to
    Anna, a club screen link."""
    c = d.c
    setup = d.call("post", "/campaigns", "master", {"name": "Lighthouse"}, campaign=False)["id"]
    letter = d.call("post", "/letters", "borys", {"to_player_id": d.anna, "subject": "Terms", "body": "Shall we talk?"})
    screen = d.call("post", "/screen-links", "master")["url"]
    faction = re.search(r'href="(/catalog/[\w-]+)"', d.player.get("/catalog").text)
    place = d.call("get", "/places", "master")[0]["id"]
    warband = d.own_warband("anna")
    paths = {
        "login": "/login",
        "register": "/register",
        "offline": "/offline",
        "digest-confirm": "/digest/confirm?token=lighthouse",
        "digest-unsubscribe": "/digest/unsubscribe?token=lighthouse",
        "digest-done": "/digest/done",
        "screen": httpx.URL(screen).path,
        "api-docs": "/api/docs",
        "home": "/",
        "account": "/account",
        "catalog": "/catalog",
        "campaign-new": "/campaigns/new",
        "campaign-import": "/campaigns/new/import",
        **{f"setup-{step}": f"/campaigns/{setup}/setup/{step}" for step in range(1, 7)},
        "dashboard": c,
        "dashboard-player": c,
        "players": c + "/players",
        "rules": c + "/rules",
        "map": c + "/map",
        "map-place": c + f"/map?place={place}",
        "new-place": c + "/map/new-place",
        "places": c + "/places",
        "place-edit": c + f"/places/{place}/edit",
        "events": c + "/events",
        "audit": c + "/audit",
        "standings": c + "/standings",
        "season-book": c + "/season-book",
        "companies": c + "/companies",
        "company": c + "/company",
        "shop": c + "/shop",
        "ledger": c + "/ledger",
        "transfer-new": c + "/transfers/new",
        "warbands": c + "/warbands",
        "warband-new": c + "/warbands/new",
        "warband-edit": c + f"/warbands/{warband}/edit",
        "guilds": c + "/guilds",
        "alliances": c + "/alliances",
        "letters": c + "/letters",
        "letter-new": c + "/letters/new",
        "letter": c + f"/letters/{letter['id']}",
        "chronicle": c + "/chronicle",
    }
    if faction:
        paths["catalog-faction"] = faction.group(1)
    return paths


def in_orders(d: Demo) -> dict[str, str]:
    d.call("post", "/phase", "master", {"phase": "orders"})
    return {
        "warband-send": d.c + f"/warbands/{d.own_warband('anna')}/send",
        "orders": d.c + "/orders",
    }


def in_battles(d: Demo) -> dict[str, str]:
    """Every warband goes to the Crown event, the battle is fought and Anna enters her win: the
    others have yet to confirm it, and she shares a confirm link."""
    event = d.call("get", "/events", "master")[0]["id"]
    for nickname in ("anna", "borys", "celina"):
        d.call("put", f"/warbands/{d.own_warband(nickname)}/order", nickname, {"event_id": event})
    d.call("post", "/phase", "master", {"phase": "battles"})
    bid = d.battle()
    d.call("post", f"/battles/{bid}/result", "anna", {"winner_player_ids": [d.anna]})
    link = d.call("post", f"/battles/{bid}/confirm-link", "anna")["url"]
    return {
        "battles": d.c + "/battles",
        "battle": d.c + f"/battles/{bid}",
        "battle-table": d.c + f"/battles/{bid}",
        "confirm": httpx.URL(link).path,
        "confirm-done": "/confirm-done",
    }


def in_settlement(d: Demo) -> dict[str, str]:
    bid = d.battle()
    for nickname in ("borys", "celina"):
        httpx.post(d.base + f"/api/v1{d.c}/battles/{bid}/confirm", headers=d.auth[nickname], timeout=30)
    d.call("post", "/phase", "master", {"phase": "settlement"})
    paths = {"ransoms": d.c + "/ransoms", "twilight": d.c + "/twilight"}
    settle = re.search(rf'href="({d.c}/battles/\d+/settlements/\d+)"', d.player.get(d.c + f"/battles/{bid}").text)
    if settle:
        paths["settlement"] = settle.group(1)
    return paths


STEPS: tuple[Callable[[Demo], dict[str, str]], ...] = (in_preparation, in_orders, in_battles, in_settlement)


class AuditFailed(Exception):
    """Lighthouse failed twice on a page: its last line of errors."""


def audit(url: str, cookie: str | None, out: Path) -> dict:
    headers = json.dumps({"Cookie": cookie}) if cookie else None
    cmd = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        f"--chrome-path={CHROME}",
        f"--chrome-flags={CHROME_FLAGS}",
        "--only-categories=" + ",".join(CATEGORIES),
        "--form-factor=mobile",
    ]
    if headers:
        cmd.append(f"--extra-headers={headers}")
    # Under a heavy load Chromium now and then fails to start or to answer: once more, then say so.
    for attempt in (1, 2):
        try:
            subprocess.run(cmd, check=True, timeout=300, capture_output=True)
            break
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            if attempt == 2:
                said = (getattr(exc, "stderr", b"") or b"").decode(errors="replace").strip().splitlines()
                raise AuditFailed(said[-1] if said else str(exc)) from exc
    report = json.loads(out.read_text())
    scores = {k: round((report["categories"][k]["score"] or 0) * 100) for k in CATEGORIES}
    weak = sorted(
        {
            a["id"]
            for cat in report["categories"].values()
            for ref in cat["auditRefs"]
            if ref.get("weight") and (a := report["audits"][ref["id"]]).get("score") is not None and a["score"] < 0.9
        }
    )
    return {"scores": scores, "weak": weak}


def load() -> str:
    """The 1, 5 and 15 minute load averages (2 cores shared: above 1.5 the scores swing)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def audit_page(name: str, url: str, cookie: str | None, runs: int, reports: Path) -> bool:
    """Audits one page `runs` times, prints its row; True when a category is under the threshold."""
    try:
        done = [audit(url, cookie, reports / (f"{name}.json" if runs == 1 else f"{name}-{i + 1}.json")) for i in range(runs)]
    except AuditFailed as exc:
        print(f"{name:<18} (Lighthouse failed: {exc})", flush=True)
        return True
    # The median of each category; the audits below 0.9 of the run with the median performance.
    s = {k: round(statistics.median(r["scores"][k] for r in done)) for k in CATEGORIES}
    result = sorted(done, key=lambda r: r["scores"]["performance"])[(len(done) - 1) // 2]
    each = f"  (performance of each run: {', '.join(str(r['scores']['performance']) for r in done)})" if runs > 1 else ""
    print(
        f"{name:<18} {s['performance']:>5} {s['accessibility']:>5} {s['best-practices']:>5} {s['seo']:>5}  "
        + " ".join(result["weak"])
        + each,
        flush=True,
    )
    return min(s.values()) < THRESHOLD


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated page names: " + ",".join(PAGES))
    parser.add_argument("--keep", help="a folder to keep the JSON reports in")
    parser.add_argument("--runs", type=int, default=1, help="audits of each page; the median is reported")
    args = parser.parse_args(argv)
    if not LIGHTHOUSE.exists():
        raise SystemExit(f"Lighthouse is not installed at {LIGHTHOUSE}: run `make lighthouse`.")
    wanted = args.only.split(",") if args.only else list(PAGES)
    unknown = [name for name in wanted if name not in PAGES]
    if unknown:
        raise SystemExit(f"unknown pages: {', '.join(unknown)}")
    tmp = Path(tempfile.mkdtemp(prefix="hideout-lighthouse-"))
    reports = Path(args.keep) if args.keep else tmp
    reports.mkdir(parents=True, exist_ok=True)
    proc, base = start(tmp)
    try:
        clients = {GM: logged_in(base), PLAYER: logged_in(base, "anna")}
        # Without the login's flash cookie: else every page would show "Welcome back".
        cookies = {who: "; ".join(f"{k}={v}" for k, v in c.cookies.items() if k != "hideout_flash") for who, c in clients.items()}
        cookies[ANONYMOUS] = None
        demo = Demo(base, clients[GM], clients[PLAYER])
        print(f"load average {load()} at the start; {args.runs} run(s) a page, the median")
        print(f"{'page':<18} {'perf':>5} {'a11y':>5} {'best':>5} {'seo':>5}  below 0.9")
        failed, reached = False, set()
        for step in STEPS:
            # A step moves the demo on: its pages are audited before the next one.
            try:
                pages = step(demo)
            except (AssertionError, KeyError, IndexError, StopIteration, httpx.HTTPError) as exc:
                print(f"(the demo could not be played on at {step.__name__}, so its pages and later ones are left: {exc})")
                break
            for name in (n for n in wanted if n in pages):
                reached.add(name)
                failed |= audit_page(name, base + pages[name], cookies[PAGES[name]], args.runs, reports)
        for name in (n for n in wanted if n not in reached):
            print(f"{name:<18} (not reached in the demo campaign)")
            failed = True
        print(f"load average {load()} at the end")
        return 1 if failed else 0
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())

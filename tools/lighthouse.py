"""Lighthouse's mobile audit of every app page (issue 30: each category ≥ 95), against a demo
server on a free port with a temporary var dir, logged in as the demo's game master.

    make lighthouse            # or: .venv/bin/python tools/lighthouse.py [--only map,shop] [--runs 3]

Prints one row per page: performance, accessibility, best practices, SEO, and the audits that
cost points. Exits 1 when a score is under 95. Lighthouse 12.2.3 from npm (tools/node/lighthouse)
drives Debian's Chromium (`make chromium`).

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
PAGES = (
    "dashboard",
    "map",
    "company",
    "shop",
    "warbands",
    "orders",
    "battles",
    "battle",
    "settlement",
    "chronicle",
    "letters",
    "guilds",
    "account",
    "login",
    "api-docs",
)
GM_PAGES = {"dashboard", "map", "battles", "battle", "settlement", "chronicle", "api-docs"}


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


def play_to_settlement(url: str, cid: int) -> None:
    """The demo waits in Preparation: every warband goes to the Crown event, the battle is
    fought (Anna wins, the others confirm) and Settlement opens, so that a battle page and a
    settlement page exist to measure."""
    api = httpx.Client(base_url=url + f"/api/v1/campaigns/{cid}", timeout=30)
    auth = {}
    for nickname in ("master", "anna", "borys", "celina"):
        r = httpx.post(url + "/api/v1/auth/tokens", json={"nickname": nickname, "password": "vanguard-demo"}, timeout=30)
        auth[nickname] = {"Authorization": f"Bearer {r.json()['token']}"}

    def ok(r: httpx.Response) -> object:
        assert r.status_code < 300, (r.request.url, r.status_code, r.text[:300])
        return r.json() if r.content else None

    ok(api.post("/phase", json={"phase": "orders"}, headers=auth["master"]))
    event = ok(api.get("/events", headers=auth["master"]))[0]["id"]
    players = ("anna", "borys", "celina")
    for nickname in players:
        me = ok(api.get("/company", headers=auth[nickname]))["player_id"]
        for warband in ok(api.get("/warbands", headers=auth[nickname])):
            if warband["player_id"] == me:
                ok(api.put(f"/warbands/{warband['id']}/order", json={"event_id": event}, headers=auth[nickname]))
    ok(api.post("/phase", json={"phase": "battles"}, headers=auth["master"]))
    battles = ok(api.get("/battles", headers=auth["master"]))
    battle = battles["items"][0]
    anna = ok(api.get("/company", headers=auth["anna"]))["player_id"]
    ok(api.post(f"/battles/{battle['id']}/result", json={"winner_player_ids": [anna]}, headers=auth["anna"]))
    for nickname in players[1:]:
        api.post(f"/battles/{battle['id']}/confirm", headers=auth[nickname])
    ok(api.post("/phase", json={"phase": "settlement"}, headers=auth["master"]))


def urls(client: httpx.Client, base: str) -> dict[str, str]:
    home = client.get("/").text
    cid = int(re.search(r'href="/campaigns/(\d+)"', home).group(1))
    c = f"/campaigns/{cid}"
    try:
        play_to_settlement(base, cid)
    except (AssertionError, KeyError, IndexError, httpx.HTTPError) as exc:
        print(f"(the demo could not be played to Settlement, so no battle or settlement page: {exc})")
    found = {
        "dashboard": c,
        "map": c + "/map",
        "company": c + "/company",
        "shop": c + "/shop",
        "warbands": c + "/warbands",
        "orders": c + "/orders",
        "battles": c + "/battles",
        "chronicle": c + "/chronicle",
        "letters": c + "/letters",
        "guilds": c + "/guilds",
        "account": "/account",
        "login": "/login",
        "api-docs": "/api/docs",
    }
    battles = client.get(c + "/battles").text
    battle = re.search(rf'href="({c}/battles/\d+)"', battles)
    if battle:
        found["battle"] = battle.group(1)
        settle = re.search(rf'href="({c}/battles/\d+/settlements/\d+)"', client.get(battle.group(1)).text)
        if settle:
            found["settlement"] = settle.group(1)
    return found


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
    subprocess.run(cmd, check=True, timeout=300, capture_output=True)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated page names: " + ",".join(PAGES))
    parser.add_argument("--keep", help="a folder to keep the JSON reports in")
    parser.add_argument("--runs", type=int, default=1, help="audits of each page; the median is reported")
    args = parser.parse_args(argv)
    if not LIGHTHOUSE.exists():
        raise SystemExit(f"Lighthouse is not installed at {LIGHTHOUSE}: run `make lighthouse`.")
    tmp = Path(tempfile.mkdtemp(prefix="hideout-lighthouse-"))
    reports = Path(args.keep) if args.keep else tmp
    reports.mkdir(parents=True, exist_ok=True)
    proc, base = start(tmp)
    try:
        client = logged_in(base)
        # The GM's pages as the GM; a player's own (company, shop, warbands, orders…) as Anna.
        cookies = {
            who: "; ".join(f"{k}={v}" for k, v in c.cookies.items())
            for who, c in (("gm", client), ("player", logged_in(base, "anna")))
        }
        pages = urls(client, base)
        wanted = args.only.split(",") if args.only else list(PAGES)
        print(f"load average {load()} at the start; {args.runs} run(s) a page, the median")
        print(f"{'page':<12} {'perf':>5} {'a11y':>5} {'best':>5} {'seo':>5}  below 0.9")
        failed = False
        for name in wanted:
            if name not in pages:
                print(f"{name:<12} (not in the demo campaign)")
                continue
            cookie = None if name == "login" else cookies["gm" if name in GM_PAGES else "player"]
            runs = [
                audit(base + pages[name], cookie, reports / (f"{name}.json" if args.runs == 1 else f"{name}-{i + 1}.json"))
                for i in range(args.runs)
            ]
            # The median of each category; the audits below 0.9 of the run with the median performance.
            s = {k: round(statistics.median(r["scores"][k] for r in runs)) for k in CATEGORIES}
            result = sorted(runs, key=lambda r: r["scores"]["performance"])[(len(runs) - 1) // 2]
            failed |= min(s.values()) < THRESHOLD
            print(
                f"{name:<12} {s['performance']:>5} {s['accessibility']:>5} {s['best-practices']:>5} {s['seo']:>5}  "
                + " ".join(result["weak"])
                + (
                    f"  (performance of each run: {', '.join(str(r['scores']['performance']) for r in runs)})"
                    if len(runs) > 1
                    else ""
                ),
                flush=True,
            )
        print(f"load average {load()} at the end")
        return 1 if failed else 0
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())

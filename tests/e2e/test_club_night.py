"""Issue 29 "Measured": a club night at 390x844 in Chromium — a GM and three players, set up
through the API, then the round's main tasks through the pages only. Every action button is
double-tapped (a nervous thumb at the table) and must act once and say what it did (R11.6);
every tap is counted per task against the issue's bounds; each page touched is kept as a
screenshot in English and in Polish (test-artifacts/club-night-*-en.png / -pl.png) and the
closing table goes to test-artifacts/club-night-taps.md."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from playwright.sync_api import Locator, Page, expect

from tests.e2e.campaign_setup import PASSWORD, api, api_player, no_horizontal_overflow
from tests.e2e.conftest import ARTIFACTS, save_screenshot

GM, ORK, BAS, UND = "cngm", "cnork", "cnbas", "cnund"
HOLD, KEEP, CRYPT, BRIDGE, WOOD = "Skull Hold", "Ivory Keep", "Grim Crypt", "Old Bridge", "Dark Wood"
ORK_BAND, BAS_BAND, UND_BAND = "Da Krushas", "Shields of Ivory", "The Restless Nine"
AMBUSH, LIGHTS = "Ambush at the Bridge", "Lights in the Wood"
# No captured or permanent results, so a rolled casualty never asks for more typing.
TABLE = [{"result": "dead"}] + [{"result": "miss_next"}] * 4 + [{"result": "recovered"}] * 5
RANKS = [3, 10, 16, 23, 31]  # taking part + one enemy taken out + an objective reach rank 1
UND_MODELS = ("undead.crypt-gouger",) + ("undead.skeleton",) * 7  # the shop adds the ninth
# The issue's acceptance bounds (taps per task).
BOUNDS = {
    "enter a result (from the dashboard)": 2,
    "confirm a result (from a live toast)": 1,
    "confirm a result (from the dashboard)": 2,
    "buy a model (in the shop)": 1,
    "build and send a 9-model warband": 12,
    "settle a lost battle: three casualties and a promotion": 15,
}
# Bounds today's pages cannot meet (recorded in the table, not asserted): none now. The
# dashboard offers the winner buttons, the toast a Confirm button, the builder one tick for
# every model that can fight.
OVER_TODAY: set[str] = set()
# No gap at all between the taps of a double tap: the confirm dialog sends its form from the
# OK button's click and stays open, holding the page, until the next page comes (issue 29).
DOUBLE_TAP_GAP = 0
WATCH = """
window.__sseOpen = 0;
document.addEventListener("htmx:sseOpen", () => { window.__sseOpen += 1; });
"""


@dataclass
class Person:
    """One person at the table: an English page that does things, a Polish twin that only looks."""

    nickname: str
    page: Page
    polish: Page
    shots: list[str] = field(default_factory=list)


@dataclass
class Taps:
    """Counts taps per task. A double tap is one tap the person meant (the second is the
    nervous thumb); typing into a field is not a tap but is counted apart."""

    counts: dict[str, list[int]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    task: str = ""
    since: float = 0.0

    def start(self, task: str) -> None:
        self.stop()
        self.task, self.since = task, time.monotonic()
        self.counts.setdefault(task, [0, 0])

    def stop(self) -> None:
        """The task's seconds, screenshots included (a task ends when the next starts)."""
        if self.task:
            self.seconds[self.task] = self.seconds.get(self.task, 0.0) + time.monotonic() - self.since
        self.task = ""

    def tap(self, target: Locator) -> None:
        """A single tap: links, checkboxes, chips, steppers (a second tap would undo them)."""
        expect(target).to_have_count(1)
        target.click()
        self.counts[self.task][0] += 1

    def double(self, target: Locator) -> None:
        """An action button, double-tapped: two taps on the same spot DOUBLE_TAP_GAP apart,
        wherever the first one left the page (a dialog, or the next page on its way)."""
        expect(target).to_have_count(1)
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        assert box, f"{target} has no box"
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page = target.page
        page.mouse.click(x, y)
        time.sleep(DOUBLE_TAP_GAP)
        page.mouse.click(x, y)
        self.counts[self.task][0] += 1

    def pick(self, select: Locator, value: str) -> None:
        expect(select).to_have_count(1)
        select.select_option(value)
        self.counts[self.task][0] += 1

    def type(self, target: Locator, text: str) -> None:
        target.fill(text)
        self.counts[self.task][1] += 1

    def taps(self, task: str) -> int:
        return self.counts[task][0]


def _shot(person: Person, name: str) -> None:
    """The page in English as it is, and the same address in Polish on the twin."""
    page = person.page
    no_horizontal_overflow(page, f"{person.nickname}: {name}")
    page.evaluate("window.scrollTo(0, 0)")
    save_screenshot(page, f"club-night-{name}-en")
    person.polish.goto(page.url)
    expect(person.polish.locator("html")).to_have_attribute("lang", "pl")
    no_horizontal_overflow(person.polish, f"{person.nickname}: {name} (pl)")
    person.polish.evaluate("window.scrollTo(0, 0)")  # the address may name an anchor further down
    save_screenshot(person.polish, f"club-night-{name}-pl")
    person.shots.append(name)


def _said(page: Page, text: str | re.Pattern) -> None:
    """The page says what it did, once, and no refusal (no "already …") is shown."""
    expect(page.locator("#flash p[role=status]")).to_have_text(text)
    expect(page.get_by_role("alert")).to_have_count(0)


def _login(page: Page, nickname: str) -> None:
    """Logs in, in either language; the nickname shows in the header (in the account menu
    or as a link, whichever the header has today)."""
    page.goto("/login")
    page.locator("#main input[name=nickname]").fill(nickname)
    page.locator("#main input[name=password]").fill(PASSWORD)
    page.locator("#main form button[type=submit]").click()
    expect(page.locator("header.top")).to_contain_text(nickname)


def _confirm_if_asked(taps: Taps, page: Page) -> None:
    """A one-way button asks in a dialog; its button is double-tapped too."""
    dialog = page.locator("dialog#confirm-dialog[open]")
    try:
        dialog.wait_for(state="visible", timeout=1500)
    except Exception:
        return
    taps.double(dialog.locator(".confirm-ok"))


def _gm_opens(taps: Taps, gm: Person, phase: str, cid: int, token: str, expected: tuple[int, str]) -> None:
    gm.page.goto(f"/campaigns/{cid}")
    taps.double(gm.page.get_by_role("button", name=f"Open {phase}", exact=True))
    _confirm_if_asked(taps, gm.page)
    _said(gm.page, f"Phase changed to {phase}.")
    state = api(gm.page, token, "GET", f"/campaigns/{cid}")
    assert (state["round"], state["phase"]) == expected, state  # one phase on, not two


def _campaign(page: Page) -> tuple[int, dict[str, str], dict[str, int], dict[str, int], dict[str, int]]:
    """Round 1, Preparation: three players with hideouts, two events, the Orc and Basilean
    warbands built, the Undead company one model short of nine."""
    tokens = {n: api_player(page, n) for n in (GM, ORK, BAS, UND)}
    g = tokens[GM]
    cid = api(
        page,
        g,
        "POST",
        "/campaigns",
        {
            "name": "Club night",
            "max_players": 3,
            "starting_gold": 400,
            "gold_per_point": 1,
            "warband_points": 300,
            "settlement_rules": {"casualty_table": TABLE, "ranks": RANKS},
        },
        status=201,
    )["id"]
    places = {}
    for name, x, y, hideout in (
        (HOLD, 20, 20, True),
        (KEEP, 80, 20, True),
        (CRYPT, 20, 80, True),
        (BRIDGE, 50, 50, False),
        (WOOD, 80, 80, False),
    ):
        places[name] = api(
            page,
            g,
            "POST",
            f"/campaigns/{cid}/places",
            {"name": name, "x": x, "y": y, "income": 3, "hideout_slot": hideout},
            status=201,
        )["id"]
    ids = {}
    for nickname in (ORK, BAS, UND):
        api(page, g, "POST", f"/campaigns/{cid}/invitations", {"nickname": nickname}, status=201)
        ids[nickname] = api(page, tokens[nickname], "POST", f"/campaigns/{cid}/invitations/accept")["player_id"]
    api(page, g, "POST", f"/campaigns/{cid}/status", {"status": "hideouts"})
    for nickname, place in ((ORK, HOLD), (BAS, KEEP), (UND, CRYPT)):
        api(page, tokens[nickname], "POST", f"/campaigns/{cid}/hideouts", {"place_id": places[place]}, status=201)
    api(page, g, "POST", f"/campaigns/{cid}/status", {"status": "running"})
    events = {
        title: api(
            page,
            g,
            "POST",
            f"/campaigns/{cid}/events",
            {"place_id": places[where], "title": title, "text": "Tonight."},
            status=201,
        )["id"]
        for title, where in ((AMBUSH, BRIDGE), (LIGHTS, WOOD))
    }
    bands = {}
    for nickname, faction, profiles, band in (
        (ORK, "orcs", ("orcs.krusher", "orcs.ax", "orcs.ax"), ORK_BAND),
        (BAS, "basileans", ("basileans.veteran-sergeant",) + ("basileans.man-at-arms",) * 3, BAS_BAND),
        (UND, "undead", UND_MODELS, None),
    ):
        t = tokens[nickname]
        api(page, t, "PUT", f"/campaigns/{cid}/company/faction", {"faction": faction})
        models = [api(page, t, "POST", f"/campaigns/{cid}/company/models", {"profile": p}, status=201)["id"] for p in profiles]
        if band:
            bands[nickname] = api(page, t, "POST", f"/campaigns/{cid}/warbands", {"name": band, "model_ids": models}, status=201)[
                "id"
            ]
    return cid, tokens, ids, bands, events


def test_issue29_r11_6_club_night_every_action_double_tapped_acts_once_within_the_tap_bounds(new_page):
    """Issue 29 (R11.6 one tap acts once, the issue's tap bounds): a GM and three players play
    round 1 on phones. Each action button is double-tapped and acts once — one purchase (gold
    and company), one phase step, one order, one result, one confirmation, one casualty roll,
    one closed settlement, one new round — and the page says what it did, never "already …".
    Taps per task are measured against the bounds and written to club-night-taps.md."""
    started = time.monotonic()
    people = {}
    for n in (GM, ORK, BAS, UND):
        page = new_page(n)
        people[n] = Person(n, page, new_page(f"{n}-pl", locale="pl-PL"))
    people[BAS].page.add_init_script(WATCH)
    gm, ork, bas, und = (people[n] for n in (GM, ORK, BAS, UND))
    cid, tokens, ids, bands, events = _campaign(gm.page)
    print(f"\nset up through the API in {time.monotonic() - started:.1f} s")
    base = f"/campaigns/{cid}"
    for person in people.values():
        _login(person.page, person.nickname)
        person.polish.context.add_cookies(person.page.context.cookies())  # the same person, looking in Polish
    taps = Taps()
    defects: list[str] = []  # a double tap that acted wrongly: reported at the end, after the table
    notes: list[str] = []

    # --- buy a model, in the shop (≤ 1) ----------------------------------------------
    und.page.goto(f"{base}/shop")
    _shot(und, "shop")
    before = api(und.page, tokens[UND], "GET", f"/campaigns/{cid}/company")
    card = und.page.locator("article.model-card").filter(has=und.page.get_by_role("heading", name="Zombie", exact=True))
    taps.start("buy a model (in the shop)")
    taps.double(card.get_by_role("button", name=re.compile(r"^Buy for \d+ gold$")))
    _said(und.page, "Bought Zombie for 6 gold.")
    after = api(und.page, tokens[UND], "GET", f"/campaigns/{cid}/company")
    assert len(after["models"]) == len(before["models"]) + 1 == 9, after["models"]
    assert after["gold"] == before["gold"] - 6, (before["gold"], after["gold"])
    _shot(und, "shop-bought")

    # --- the GM opens Orders; the others' orders go in through the API ---------------
    taps.start("GM: open Orders")
    _gm_opens(taps, gm, "Orders", cid, tokens[GM], (1, "orders"))
    _shot(gm, "dashboard-gm-orders")
    for nickname in (ORK, BAS):
        api(gm.page, tokens[nickname], "PUT", f"/campaigns/{cid}/warbands/{bands[nickname]}/order", {"event_id": events[AMBUSH]})

    # --- build and send a 9-model warband (≤ 12) ---------------------------------------
    und.page.goto(f"{base}/warbands")
    _shot(und, "warbands")
    taps.start("build and send a 9-model warband")
    taps.tap(und.page.get_by_role("link", name="New warband"))
    taps.type(und.page.get_by_label("Name"), UND_BAND)
    taps.tap(und.page.get_by_label("Every model that can fight"))
    expect(und.page.locator("#check")).to_contain_text("79 / 300 pts")
    expect(und.page.locator("#check").get_by_text("ready to save")).to_be_visible()
    _shot(und, "builder")
    taps.double(und.page.get_by_role("button", name="Save the warband"))
    expect(und.page.get_by_role("heading", name="Warbands", exact=True)).to_be_visible()
    expect(und.page.get_by_role("alert")).to_have_count(0)
    made = api(und.page, tokens[UND], "GET", f"/campaigns/{cid}/warbands")
    made = made["items"] if isinstance(made, dict) else made
    assert [w["name"] for w in made] == [UND_BAND], made  # saved once
    card = und.page.locator("article.card").filter(has=und.page.get_by_role("heading", name=UND_BAND))
    taps.tap(card.get_by_role("link", name="Send"))
    expect(und.page.get_by_role("heading", name=f"Send {UND_BAND}")).to_be_visible()
    _shot(und, "send")
    taps.tap(und.page.get_by_role("radio", name=re.compile(rf"^{re.escape(LIGHTS)}")))
    taps.double(und.page.get_by_role("button", name="Send the warband"))
    _confirm_if_asked(taps, und.page)
    expect(card.locator("p.sent")).to_have_text(re.compile(r"^Sent to "))
    expect(und.page.get_by_role("alert")).to_have_count(0)
    sent = card.locator("p.sent").inner_text().strip()
    if sent != f"Sent to {LIGHTS} · {WOOD}":
        defects.append(
            f"Send the warband, double-tapped with its dialog: chose {LIGHTS} but the page says '{sent}' "
            "(the second tap reaches the page under the closing dialog before the form is sent)"
        )
    _shot(und, "warbands-sent")

    # --- Battles: the Basilean's dashboard stays open to hear the result ---------------
    bas.page.goto(base)
    taps.start("GM: open Battles")
    _gm_opens(taps, gm, "Battles", cid, tokens[GM], (1, "battles"))
    _shot(gm, "dashboard-gm-battles")
    battles = api(gm.page, tokens[GM], "GET", f"/campaigns/{cid}/battles")["items"]
    assert len(battles) == 1, battles  # Old Bridge; the Undead meet nobody in the wood
    bid = battles[0]["id"]
    bas.page.goto(base)
    bas.page.wait_for_function("() => window.__sseOpen >= 1", timeout=10_000)

    # --- enter a result, from the dashboard (≤ 2) --------------------------------------
    ork.page.goto(base)
    _shot(ork, "dashboard-player-battle")
    taps.start("enter a result (from the dashboard)")
    taps.double(ork.page.locator("main ul.battle-todo").get_by_role("button", name=f"{ORK} won", exact=True))
    _confirm_if_asked(taps, ork.page)
    expect(ork.page.locator("#result")).to_contain_text(f"Winners: {ORK}")
    expect(ork.page.get_by_role("alert")).to_have_count(0)
    reported = api(gm.page, tokens[GM], "GET", f"/campaigns/{cid}/battles/{bid}")
    assert (reported["status"], reported["winners"]) == ("reported", [ids[ORK]]), reported
    _shot(ork, "battle-reported")

    # --- confirm it: from the live toast if it offers a way, else from the dashboard ---
    toast = bas.page.locator("#toasts .toast").filter(has_text=f"A result waits for your confirmation: the battle at {BRIDGE}.")
    expect(toast).to_be_visible()
    save_screenshot(bas.page, "club-night-toast-en", full_page=False)
    confirm_button = toast.get_by_role("button", name=re.compile("Confirm"))
    toast_link = toast.get_by_role("link")
    if confirm_button.count() == 1:
        route = "confirm a result (from a live toast)"
        taps.start(route)
        taps.double(confirm_button)
    else:
        route = "confirm a result (from a live toast)" if toast_link.count() else "confirm a result (from the dashboard)"
        if not toast_link.count():
            notes.append("The live toast offers neither a link nor a Confirm button: the result is confirmed from the dashboard.")
        taps.start(route)
        link = (
            toast_link.first
            if toast_link.count()
            else bas.page.locator("main ul.battle-todo").get_by_role("link", name=re.compile(r"^Confirm the result: "))
        )
        taps.tap(link)
        taps.double(bas.page.locator("#result").get_by_role("button", name="Confirm", exact=True))
    _confirm_if_asked(taps, bas.page)
    expect(bas.page.locator("#result")).to_contain_text(f"Winners: {ORK}")
    expect(bas.page.get_by_role("alert")).to_have_count(0)
    decided = api(gm.page, tokens[GM], "GET", f"/campaigns/{cid}/battles/{bid}")
    assert (decided["status"], decided["confirmed_by"]) == ("confirmed", [ids[BAS]]), decided
    _shot(bas, "battle-confirmed")

    # --- settle the lost battle: three casualties and a promotion (≤ 15) ----------------
    taps.start("GM: open Settlement")
    _gm_opens(taps, gm, "Settlement", cid, tokens[GM], (1, "settlement"))
    api(gm.page, tokens[ORK], "POST", f"/campaigns/{cid}/battles/{bid}/settlements/{bands[ORK]}/close")
    sergeant, *men = [m["id"] for m in api(bas.page, tokens[BAS], "GET", f"/campaigns/{cid}/company")["models"]]
    bas.page.goto(base)
    _shot(bas, "dashboard-player-settle")
    taps.start("settle a lost battle: three casualties and a promotion")
    settle = bas.page
    taps.tap(settle.locator("main ul.settle-todo").get_by_role("link", name=f"Settle this battle: {BAS_BAND} at {BRIDGE}"))
    expect(settle.get_by_role("heading", name=f"Settle {BAS_BAND}")).to_be_visible()
    for m in men:
        taps.tap(settle.locator(f"li#m-{m}").get_by_text("Taken out"))
    taps.pick(settle.locator(f"#injury_{men[1]}"), "miss_next")
    taps.pick(settle.locator(f"#injury_{men[2]}"), "recovered")
    taps.tap(settle.locator(f"li#m-{sergeant}").get_by_role("button", name="one more"))
    taps.tap(settle.locator(f"li#m-{sergeant}").get_by_text("Objective"))
    expect(settle.locator(f"#xp_{sergeant}")).to_have_value("3")
    taps.double(settle.locator(f".injury[data-model='{men[0]}']").get_by_role("button", name="Roll"))
    rolled = settle.locator(f".injury[data-model='{men[0]}'] .rolled")
    expect(rolled).to_have_text(re.compile(r"^rolled \d+: "))
    expect(settle.get_by_role("alert")).to_have_count(0)
    promo = settle.locator(f"#promo_{sergeant}_1")
    expect(promo).to_be_visible()
    taps.type(promo, "Melee 4+")
    _shot(bas, "settlement")
    taps.double(settle.get_by_role("button", name="Close the settlement", exact=True))
    _confirm_if_asked(taps, settle)
    _said(settle, "The settlement is closed.")
    done = api(gm.page, tokens[BAS], "GET", f"/campaigns/{cid}/battles/{bid}/settlements/{bands[BAS]}")
    assert done["status"] == "closed", done
    out = done["steps"]["course"]["taken_out"]
    if sorted(out) != sorted(men) or len(done["steps"]["injuries"]) != 3:
        defects.append(
            f"Close the settlement, double-tapped with its dialog: three models taken out, but {len(out)} closed as "
            "casualties (the second tap reaches the page under the closing dialog before the form is sent)"
        )
    company = {m["id"]: m for m in api(bas.page, tokens[BAS], "GET", f"/campaigns/{cid}/company")["models"]}
    assert (company[sergeant]["xp"], company[sergeant]["rank"]) == (3, 1), company[sergeant]
    _shot(bas, "settlement-closed")

    # --- Twilight and End round: one round on, not two ----------------------------------
    taps.start("GM: open Twilight")
    _gm_opens(taps, gm, "Twilight", cid, tokens[GM], (1, "twilight"))
    taps.start("GM: end the round")
    gm.page.goto(f"{base}/twilight")
    _shot(gm, "twilight")
    taps.double(gm.page.get_by_role("button", name="End round 1", exact=True))
    _confirm_if_asked(taps, gm.page)
    _said(gm.page, "Round 1 ended; round 2 begins.")
    state = api(gm.page, tokens[GM], "GET", f"/campaigns/{cid}")
    assert (state["round"], state["phase"]) == (2, "preparation"), state
    _shot(gm, "dashboard-gm-round-2")

    _report(taps, defects, notes, time.monotonic() - started)


def _report(taps: Taps, defects: list[str], notes: list[str], seconds: float) -> None:
    taps.stop()
    lines = ["| task | taps | bound | typed fields | | seconds |", "|---|---|---|---|---|---|"]
    over = []
    for task, (count, typed) in taps.counts.items():
        bound = BOUNDS.get(task)
        verdict = "" if bound is None else ("met" if count <= bound else "OVER")
        if bound is not None and count > bound:
            over.append(task)
        lines.append(f"| {task} | {count} | {'' if bound is None else bound} | {typed} | {verdict} | {taps.seconds[task]:.1f} |")
    lines.append(f"\nA double tap counts as one tap. Whole night: {seconds:.1f} s.")
    lines += [f"\n{n}" for n in notes]
    lines += ["", "Double taps that acted wrongly:" if defects else "Every double-tapped action acted once."]
    lines += [f"- {d}" for d in defects]
    table = "\n".join(lines) + "\n"
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "club-night-taps.md").write_text("# Club night: taps per task (issue 29)\n\n" + table)
    print("\n" + table)
    unexpected = [t for t in over if t not in OVER_TODAY]
    assert not unexpected, f"over the issue's bound: {unexpected}\n{table}"
    assert not defects, "\n".join(defects)

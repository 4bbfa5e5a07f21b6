"""What the browser tests share: logging in and registering, the JSON API as an integrator
uses it, screenshots, layout checks, the map's markers and taps, and a small running campaign
built through the API (like the demo of `make run`: a GM, two players with hideouts,
companies, a warband and an event). Nicknames carry a prefix, since every test shares one
server."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from playwright.sync_api import Locator, Page, expect

PASSWORD = "correct horse battery"
HOLD, KEEP, BRIDGE = "Skull Hold", "Ivory Keep", "Old Bridge"


# --- people ----------------------------------------------------------------------------------


def register(page: Page, nickname: str) -> None:
    """Creates an account on the register page (English), which logs the new user in."""
    page.goto("/register")
    expect(page.get_by_role("heading", name="Create an account")).to_be_visible()
    page.get_by_label("Nickname").fill(nickname)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    # The nickname shows in the header: in the account menu (issue 29) or as a link, as login() reads it.
    expect(page.locator("header.top")).to_contain_text(nickname)


def login(page: Page, nickname: str) -> None:
    """Logs in on the login page, in whatever language it is shown."""
    page.goto("/login")
    page.locator("#main input[name=nickname]").fill(nickname)
    page.locator("#main input[name=password]").fill(PASSWORD)
    page.locator("#main form button[type=submit]").click()
    # The nickname shows in the header: in the account menu (issue 29) or as a link.
    expect(page.locator("header.top")).to_contain_text(nickname)


def api_player(page: Page, nickname: str) -> str:
    """Registers `nickname` through the JSON API and returns a Bearer token."""
    response = page.request.post("/api/v1/users", data={"nickname": nickname, "password": PASSWORD})
    assert response.status == 201, (response.status, response.text())
    response = page.request.post("/api/v1/auth/tokens", data={"nickname": nickname, "password": PASSWORD})
    assert response.status == 201, (response.status, response.text())
    return response.json()["token"]


def api(page: Page, token: str, method: str, path: str, data: dict | None = None, status: int = 200) -> dict:
    response = page.request.fetch(f"/api/v1{path}", method=method, data=data, headers={"Authorization": f"Bearer {token}"})
    assert response.status == status, (method, path, response.status, response.text())
    return response.json() if response.status != 204 else {}


# --- pages -----------------------------------------------------------------------------------


def language_button(page: Page, name) -> Locator:
    """The header's language button (named in its own language, e.g. "Polski"), with the
    account menu (or, logged out, the language menu) it sits in opened first (issue 29: out of the header's tap zone)."""
    menu = page.locator("header.top details.account-menu, header.top details.language-menu")
    if menu.count() and menu.get_attribute("open") is None:
        menu.locator("summary").click()
    return page.locator("header.top").get_by_role("button", name=name)


def no_horizontal_overflow(page: Page, where: str) -> None:
    sizes = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert sizes[0] <= sizes[1] + 1, f"{where} overflows horizontally at {sizes[1]} px (scrollWidth, innerWidth = {sizes})"


# Every visible element whose text could be cut: a block's content wider than its box, or an
# inline one reaching past the page's right edge. A scrolling container (a table wrapper) is
# meant to scroll, and text only screen readers hear (.sr-only, 1 px) has no box to fit.
OVERFLOWING = """
() => {
  const found = [];
  const page = document.documentElement.clientWidth;
  const sel = "button, a.button, nav a, label, td, th, .badge, summary, h1, h2, h3, .tabs a, .flash p";
  for (const el of document.querySelectorAll(sel)) {
    const box = el.getBoundingClientRect();
    if (box.width <= 2 || box.height <= 2 || el.closest(".sr-only") || el.closest("[hidden], dialog:not([open]), details:not([open]) > :not(summary)")) continue;
    const style = getComputedStyle(el);
    if (["auto", "scroll"].includes(style.overflowX)) continue;
    if (el.closest("[data-scroll], .table-scroll, .scroll-x")) continue;
    const text = (el.innerText || el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 60);
    if (style.display === "inline") {
      if (box.right > page + 1) found.push(`${el.tagName.toLowerCase()} "${text}" ends at ${Math.round(box.right)} > ${page}`);
    } else if (el.scrollWidth > el.clientWidth + 1) {
      found.push(`${el.tagName.toLowerCase()} "${text}" is ${el.scrollWidth} wide in ${el.clientWidth}`);
    }
  }
  return found;
}
"""


def fits_a_phone(page: Page, where: str) -> None:
    """SPEC R11.3 (issue 34): no sideways scroll and no text running out of its box."""
    no_horizontal_overflow(page, where)
    cut = page.evaluate(OVERFLOWING)
    assert cut == [], f"{where}: text overflows its box:\n" + "\n".join(cut)


def shot(screenshot, page: Page, name: str) -> None:
    """A full-page screenshot taken from the top, so the sticky header sits where it belongs."""
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, name)


def tab(page: Page, name: str) -> Locator:
    """A tab of the campaign's navigation."""
    return page.get_by_role("navigation", name="Campaign").get_by_role("link", name=name, exact=True)


def gold(page: Page) -> int:
    """The gold badge on the Company or Shop page."""
    text = page.locator("main .badge.gold").first.inner_text()
    return int(re.fullmatch(r"\s*(\d+) gold\s*", text).group(1))


def pick(page: Page, model: str) -> Locator:
    """The warband builder's checkboxes for `model` (one per company model of that profile:
    'Ax', or 'Ax 1', 'Ax 2' when the company holds more than one, issue 29)."""
    return (
        page.locator("label.pick-model")
        .filter(has=page.locator("strong", has_text=re.compile(rf"^{re.escape(model)}( \d+)?$")))
        .locator("input[type=checkbox]")
    )


# --- the map ---------------------------------------------------------------------------------


def svg(page: Page) -> Locator:
    return page.locator("svg#map")


def marker(page: Page, name: str) -> Locator:
    return page.locator("#map a.pl").filter(has=page.locator("text.n", has_text=re.compile(rf"^{re.escape(name)} ·")))


def centre(locator: Locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box, f"{locator} has no box"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def tap(page: Page, x: float, y: float) -> None:
    """A finger tap (the contexts have has_touch). Note: a *mouse* click on a marker does
    nothing in map.js today - pointerdown's svg.setPointerCapture retargets the click to
    the <svg> - so the map tests tap as a phone does."""
    page.touchscreen.tap(x, y)


def tap_marker(page: Page, name: str) -> None:
    """A tap on the marker's circle (the <a> also spans its label below)."""
    found = marker(page, name)
    expect(found).to_have_count(1)
    found.scroll_into_view_if_needed()
    tap(page, *centre(found.locator("circle").first))


def mode(page: Page, name: str) -> None:
    """A tool of the map editor's toolbar."""
    page.get_by_role("toolbar", name="Map tools").get_by_role("radio", name=name, exact=True).check()


def crumbs(page: Page) -> Locator:
    return page.get_by_role("navigation", name="Maps")


def mode_if_gm(page: Page, name: str) -> None:
    """The editor's tool, where the toolbar is shown (to the GM)."""
    radios = page.get_by_role("toolbar", name="Map tools").get_by_role("radio", name=name, exact=True)
    if radios.count():
        radios.check()


def open_sheet(page: Page, name: str) -> Locator:
    """Taps a place's marker in View mode and returns its details sheet."""
    mode_if_gm(page, "View")
    tap_marker(page, name)
    sheet = page.locator("#sheet")
    expect(sheet.locator("#sheet-h")).to_have_text(re.compile(rf"^(⚑ |⌂ )?{re.escape(name)}$"))
    return sheet


# --- a running campaign ----------------------------------------------------------------------


@dataclass
class Setup:
    cid: int
    gm: str
    players: tuple[str, str]
    tokens: dict[str, str]
    places: dict[str, int]
    warband_id: int | None = None
    model_ids: list[int] = field(default_factory=list)
    password: str = PASSWORD

    @property
    def base(self) -> str:
        return f"/campaigns/{self.cid}"


def running_campaign(
    page: Page, prefix: str, *, modules: dict | None = None, warband: bool = True, phase: str = "preparation"
) -> Setup:
    """Round 1 of a campaign with two players (Orcs and Basileans), three places, an event
    at Old Bridge, and (with `warband`) the first player's warband; `phase` is "preparation",
    "orders" or "battles" (both warbands sent to Old Bridge)."""
    gm, ork, bas = f"{prefix}gm", f"{prefix}ork", f"{prefix}bas"
    tokens = {name: api_player(page, name) for name in (gm, ork, bas)}
    g = tokens[gm]
    cid = api(
        page,
        g,
        "POST",
        "/campaigns",
        {
            "name": f"Campaign {prefix}",
            "max_players": 2,
            "starting_gold": 400,
            "gold_per_point": 1,
            "warband_points": 200,
            **({"modules": modules} if modules else {}),
        },
        status=201,
    )["id"]
    places = {}
    for name, x, y, hideout in ((HOLD, 20, 25, True), (KEEP, 80, 30, True), (BRIDGE, 50, 70, False)):
        places[name] = api(
            page,
            g,
            "POST",
            f"/campaigns/{cid}/places",
            {"name": name, "x": x, "y": y, "income": 3, "hideout_slot": hideout},
            status=201,
        )["id"]
    for nickname in (ork, bas):
        api(page, g, "POST", f"/campaigns/{cid}/invitations", {"nickname": nickname}, status=201)
        api(page, tokens[nickname], "POST", f"/campaigns/{cid}/invitations/accept")
    api(page, g, "POST", f"/campaigns/{cid}/status", {"status": "hideouts"})
    api(page, tokens[ork], "POST", f"/campaigns/{cid}/hideouts", {"place_id": places[HOLD]}, status=201)
    api(page, tokens[bas], "POST", f"/campaigns/{cid}/hideouts", {"place_id": places[KEEP]}, status=201)
    api(page, g, "POST", f"/campaigns/{cid}/status", {"status": "running"})
    event = api(
        page,
        g,
        "POST",
        f"/campaigns/{cid}/events",
        {"place_id": places[BRIDGE], "title": "Ambush at the Bridge", "text": "Goblins wait under the **bridge**."},
        status=201,
    )
    setup = Setup(cid=cid, gm=gm, players=(ork, bas), tokens=tokens, places=places)
    bands = {}
    for nickname, faction, profiles in (
        (ork, "orcs", ("orcs.krusher", "orcs.ax", "orcs.ax")),
        (bas, "basileans", ("basileans.veteran-sergeant", "basileans.man-at-arms")),
    ):
        t = tokens[nickname]
        api(page, t, "PUT", f"/campaigns/{cid}/company/faction", {"faction": faction})
        models = [api(page, t, "POST", f"/campaigns/{cid}/company/models", {"profile": p}, status=201) for p in profiles]
        if nickname == ork:
            setup.model_ids = [m["id"] for m in models]
        if warband or phase == "battles":
            bands[nickname] = api(
                page,
                t,
                "POST",
                f"/campaigns/{cid}/warbands",
                {"name": f"{nickname} band", "model_ids": [m["id"] for m in models]},
                status=201,
            )["id"]
    setup.warband_id = bands.get(ork)
    if phase in ("orders", "battles"):
        api(page, g, "POST", f"/campaigns/{cid}/phase", {"phase": "orders"})
    if phase == "battles":
        for nickname in (ork, bas):
            api(page, tokens[nickname], "PUT", f"/campaigns/{cid}/warbands/{bands[nickname]}/order", {"event_id": event["id"]})
        api(page, g, "POST", f"/campaigns/{cid}/phase", {"phase": "battles"})
    return setup


class Taps:
    """Counts a person's taps on links and buttons (and picks from a list)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, target: Locator) -> None:
        expect(target).to_have_count(1)
        target.tap()
        self.count += 1

    def pick(self, target: Locator, value: str) -> None:
        expect(target).to_have_count(1)
        target.select_option(value)
        self.count += 1

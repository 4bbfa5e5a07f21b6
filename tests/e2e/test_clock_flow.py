"""The battle clock (issue 18) at 390x844 in Chromium, in English and in Polish: two players,
each on their own phone, run one battle's clock. One starts it and taps to pass; the other's
page follows through the live stream, never reloaded. A double tap passes once (the clock is
disabled while the tap is on its way) and a tap on a stale clock is refused. When a side's
time is spent the page shows the pack's out-of-time rule at once; its tap passes, and the other
side plays on, turn after turn. "End the game" asks first, then the card says the game is over.
Screenshots of each state go to test-artifacts/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from app.core.i18n import translations
from tests.e2e.campaign_setup import api, login, no_horizontal_overflow, running_campaign, shot
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_live_flow import WATCH, _follow, _not_reloaded

MINUTES = 1
OUT_MS = 2500  # the time the GM leaves one side: long enough to see it count down, short enough to wait for
LIVE_TIMEOUT = 6_000  # a tap on one phone reaches the other through the live stream well within this

# The texts the test reads on the clock card (templates/clock/_clock.html) and its answers.
READY = "not started"
WHO_FIRST = "Who plays first?"
STARTS = "%(side)s starts"
MINUTES_PER_SIDE = ("%(num)d minute per side", "%(num)d minutes per side")
TURNS = ("%(num)d turn", "%(num)d turns")
TURN_OF = "turn %(turn)s of %(turns)s"
PLAYING = "playing — tap when done"
PASS = "%(side)s is done: pass the clock"
CHANGED = "The clock changed meanwhile (another tap came first); here it is as it stands now."
OUT = "%(side)s is out of time."
TAP_WHEN_DONE = "Tap the clock when the action is finished."
OUT_IN_TURN = "out of time in turn %(turn)s"
END = "End the game"
END_QUESTION = "End the game now?"
GAME_OVER = "game over"
ENDED = "The game ended in turn %(turn)s: %(reason)s."
AT_THE_TABLE = "ended at the table"


class Texts:
    """The clock's texts in the page's language. For Polish each msgid must have a
    translation; a missing one is noted (the page then shows the English text, which the
    test follows so the whole flow still runs) and the test fails at the end, naming them."""

    def __init__(self, locale: str) -> None:
        self.polish = locale.startswith("pl")
        self.catalog = translations("pl") if self.polish else None
        self.missing: list[str] = []

    def __call__(self, msgid: str, **params) -> str:
        text = msgid
        if self.polish:
            text = self.catalog.gettext(msgid)
            if text == msgid and msgid not in self.missing:
                self.missing.append(msgid)
        return text % params if params else text

    def plural(self, msgids: tuple[str, str], num: int) -> str:
        singular, plural = msgids
        text = singular if num == 1 else plural
        if self.polish:
            text = self.catalog.ngettext(singular, plural, num)
            if text in msgids and singular not in self.missing:
                self.missing.append(singular)
        return text % {"num": num}


def _exact(text: str) -> re.Pattern:
    return re.compile(rf"^\s*{re.escape(text)}\s*$")


def _card(page: Page) -> Locator:
    return page.locator("#clock")


def _badge(page: Page) -> Locator:
    return page.locator("#clock > .row .badge")


def _side(page: Page, side: int) -> Locator:
    return page.locator(f"#clock .clock-side[data-side='{side}']")


def _tap_button(page: Page, side: int) -> Locator:
    """The running side's big panel: a tap passes the clock."""
    return page.locator(f"#clock form.clock-side.running[data-side='{side}'] button.clock-tap")


def _running(page: Page, side: int) -> None:
    expect(_card(page)).to_have_attribute("data-status", "running", timeout=LIVE_TIMEOUT)
    expect(_card(page)).to_have_attribute("data-running", str(side), timeout=LIVE_TIMEOUT)
    expect(_tap_button(page, side)).to_be_visible()


def _clock(page: Page, token: str, cid: int, bid: int) -> dict:
    return api(page, token, "GET", f"/campaigns/{cid}/battles/{bid}/clock")


def _clock_posts(page: Page) -> list[str]:
    """Every tap the page sends (a POST to the battle's clock form)."""
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and re.search(r"/battles/\d+/clock$", r.url) else None)
    return posts


def _screens(screenshot, page: Page, name: str, saved: list) -> None:
    no_horizontal_overflow(page, name)
    shot(screenshot, page, name)
    saved.append(ARTIFACTS / f"{name}.png")


@pytest.mark.parametrize(
    ("locale", "prefix", "suffix"), [("en-GB", "cke", ""), ("pl-PL", "ckp", "-pl")], ids=["english", "polish"]
)
def test_issue18_the_battle_clock_on_two_phones(new_page, screenshot, locale, prefix, suffix):
    """Issue 18 at the table, at 390x844: the clock started and passed on one phone shows on
    the other without a reload; a double tap passes once and a stale tap is refused, changing
    nothing; a side out of time sees the out-of-time rule at once, passes, and is recorded
    "out of time in turn 1" while the other side keeps playing; "End the game" asks first and
    ends it. In Polish every text read is Polish (the test fails, naming the msgids, while the
    catalog lacks them)."""
    t = Texts(locale)
    a, b = new_page("ork", has_touch=True, locale=locale), new_page("bas", has_touch=True, locale=locale)
    for page in (a, b):
        page.add_init_script(WATCH)
    saved: list = []

    # --- a battle in Battles, the campaign's clock at one minute per side (API) ----------
    setup = running_campaign(a, prefix, phase="battles")
    ork, bas = setup.players
    gm_token = setup.tokens[setup.gm]
    api(
        a,
        gm_token,
        "PUT",
        f"/campaigns/{setup.cid}/clock-settings",
        {"minutes_per_side": MINUTES, "max_turns": 6, "extra_turn_on": 4},
    )
    battles = api(a, gm_token, "GET", f"/campaigns/{setup.cid}/battles")["items"]
    assert len(battles) == 1, battles
    bid = battles[0]["id"]
    battle_url = f"{setup.base}/battles/{bid}"
    players = {p["nickname"]: p["player_id"] for p in api(a, gm_token, "GET", f"/campaigns/{setup.cid}/players")}
    clock = _clock(a, gm_token, setup.cid, bid)
    assert clock["status"] == "ready" and clock["minutes_per_side"] == MINUTES, clock
    side_of = {nick: next(s["side"] for s in clock["sides"] if players[nick] in s["player_ids"]) for nick in (ork, bas)}
    sa, sb = side_of[ork], side_of[bas]
    name_a, name_b = f"{ork} band", f"{bas} band"

    for page, nickname in ((a, ork), (b, bas)):
        login(page, nickname)
        page.goto(battle_url)
        expect(page.locator("html")).to_have_attribute("lang", locale[:2])
        expect(_card(page)).to_have_attribute("data-status", "ready")
        _follow(page)

    # --- the ready clock: who plays first? ------------------------------------------------
    expect(_badge(a)).to_have_text(_exact(t(READY)))
    expect(_card(a)).to_contain_text(t(WHO_FIRST))
    expect(_card(a)).to_contain_text(f"{t.plural(MINUTES_PER_SIDE, MINUTES)} · {t.plural(TURNS, 6)}")
    start_a = a.locator(f"#clock form:has(input[name=side][value='{sa}']) button.clock-start")
    expect(start_a).to_have_text(_exact(t(STARTS, side=name_a)))
    expect(a.locator("#clock button.clock-start")).to_have_count(2)
    _screens(screenshot, a, f"clock-ready{suffix}", saved)

    # --- A starts, A's side first; B's page follows --------------------------------------
    start_a.tap()
    _running(a, sa)
    expect(_badge(a)).to_have_text(_exact(t(TURN_OF, turn=1, turns=6)))
    expect(_side(a, sa).locator(".clock-state")).to_have_text(_exact(t(PLAYING)))
    expect(_tap_button(a, sa)).to_have_attribute("aria-label", t(PASS, side=name_a))
    expect(_side(a, sa).locator(".clock-time")).to_have_text(re.compile(r"^[01]:\d\d$"))
    expect(_side(a, sb).locator(".clock-time")).to_have_text("1:00")
    _running(b, sa)
    _not_reloaded(b)
    _screens(screenshot, a, f"clock-running{suffix}", saved)

    # --- A taps twice in a row: the clock passes once ---------------------------------------
    posts = _clock_posts(a)
    held = []  # the tap, held on its way so the test sees the clock while it waits for the answer
    pattern = re.compile(rf"/battles/{bid}/clock$")
    a.route(pattern, lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    box = _tap_button(a, sa).bounding_box()
    assert box, "the running side has no box"
    a.mouse.dblclick(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(_tap_button(a, sa)).to_be_disabled()
    for _ in range(40):
        if held:
            break
        a.wait_for_timeout(50)
    assert len(held) == 1, f"the double tap sent {len(held)} taps"
    expect(a.locator("#clock button:not([disabled])")).to_have_count(0)
    held[0].continue_()
    a.unroute(pattern)
    _running(a, sb)
    _running(b, sb)  # without a reload, through the stream
    _not_reloaded(b)
    assert len(posts) == 1, posts
    clock = _clock(a, gm_token, setup.cid, bid)
    assert (clock["status"], clock["turn"], clock["running_side"], clock["version"]) == ("running", 1, sb, 2), clock

    # A tap on a clock the page saw before (a stale version) is refused and changes nothing.
    a.evaluate(f"document.querySelector(\"#clock form.clock-side[data-side='{sb}'] input[name=version]\").value = '1'")
    _tap_button(a, sb).tap()
    expect(a.locator("#clock .alert.error[role=alert]")).to_have_text(_exact(t(CHANGED)))
    # A live refresh landing after it (the first tap's own event, late on a busy phone) brings
    # the clock already shown: the message stays.
    with a.expect_response(lambda r: r.request.headers.get("x-hideout-live") == "1"):
        a.evaluate(
            "document.dispatchEvent(new CustomEvent('htmx:sseMessage', {detail: {type: 'clock', data: '{}', lastEventId: 'late'}}))"
        )
    a.wait_for_timeout(200)
    expect(a.locator("#clock .alert.error[role=alert]")).to_have_text(_exact(t(CHANGED)))
    _running(a, sb)
    assert _clock(a, gm_token, setup.cid, bid)["version"] == 2
    _not_reloaded(a)

    # --- B's time runs out: the rule shows at once, with no reload ------------------------
    api(
        a,
        gm_token,
        "POST",
        f"/campaigns/{setup.cid}/battles/{bid}/clock",
        {"action": "correct", "side": sb, "remaining_ms": OUT_MS},
    )
    rule = b.locator("#clock .clock-out")
    expect(_side(b, sb).locator(".clock-time")).to_have_text(re.compile(r"^0:0[1-3]$"), timeout=LIVE_TIMEOUT)
    expect(rule).to_be_hidden()
    expect(rule).to_be_visible(timeout=OUT_MS + 3_000)
    expect(rule.locator("strong")).to_have_text(_exact(t(OUT, side=name_b)))
    expect(rule).to_contain_text(t(TAP_WHEN_DONE))
    expect(_side(b, sb).locator(".clock-time")).to_have_text("0:00")
    expect(_side(b, sb)).to_have_class(re.compile(r"\bout\b"))
    expect(a.locator("#clock .clock-out")).to_be_visible(timeout=LIVE_TIMEOUT)  # A's page counts down too
    _not_reloaded(b)
    _screens(screenshot, b, f"clock-out-of-time{suffix}", saved)

    # B finishes its action and taps: A plays on, turn after turn; B's side is recorded out.
    _tap_button(b, sb).tap()
    for page in (b, a):
        _running(page, sa)
        expect(_badge(page)).to_have_text(_exact(t(TURN_OF, turn=2, turns=6)))
        expect(_side(page, sb).locator(".clock-state")).to_have_text(_exact(t(OUT_IN_TURN, turn=1)))
        expect(page.locator("#clock .clock-out")).to_be_hidden()
    _tap_button(a, sa).tap()
    for page in (a, b):
        expect(_badge(page)).to_have_text(_exact(t(TURN_OF, turn=3, turns=6)), timeout=LIVE_TIMEOUT)
        _running(page, sa)
    clock = _clock(a, gm_token, setup.cid, bid)
    out_b = next(s for s in clock["sides"] if s["side"] == sb)
    assert (clock["turn"], clock["running_side"], out_b["out_of_time"], out_b["out_turn"]) == (3, sa, True, 1), clock
    _not_reloaded(a)
    _not_reloaded(b)
    _screens(screenshot, a, f"clock-out-passed{suffix}", saved)

    # --- "End the game" asks first, then the card says the game is over -----------------------
    a.locator("#clock .clock-controls button.danger").tap()
    dialog = a.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".confirm-q")).to_have_text(t(END_QUESTION))
    expect(dialog.locator(".confirm-ok")).to_have_text(t(END))
    assert _clock(a, gm_token, setup.cid, bid)["status"] == "running"  # asking changed nothing
    dialog.locator(".confirm-ok").tap()
    for page in (a, b):
        expect(_card(page)).to_have_attribute("data-status", "ended", timeout=LIVE_TIMEOUT)
        expect(_badge(page)).to_have_text(_exact(t(GAME_OVER)))
        expect(_card(page)).to_contain_text(t(ENDED, turn=3, reason=t(AT_THE_TABLE)))
        expect(page.locator("#clock button")).to_have_count(0)
    clock = _clock(a, gm_token, setup.cid, bid)
    assert (clock["status"], clock["ended_reason"]) == ("ended", "manual"), clock
    _not_reloaded(a)
    _not_reloaded(b)
    _screens(screenshot, a, f"clock-ended{suffix}", saved)

    print("\n" + "\n".join(str(path) for path in saved))
    assert not t.missing, "no Polish translation in app/translations/pl/LC_MESSAGES/messages.po for:\n" + "\n".join(t.missing)

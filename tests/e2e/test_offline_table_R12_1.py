"""R12.1 offline at the table, in Chromium at 390x844: the battle page opened once keeps working
without a connection. Offline, the player starts the clock, passes it twice and enters the
result; the page says how many taps wait, runs the clock on the phone and survives a reload.
Back online the taps go to the server in order, each once (their Idempotency-Keys), the page
says what the server took, and a second phone sees the same battle. Then the R12.2 share card
(the QR code) and an R12.3 photo, screenshot at phone size."""

from __future__ import annotations

import re
from io import BytesIO

from PIL import Image
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import BRIDGE, api, login, no_horizontal_overflow, shot

PAGES_CACHE = "hideout-pages-v1"


def _back_online(page: Page) -> None:
    """The connection returns. Chromium fires `online` itself; the event is sent again in case it
    came before the page listened. The page may be reloading by then (its live stream heard of
    what another phone did), and the reloaded page sends what waits all the same."""
    page.context.set_offline(False)
    try:
        page.evaluate("window.dispatchEvent(new Event('online'))")
    except PlaywrightError as exc:
        if "Execution context was destroyed" not in str(exc):
            raise


def _clock(page: Page, token: str, cid: int, bid: int) -> dict:
    return api(page, token, "GET", f"/campaigns/{cid}/battles/{bid}/clock")


def _running(page: Page, side: int) -> None:
    expect(page.locator("#clock")).to_have_attribute("data-status", "running")
    expect(page.locator("#clock")).to_have_attribute("data-running", str(side))
    expect(page.locator(f"#clock form.clock-side.running[data-side='{side}'] button.clock-tap")).to_be_visible()


def _stands(page: Page, side: int) -> None:
    """The server's clock once the result is in: as it stood at the last tap, turn 2."""
    expect(page.locator("#clock")).to_have_attribute("data-status", "paused")
    expect(page.locator("#clock")).to_have_attribute("data-running", str(side))
    expect(page.locator("#clock")).to_have_attribute("data-turn", "2")


def _pass(page: Page, side: int) -> None:
    page.locator(f"#clock form.clock-side.running[data-side='{side}'] button.clock-tap").tap()


def _photo() -> bytes:
    out = BytesIO()
    image = Image.new("RGB", (320, 240), (60, 110, 70))
    for x in range(40, 280):
        for y in range(90, 150):
            image.putpixel((x, y), (150, 120, 80))
    image.save(out, "JPEG")
    return out.getvalue()


def test_r12_1_taps_made_offline_reach_the_server_once_when_back_online(new_page, screenshot, tmp_path):
    from tests.e2e.campaign_setup import running_campaign

    a = new_page("ork", has_touch=True)
    context = a.context
    setup = running_campaign(a, "otb", phase="battles")
    ork, bas = setup.players
    gm = setup.tokens[setup.gm]
    api(a, gm, "PUT", f"/campaigns/{setup.cid}/clock-settings", {"minutes_per_side": 30, "max_turns": 6, "extra_turn_on": 4})
    bid = api(a, gm, "GET", f"/campaigns/{setup.cid}/battles")["items"][0]["id"]
    players = {p["nickname"]: p["player_id"] for p in api(a, gm, "GET", f"/campaigns/{setup.cid}/players")}
    sides = _clock(a, gm, setup.cid, bid)["sides"]
    side_of = {nick: next(s["side"] for s in sides if players[nick] in s["player_ids"]) for nick in (ork, bas)}
    sa, sb = side_of[ork], side_of[bas]
    battle_url = f"{setup.base}/battles/{bid}"

    # --- opened once online: the worker keeps the page and its files -----------------------
    login(a, ork)
    a.goto(battle_url)
    a.wait_for_function("() => navigator.serviceWorker.controller !== null")
    a.reload()  # now through the worker, which keeps this copy
    a.wait_for_function(f"""() => caches.open("{PAGES_CACHE}").then((c) => c.match(location.href)).then(Boolean)""")
    expect(a.locator("#clock")).to_have_attribute("data-status", "ready")

    # --- offline: the page still opens; three clock taps and the result are kept -------------
    context.set_offline(True)
    a.reload()
    expect(a.locator("main h2", has_text=BRIDGE)).to_be_visible()
    expect(a.locator("#offline-banner")).to_be_visible()
    status = a.locator("#table-offline")
    a.locator(f"#clock form:has(input[name=side][value='{sa}']) button.clock-start").tap()
    _running(a, sa)
    expect(status).to_contain_text("1 tap waits to be sent.")
    a.wait_for_timeout(2_000)  # side A plays two seconds, on the phone's clock
    _pass(a, sa)
    _running(a, sb)
    _pass(a, sb)
    _running(a, sa)
    expect(status).to_contain_text("3 taps wait to be sent.")
    expect(a.locator("#clock .badge")).to_contain_text("turn 2 of 6")
    expect(a.locator(f"#clock .clock-side[data-side='{sa}'] .clock-time")).to_have_text(re.compile(r"^(30:00|29:\d\d)$"))
    a.locator("#result form button", has_text=f"{ork} won").tap()
    a.locator("#confirm-dialog .confirm-ok").tap()
    expect(status).to_contain_text("4 taps wait to be sent.")
    expect(a.locator("#result")).to_contain_text("Kept on this phone")
    no_horizontal_overflow(a, "the offline battle page")
    shot(screenshot, a, "r12_1_offline_taps_waiting")
    # A reload offline keeps them, and the clock as the phone runs it.
    a.reload()
    expect(status).to_contain_text("4 taps wait to be sent.")
    _running(a, sa)
    assert _clock(a, gm, setup.cid, bid)["status"] == "ready"  # nothing reached the server yet

    # --- online: sent in order, each once; the page says what the server took -----------------
    _back_online(a)
    expect(a.locator("#table-offline [data-sent]")).to_have_text(
        "Sent when the connection returned: 4 taken, 0 refused.", timeout=15_000
    )
    expect(a.locator("#table-offline [data-waiting]")).to_have_text("")
    clock = _clock(a, gm, setup.cid, bid)
    # Three clock taps (version 3), the result once; with the result in, the clock stands still.
    assert (clock["status"], clock["running_side"], clock["turn"], clock["version"]) == ("paused", sa, 2, 3), clock
    # Each tap counts from when it was made (`at`), not from when it reached the server.
    left = {s["side"]: s["remaining_ms"] for s in clock["sides"]}
    assert left[sa] <= 30 * 60_000 - 1_900, left
    battle = api(a, gm, "GET", f"/campaigns/{setup.cid}/battles/{bid}")
    assert (battle["status"], battle["winners"], battle["reported_by_player_id"]) == ("reported", [players[ork]], players[ork])
    _stands(a, sa)
    shot(screenshot, a, "r12_1_back_online_sent")
    # Going offline and online again sends nothing more.
    context.set_offline(True)
    context.set_offline(False)
    a.wait_for_timeout(500)
    assert _clock(a, gm, setup.cid, bid)["version"] == 3

    # --- a second phone agrees -----------------------------------------------------------------
    b = new_page("bas", has_touch=True)
    login(b, bas)
    b.goto(battle_url)
    _stands(b, sa)
    expect(b.locator("#result")).to_contain_text(f"Winners: {ork}")
    expect(b.locator("#result form[action$='/confirm'] button")).to_be_visible()
    # The other phone loses its connection and confirms: kept, to be sent later.
    b.context.set_offline(True)
    b.locator("#result form[action$='/confirm'] button").tap()
    expect(b.locator("#table-offline")).to_contain_text("1 tap waits to be sent.")

    # --- R12.3 and R12.2 on the reporter's phone: a photo of the table, the QR code to share ------
    photo = tmp_path / "table.jpg"
    photo.write_bytes(_photo())
    a.locator("#photo-file").set_input_files(str(photo))
    a.locator("#photos form[enctype] button[type=submit]").tap()
    expect(a.locator("#photos ul.photos img")).to_have_count(1)
    src = a.locator("#photos ul.photos img").get_attribute("src")
    assert src and src.startswith(f"/campaigns/{setup.cid}/battles/{bid}/photos/")
    a.locator("#share form button").tap()
    expect(a.locator("#share .qr svg")).to_be_visible()
    expect(a.locator("#share input.share-url")).to_have_value(re.compile(r"/confirm/[A-Za-z0-9_-]{40,}$"))
    expect(a.locator("#photos ul.photos img")).to_have_count(1)
    url = a.locator("#share input.share-url").input_value()
    if not a.evaluate("!!navigator.share"):  # headless Chromium: no share sheet, the link is copied
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        a.locator("#share button[data-share-url]").tap()
        expect(a.locator("#share [data-share-said]")).to_have_text("Link copied.")
        assert a.evaluate("navigator.clipboard.readText()") == url
    no_horizontal_overflow(a, "the battle page with the QR code and a photo")
    shot(screenshot, a, "r12_2_r12_3_battle_qr_and_photo")

    # --- R12.2: the other side opens the link on a phone that is not logged in, and confirms ------
    c = new_page("scan", has_touch=True)
    c.goto(url)
    expect(c.get_by_role("heading", level=1, name="Confirm the result")).to_be_visible()
    expect(c.locator("main")).to_contain_text(f"Winners: {ork}")
    asked = c.locator("form:has(input[name=action][value=confirm]) input[name=player_id]")
    expect(asked).to_have_count(1)  # the only one asked: the other side's player, already picked
    expect(asked).to_be_checked()
    assert asked.get_attribute("value") == str(players[bas]), (asked.get_attribute("value"), players)
    no_horizontal_overflow(c, "the confirm link's page")
    shot(screenshot, c, "r12_2_confirm_link_page")
    c.locator("form:has(input[name=action][value=confirm]) button[type=submit]").tap()
    expect(c.get_by_role("heading", level=1, name="Thank you")).to_be_visible()
    assert api(a, gm, "GET", f"/campaigns/{setup.cid}/battles/{bid}")["status"] == "confirmed"
    c.goto(url)  # used up: nothing is shown
    expect(c.locator("main")).not_to_contain_text(ork)

    # --- back online, the other phone's kept confirmation is refused, and the page says why -------
    _back_online(b)
    sent = b.locator("#table-offline")
    expect(sent.locator("[data-sent]")).to_have_text("Sent when the connection returned: 0 taken, 1 refused.", timeout=15_000)
    expect(sent.locator("[data-refused] li")).to_have_text("Confirmation: There is no entered result to confirm.")
    expect(b.locator("#result")).to_contain_text(f"Winners: {ork}")
    no_horizontal_overflow(b, "the page saying what the server refused")
    shot(screenshot, b, "r12_1_refused_after_reconnecting")
    assert api(a, gm, "GET", f"/campaigns/{setup.cid}/battles/{bid}")["confirmed_by"] == [players[bas]]

    # --- offline again, the saved battle page still shows the photo (kept with the page) -----------
    a.goto(battle_url)
    expect(a.locator("#photos ul.photos img")).to_have_count(1)
    a.wait_for_function("() => document.querySelector('#photos ul.photos img').complete")
    a.wait_for_timeout(300)  # the worker stores the page and the photo
    context.set_offline(True)
    a.reload()
    expect(a.locator("#offline-banner")).to_be_visible()
    a.wait_for_function(
        "() => { const i = document.querySelector('#photos ul.photos img'); return i && i.complete && i.naturalWidth > 0; }"
    )
    context.set_offline(False)

"""R11.6 one tap acts once, in Chromium at 390x844: after a sent form, Back and a refresh send
nothing again (post/redirect/get leaves no POST in the history), and without JavaScript (no
button hold from static/app.js) a double tap on Buy still buys once.

Pages say `Cache-Control: no-store`, so Back draws the shop again, with what the purchase
changed ("You own 2") and the viewer's next one-time key; static/app.js puts back the key the
history entry first had, so Buy tapped again after Back is answered with the first purchase."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import api, login, running_campaign, shot

BUY_KRUSHER = re.compile(r"^Buy for 34 gold$")


def _posts(page: Page) -> list[str]:
    """Every POST the page sends from now on (form submissions, htmx, fetch)."""
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if request.method == "POST" else None)
    return sent


def _krusher_card(page: Page):
    return page.locator("article.model-card").filter(has=page.get_by_role("heading", name="Krusher", exact=True))


def _at_the_shop(page: Page, name: str):
    """An Orc player of a running campaign, logged in on the shop: (setup, token, company before)."""
    setup = running_campaign(page, name, warband=False)
    ork, token = setup.players[0], setup.tokens[setup.players[0]]
    login(page, ork)
    page.goto(f"{setup.base}/shop")
    return setup, token, api(page, token, "GET", f"/campaigns/{setup.cid}/company")


def test_e2e_r11_6_back_and_refresh_after_a_purchase_send_nothing_again(new_page, screenshot):
    page = new_page("back", has_touch=True)
    setup, token, before = _at_the_shop(page, "oback")
    expect(_krusher_card(page).locator(".owned")).to_have_text("You own 1")
    posts = _posts(page)
    _krusher_card(page).get_by_role("button", name=BUY_KRUSHER).click()
    expect(page.locator("#flash")).to_contain_text("Bought Krusher for 34 gold.")
    assert len(posts) == 1, posts
    bought = api(page, token, "GET", f"/campaigns/{setup.cid}/company")
    assert len(bought["models"]) == len(before["models"]) + 1 and bought["gold"] == before["gold"] - 34
    # Back to the shop as it was before the tap, and a refresh there; then Forward to the page
    # the purchase led to, and a refresh of that one: the browser asks to post nothing again.
    page.go_back()
    expect(_krusher_card(page).locator(".owned")).to_have_text("You own 2")
    page.reload()
    expect(_krusher_card(page)).to_have_count(1)
    page.go_forward()
    page.reload()
    expect(_krusher_card(page)).to_have_count(1)
    expect(page.locator("#flash")).to_have_count(0)  # the message was said once, on the first view
    assert len(posts) == 1, posts
    after = api(page, token, "GET", f"/campaigns/{setup.cid}/company")
    assert (len(after["models"]), after["gold"]) == (len(bought["models"]), bought["gold"])
    shot(screenshot, page, "one-tap-back-shop")


def test_e2e_r11_6_a_double_tap_without_javascript_buys_once_and_says_so(new_page, screenshot):
    """No script holds the button. Chromium sent one POST for the two taps when this was
    written; a second one would carry the same key and fields and be answered with the first
    one's redirect and message (tests/api/test_idempotency_R11_6.py). Either way: one purchase."""
    page = new_page("nojs", java_script_enabled=False)
    setup, token, before = _at_the_shop(page, "onojs")
    posts = _posts(page)
    button = _krusher_card(page).get_by_role("button", name=BUY_KRUSHER)
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    assert box, "the Buy button has no box"
    page.mouse.dblclick(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator("#flash")).to_contain_text("Bought Krusher for 34 gold.")
    assert 1 <= len(posts) <= 2, posts
    after = api(page, token, "GET", f"/campaigns/{setup.cid}/company")
    assert len(after["models"]) == len(before["models"]) + 1, (len(posts), after["models"])
    assert after["gold"] == before["gold"] - 34
    shot(screenshot, page, "one-tap-nojs-double-buy")


def test_e2e_r11_6_back_and_buy_again_is_answered_with_the_first_purchase(new_page, screenshot):
    page = new_page("backbuy", has_touch=True)
    setup, token, before = _at_the_shop(page, "obackbuy")
    _krusher_card(page).get_by_role("button", name=BUY_KRUSHER).click()
    expect(page.locator("#flash")).to_contain_text("Bought Krusher for 34 gold.")
    page.go_back()
    expect(_krusher_card(page).locator(".owned")).to_have_text("You own 2")
    posts = _posts(page)
    _krusher_card(page).get_by_role("button", name=BUY_KRUSHER).click()
    expect(page.locator("#flash")).to_contain_text("Bought Krusher for 34 gold.")
    assert len(posts) == 1, posts  # it was sent, and answered without acting
    after = api(page, token, "GET", f"/campaigns/{setup.cid}/company")
    assert len(after["models"]) == len(before["models"]) + 1 and after["gold"] == before["gold"] - 34
    # A new visit is a new intent: the fresh key buys a second Krusher.
    page.goto(f"{setup.base}/shop")
    _krusher_card(page).get_by_role("button", name=BUY_KRUSHER).click()
    expect(page.locator("#flash")).to_contain_text("Bought Krusher for 34 gold.")
    again = api(page, token, "GET", f"/campaigns/{setup.cid}/company")
    assert len(again["models"]) == len(before["models"]) + 2 and again["gold"] == before["gold"] - 68
    shot(screenshot, page, "one-tap-back-buy-again")

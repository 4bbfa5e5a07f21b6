"""One-way steps ask first, and every form post lands on a GET page with a flash message
(R11.5), at 390x844 in Chromium: with JavaScript a plain <dialog> asks (one tap, one
confirm); without it the server's own confirm page does. A purchase in the shop comes back
to the card bought, says what it cost, and a reload buys nothing."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.campaign_setup import (
    api as _api,
)
from tests.e2e.campaign_setup import (
    api_player as _api_player,
)
from tests.e2e.campaign_setup import (
    login as _login,
)
from tests.e2e.campaign_setup import (
    no_horizontal_overflow as _no_horizontal_overflow,
)
from tests.e2e.conftest import save_screenshot

GM, ANNA, BORYS = "cfgm", "cfanna", "cfborys"


def confirm_dialog(page: Page, question: str | re.Pattern | None = None):
    """The confirm dialog that a one-way button opens (static/confirm.js)."""
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    if question is not None:
        expect(dialog.locator(".confirm-q")).to_have_text(question)
    return dialog


def _running_campaign(gm: Page, anna: Page, borys: Page, suffix: str) -> tuple[int, dict[str, str]]:
    """A campaign in round 1, Orders, set up through the JSON API."""
    tokens = {n: _api_player(p, n + suffix) for p, n in ((gm, GM), (anna, ANNA), (borys, BORYS))}
    g = tokens[GM]
    cid = _api(gm, g, "POST", "/campaigns", {"name": "Confirm " + suffix, "max_players": 2}, status=201)["id"]
    places = [
        _api(
            gm,
            g,
            "POST",
            f"/campaigns/{cid}/places",
            {"name": f"Place {i}", "hideout_slot": True, "x": 20 + 30 * i, "y": 40},
            status=201,
        )["id"]
        for i in range(3)
    ]
    for page, nickname in ((anna, ANNA), (borys, BORYS)):
        _api(gm, g, "POST", f"/campaigns/{cid}/invitations", {"nickname": nickname + suffix}, status=201)
        _api(page, tokens[nickname], "POST", f"/campaigns/{cid}/invitations/accept")
    _api(gm, g, "POST", f"/campaigns/{cid}/status", {"status": "hideouts"})
    _api(anna, tokens[ANNA], "POST", f"/campaigns/{cid}/hideouts", {"place_id": places[0]}, status=201)
    _api(borys, tokens[BORYS], "POST", f"/campaigns/{cid}/hideouts", {"place_id": places[1]}, status=201)
    _api(gm, g, "POST", f"/campaigns/{cid}/status", {"status": "running"})
    _api(gm, g, "POST", f"/campaigns/{cid}/phase", {"phase": "orders"})
    return cid, tokens


def test_e2e_r2_1_r11_5_open_battles_asks_in_a_dialog_first(new_page):
    """R2.1 and R11.5: "Open Battles" opens a dialog that says what happens; Cancel changes
    nothing; the dialog's button opens Battles and the dashboard says so once."""
    gm, anna, borys = new_page("gm"), new_page("anna"), new_page("borys")
    cid, _tokens = _running_campaign(gm, anna, borys, "1")
    _login(gm, GM + "1")
    gm.goto(f"/campaigns/{cid}")
    heading = gm.locator("#round-h")
    expect(heading).to_have_text("Round 1 · Orders")
    open_battles = gm.get_by_role("button", name="Open Battles", exact=True)
    open_battles.click()
    dialog = confirm_dialog(gm, "Open Battles?")
    expect(dialog).to_contain_text("Orders become public and battles are announced; this cannot be undone.")
    expect(dialog.get_by_role("button", name="Open Battles")).to_be_visible()
    save_screenshot(gm, "confirm-open-battles", full_page=False)
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    expect(heading).to_have_text("Round 1 · Orders")

    open_battles.click()
    confirm_dialog(gm, "Open Battles?").get_by_role("button", name="Open Battles").click()
    expect(heading).to_have_text("Round 1 · Battles")
    expect(gm.get_by_role("status")).to_have_text("Phase changed to Battles.")
    assert gm.url.endswith(f"/campaigns/{cid}"), gm.url
    expect(gm.get_by_role("alert")).to_have_count(0)
    gm.reload()
    expect(heading).to_have_text("Round 1 · Battles")
    expect(gm.get_by_role("status")).to_have_count(0)  # shown once
    _no_horizontal_overflow(gm, "the dashboard after opening Battles")


def test_e2e_r2_3_r11_3_without_javascript_the_server_asks_in_polish(new_page):
    """Without JavaScript the first post only asks (a page of its own, here in Polish);
    its button posts again with confirm=1. End round is the one-way step."""
    gm, anna, borys = new_page("gm"), new_page("anna"), new_page("borys")
    cid, tokens = _running_campaign(gm, anna, borys, "2")
    for phase in ("battles", "settlement", "twilight"):
        _api(gm, tokens[GM], "POST", f"/campaigns/{cid}/phase", {"phase": phase})
    plain = new_page("gm-no-js", java_script_enabled=False, locale="pl-PL")
    _login(plain, GM + "2")
    plain.goto(f"/campaigns/{cid}")
    expect(plain.locator("html")).to_have_attribute("lang", "pl")
    plain.get_by_role("button", name="Zakończ rundę 1", exact=True).click()
    expect(plain.get_by_role("heading", name="Zakończyć rundę 1?")).to_be_visible()
    expect(plain.locator("main")).to_contain_text("tego nie da się cofnąć")
    save_screenshot(plain, "confirm-end-round-pl", full_page=False)
    assert _api(gm, tokens[GM], "GET", f"/campaigns/{cid}")["round"] == 1
    plain.locator("main form").get_by_role("button", name="Zakończ rundę 1").click()
    expect(plain.locator("#round-h")).to_contain_text("Runda 2")
    expect(plain.get_by_role("status")).to_have_text("Runda 1 zakończona; zaczyna się runda 2.")
    assert _api(gm, tokens[GM], "GET", f"/campaigns/{cid}")["round"] == 2


def test_e2e_r3_2_r11_5_a_purchase_comes_back_to_the_card_and_a_reload_buys_nothing(new_page):
    """R3.2 and R11.5: buying answers with a redirect to the shop, at the card bought, with
    "Bought … for … gold."; reloading the page buys nothing; the filter chips still work."""
    gm, anna = new_page("gm"), new_page("anna")
    g, a = _api_player(gm, GM + "3"), _api_player(anna, ANNA + "3")
    cid = _api(gm, g, "POST", "/campaigns", {"name": "Shop run"}, status=201)["id"]
    _api(gm, g, "POST", f"/campaigns/{cid}/invitations", {"nickname": ANNA + "3"}, status=201)
    _api(anna, a, "POST", f"/campaigns/{cid}/invitations/accept")
    _api(anna, a, "PUT", f"/campaigns/{cid}/company/faction", {"faction": "basileans"})
    _login(anna, ANNA + "3")
    anna.goto(f"/campaigns/{cid}/shop")
    gold = anna.locator("main .badge.gold").first
    before = int(re.search(r"\d+", gold.inner_text()).group())
    card = anna.locator("article.model-card").filter(has=anna.get_by_role("heading", name="Man-at-Arms", exact=True))
    card.scroll_into_view_if_needed()
    price = int(re.search(r"Buy for (\d+) gold", card.get_by_role("button").inner_text()).group(1))
    card.get_by_role("button", name=f"Buy for {price} gold").click()
    expect(anna.get_by_role("status")).to_have_text(f"Bought Man-at-Arms for {price} gold.")
    assert re.search(rf"/campaigns/{cid}/shop(\?[^#]*)?#p-basileans\.man-at-arms$", anna.url), anna.url
    # The page did not jump to the top: the card bought is on screen, the flash too.
    expect(card).to_be_in_viewport()
    expect(anna.locator(".flash")).to_be_in_viewport()
    expect(gold).to_have_text(f"{before - price} gold")
    save_screenshot(anna, "shop-after-buy", full_page=False)
    anna.reload()
    expect(anna.get_by_role("status")).to_have_count(0)
    expect(gold).to_have_text(f"{before - price} gold")
    company = _api(anna, a, "GET", f"/campaigns/{cid}/company")
    assert [m["name"] for m in company["models"]] == ["Man-at-Arms"], company
    anna.get_by_role("navigation", name="Model type").get_by_role("link", name="Command").click()
    expect(anna.locator("article.model-card").first).to_be_visible()
    assert "type=Command" in anna.url, anna.url

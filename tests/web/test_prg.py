"""Post/redirect/get with a flash message (R11.5), confirm steps before one-way actions, and
forms that list every problem at once next to its field.

Every successful page form answers 303 See Other to a GET page; that page shows what was done
once ("Bought Krusher for 34 gold."), the page after it no longer does, and reloading it does
nothing again. One-way steps (Open hideout selection, Open Battles, End round, confirming the
company, selling after confirmation, entering a battle result) first answer with a confirm
step that changed nothing; the same post with confirm=1 acts. A refusal answers 303 to the
form's page, whose next GET shows it with its 4xx status (tests/web/test_refused_forms_R11_5.py).
"""

from __future__ import annotations

import html
import importlib
import io
import pkgutil
import re

import pytest
from PIL import Image

import app
from tests.builders.accounts import user
from tests.builders.battles import two_player_battle
from tests.builders.campaigns import create_campaign, join, running_campaign
from tests.builders.companies import buy
from tests.builders.pages import csrf, flash_of, login, post, prg, register
from tests.builders.rounds import event, to_phase

# Every page route that takes a POST, and how it answers. A new page form must be added
# here (and given a test below): a successful post redirects with a flash message.
PRG_ROUTES = {
    "/login",
    "/register",
    "/logout",
    "/language",
    "/account/password",
    "/account/time-zone",
    "/account/tokens",
    "/account/tokens/{token_id}/revoke",
    "/account/sessions/revoke-others",
    "/campaigns/new",
    "/campaigns/{cid}/setup/{step}",
    "/campaigns/{cid}/status",
    "/campaigns/{cid}/phase",
    "/campaigns/{cid}/end-round",
    "/campaigns/{cid}/hideouts",
    "/campaigns/{cid}/invitation/{decision}",
    "/campaigns/{cid}/invitations",
    "/campaigns/{cid}/company/faction",
    "/campaigns/{cid}/company/confirm",
    "/campaigns/{cid}/company/models/{mid}/sell",
    "/campaigns/{cid}/company/items/{iid}/sell",
    "/campaigns/{cid}/company/items/{iid}/assign",
    "/campaigns/{cid}/shop/models",
    "/campaigns/{cid}/shop/items",
    "/campaigns/{cid}/rewards",
    "/campaigns/{cid}/ledger/adjustments",
    "/campaigns/{cid}/events",
    "/campaigns/{cid}/events/{eid}",
    "/campaigns/{cid}/events/{eid}/end",
    "/campaigns/{cid}/events/{eid}/reuse",
    "/campaigns/{cid}/places",
    "/campaigns/{cid}/places/bulk",
    "/campaigns/{cid}/places/{pid}",
    "/campaigns/{cid}/places/{pid}/delete",
    "/campaigns/{cid}/places/{pid}/map",
    "/campaigns/{cid}/map/image",
    "/campaigns/{cid}/paths",
    "/campaigns/{cid}/paths/{path_id}",
    "/campaigns/{cid}/paths/{path_id}/delete",
    "/campaigns/{cid}/warbands/save",
    "/campaigns/{cid}/warbands/{wid}/disband",
    "/campaigns/{cid}/warbands/{wid}/send",
    "/campaigns/{cid}/warbands/{wid}/take-out",
    "/campaigns/{cid}/company/models/{mid}/name",
    # a roster file, after its confirm step (tests/web/test_roster_import_pages.py)
    "/campaigns/{cid}/company/import",
    "/campaigns/{cid}/warbands/{wid}/cancel",
    "/campaigns/{cid}/battles/{bid}/result",
    "/campaigns/{cid}/battles/{bid}/confirm",
    "/campaigns/{cid}/battles/{bid}/dispute",
    "/campaigns/{cid}/battles/{bid}/resolve",
    # the battle clock (tests/web/test_clock_pages.py)
    "/campaigns/{cid}/battles/{bid}/clock",
    "/campaigns/{cid}/clock-settings",
    "/campaigns/{cid}/events/{eid}/clock-settings",
    # settlement and Twilight (tests/web/test_settlement_pages.py)
    "/campaigns/{cid}/battles/{bid}/settlements/{wid}",
    "/campaigns/{cid}/battles/{bid}/settlements/{wid}/reopen",
    "/campaigns/{cid}/ransoms/{rid}/{decision}",
    "/campaigns/{cid}/twilight/choices",
    # guilds and mission alliances (tests/web/test_guild_pages.py, test_alliance_pages.py)
    "/campaigns/{cid}/guilds",
    "/campaigns/{cid}/guilds/{gid}/requests",
    "/campaigns/{cid}/guilds/{gid}/requests/{rid}/{decision}",
    "/campaigns/{cid}/guilds/{gid}/invitations",
    "/campaigns/{cid}/guilds/{gid}/invitations/{iid}/{decision}",
    "/campaigns/{cid}/guilds/{gid}/upgrade",
    "/campaigns/{cid}/guilds/{gid}/leave",
    "/campaigns/{cid}/guilds/{gid}/dissolve",
    "/campaigns/{cid}/alliances",
    "/campaigns/{cid}/alliances/{aid}/accept",
    "/campaigns/{cid}/alliances/{aid}/decline",
    "/campaigns/{cid}/alliances/{aid}/withdraw",
    # gold transfers and letters (tests/web/test_transfer_pages.py, test_letter_pages.py)
    "/campaigns/{cid}/transfers",
    "/campaigns/{cid}/letters",
    "/campaigns/{cid}/letters/{lid}/reply",
    "/campaigns/{cid}/letters/{lid}/read",
    "/campaigns/{cid}/letters/{lid}/unread",
    # warband movement (tests/web/test_movement_pages.py)
    "/campaigns/{cid}/warbands/{wid}/position",
}
from tests.secrecy.matrix import DOMAIN_MATRICES  # noqa: E402

for _extra in DOMAIN_MATRICES:
    PRG_ROUTES |= _extra.PRG
NOT_PRG = {
    "/campaigns/{cid}/letters/preview": "the compose/reply preview changes nothing: it shows the form again with the body as it will be read",
    "/campaigns/{cid}/warbands/check": "the builder's live check changes nothing: it answers the check (a partial with htmx)",
    "/campaigns/{cid}/places/{pid}/move": "dragging a marker (map.js fetch) answers 204; the map says Saved itself",
}


def _page_post_routes() -> set[str]:
    routes = set()
    for info in pkgutil.walk_packages(app.__path__, "app."):
        if info.name.rsplit(".", 1)[-1].endswith("pages"):
            module = importlib.import_module(info.name)
            for route in module.router.routes:
                if "POST" in getattr(route, "methods", set()):
                    routes.add(route.path)
    return routes


def test_r11_5_every_page_post_route_redirects_after_success():
    """The list above is complete: a page form added later must say how it answers."""
    routes = _page_post_routes()
    assert routes - PRG_ROUTES - set(NOT_PRG) == set(), "new page POST route: make it post/redirect/get and list it"
    assert PRG_ROUTES - routes == set(), "listed routes that no longer exist"


# --- the shop (R3.2) ---------------------------------------------------------------------


def _shop_world(client, make_client):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Shop"}, headers=gm).json()["id"]
    anna = join(client, gm, cid, "anna")
    client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=anna["headers"])
    browser = make_client()
    login(browser, "anna")
    return gm, cid, anna, browser


def _gold_and_models(client, cid, anna) -> tuple[int, int, int]:
    company = client.get(f"/api/v1/campaigns/{cid}/company", headers=anna["headers"]).json()
    gold = client.get(f"/api/v1/campaigns/{cid}/ledger", headers=anna["headers"]).json()["balance"]
    return gold, len(company["models"]), len(company["items"])


def test_r3_2_r11_5_buying_redirects_to_the_shop_and_a_refresh_buys_nothing(client, make_client):
    gm, cid, anna, browser = _shop_world(client, make_client)
    before = _gold_and_models(client, cid, anna)
    r = post(browser, f"/campaigns/{cid}/shop/models", {"profile": "orcs.krusher", "type": "Command", "q": ""})
    assert r.status_code == 303
    # Back to the same filter, at the card bought (no jump to the top without JavaScript).
    assert r.headers["location"] == f"/campaigns/{cid}/shop?type=Command#p-orcs.krusher"
    after = _gold_and_models(client, cid, anna)
    assert after == (before[0] - 34, before[1] + 1, before[2])
    first = browser.get(r.headers["location"])
    assert first.status_code == 200 and flash_of(first.text) == "Bought Krusher for 34 gold."
    assert 'id="p-orcs.krusher"' in first.text
    # Refreshing the page the post led to, twice, buys nothing and says nothing again.
    for _ in range(2):
        again = browser.get(r.headers["location"])
        assert again.status_code == 200 and flash_of(again.text) is None
    assert _gold_and_models(client, cid, anna) == after
    # The filter chips are plain GET links to the shop (no 405 after a post).
    chip = re.search(r'href="(/campaigns/\d+/shop\?type=Large[^"]*)"', first.text).group(1)
    assert browser.get(html.unescape(chip)).status_code == 200
    item = next(i for i in client.get("/api/v1/catalog/items").json() if i["rarity"] == "Common")
    gpp = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["settings"]["gold_per_point"]
    target = prg(
        browser,
        f"/campaigns/{cid}/shop/items",
        {"item": item["key"], "q": ""},
        says=f"Bought {item['name']} for {item['points'] * gpp} gold.",
    )
    assert target.endswith(f"#i-{item['key']}")
    assert _gold_and_models(client, cid, anna)[2] == 1


def test_r3_2_r11_5_a_refused_purchase_stays_in_place_and_lists_the_shop(client, make_client):
    gm, cid, anna, browser = _shop_world(client, make_client)
    before = _gold_and_models(client, cid, anna)
    r = post(browser, f"/campaigns/{cid}/shop/models", {"profile": "orcs.nothing", "type": "Large"})
    assert r.status_code == 422 and "There is no model orcs.nothing" in r.text and "Troll" in r.text
    # Its filter links lead to the shop page, not to the post's address.
    assert f'href="/campaigns/{cid}/shop?type=Large' in r.text
    assert _gold_and_models(client, cid, anna) == before


# --- one-way steps ask first (no JavaScript: a confirm page) ------------------------------


def _confirm_form(page: str) -> dict[str, str]:
    """The confirm step's form: its action and hidden fields (confirm=1 among them)."""
    form = page.split('class="card confirm-step"', 1)[1].split("</form>", 1)[0]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    fields.pop("csrf_token", None)
    fields["action"] = re.search(r'action="([^"]+)"', form).group(1)
    return fields


def test_r2_1_open_battles_asks_first_and_changes_nothing_until_confirmed(client, make_client):
    gm, cid, players, places = running_campaign(client)
    to_phase(client, gm, cid, "orders")
    browser = make_client()
    login(browser, "gamemaster")
    dashboard = browser.get(f"/campaigns/{cid}").text
    assert 'data-confirm="Open Battles?"' in dashboard  # the JavaScript dialog's question
    chronicle = client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=gm).json()["items"]
    ask = post(browser, f"/campaigns/{cid}/phase", {"phase": "battles"})
    assert ask.status_code == 200 and "Open Battles?" in ask.text
    assert "Orders become public and battles are announced; this cannot be undone." in ask.text
    form = _confirm_form(ask.text)
    # The confirm step carries the form's one-time key on (R11.6).
    assert form.pop("once").isdigit()
    assert form == {"action": f"/campaigns/{cid}/phase", "phase": "battles", "confirm": "1"}
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["phase"] == "orders"
    assert client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=gm).json()["items"] == chronicle
    target = prg(browser, form.pop("action"), form, says="Phase changed to Battles.")
    assert target == f"/campaigns/{cid}"
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["phase"] == "battles"
    # A refused step is refused at once, without asking (R11.5).
    player = make_client()
    login(player, "player0")
    assert post(player, f"/campaigns/{cid}/phase", {"phase": "settlement"}).status_code == 403


def test_r1_5_open_hideout_selection_asks_first(client, make_client):
    gm, cid, players, places = _campaign_in_setup(client)
    browser = make_client()
    login(browser, "gamemaster")
    ask = post(browser, f"/campaigns/{cid}/status", {"status": "hideouts"})
    assert ask.status_code == 200 and "Open hideout selection?" in ask.text and "This cannot be undone." in ask.text
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["status"] == "setup"
    prg(
        browser,
        f"/campaigns/{cid}/status",
        {"status": "hideouts", "confirm": "1"},
        says="Hideout selection is open; the roster is closed.",
    )
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["status"] == "hideouts"


def _campaign_in_setup(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    places = [
        client.post(f"/api/v1/campaigns/{cid}/places", json={"name": f"Place {i}", "hideout_slot": True}, headers=gm).json()
        for i in range(3)
    ]
    players = [join(client, gm, cid, f"player{i}") for i in range(2)]
    return gm, cid, players, places


def test_r2_3_end_round_asks_first(client, make_client):
    gm, cid, players, places = running_campaign(client)
    to_phase(client, gm, cid, "twilight")
    browser = make_client()
    login(browser, "gamemaster")
    ask = post(browser, f"/campaigns/{cid}/end-round", {"round": "1"})
    assert ask.status_code == 200 and "End round 1?" in ask.text and "round 2 begins with Preparation" in ask.text
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["round"] == 1
    prg(browser, f"/campaigns/{cid}/end-round", {"round": "1", "confirm": "1"}, says="Round 1 ended; round 2 begins.")
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["round"] == 2
    stale = post(browser, f"/campaigns/{cid}/end-round", {"round": "1", "confirm": "1"})
    assert stale.status_code == 409 and flash_of(stale.text) is None


def test_r3_4_r3_5_confirming_the_company_and_selling_after_it_ask_first(client, make_client):
    gm, cid, anna, browser = _shop_world(client, make_client)
    h = anna["headers"]
    leader = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": "orcs.krusher"}, headers=h).json()
    ax = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": "orcs.ax"}, headers=h).json()
    # Before confirmation a sale refunds the full price: no question.
    prg(browser, f"/campaigns/{cid}/company/models/{ax['id']}/sell", says=f"Sold Ax, {ax['price']} gold back.")
    ask = post(browser, f"/campaigns/{cid}/company/confirm")
    assert ask.status_code == 200 and "Confirm the company?" in ask.text and "returns only 50% of its price" in ask.text
    assert client.get(f"/api/v1/campaigns/{cid}/company", headers=h).json()["confirmed"] is False
    prg(browser, f"/campaigns/{cid}/company/confirm", {"confirm": "1"}, says="Company confirmed.")
    page = browser.get(f"/campaigns/{cid}/company").text
    assert 'data-confirm="Sell Krusher for 17 gold back?"' in page
    gold = _gold_and_models(client, cid, anna)
    ask = post(browser, f"/campaigns/{cid}/company/models/{leader['id']}/sell")
    assert ask.status_code == 200 and "Sell Krusher for 17 gold back?" in ask.text
    assert _gold_and_models(client, cid, anna) == gold
    prg(browser, f"/campaigns/{cid}/company/models/{leader['id']}/sell", {"confirm": "1"}, says="Sold Krusher, 17 gold back.")
    assert _gold_and_models(client, cid, anna)[:2] == (gold[0] + 17, gold[1] - 1)


def test_r6_5_r6_8_a_battle_result_says_who_won_then_confirms(client, make_client):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    a = make_client()
    login(a, "player0")
    page = a.get(f"/campaigns/{cid}/battles/{bid}").text
    assert 'data-confirm="player0 won?"' in page and 'data-confirm="A draw?"' in page
    ask = post(a, f"/campaigns/{cid}/battles/{bid}/result", {"winner_one": str(anna["player_id"])})
    assert ask.status_code == 200 and "player0 won?" in ask.text and "asked to confirm" in ask.text
    assert client.get(f"/api/v1/campaigns/{cid}/battles/{bid}", headers=gm).json()["status"] == "announced"
    form = _confirm_form(ask.text)
    assert form["winner_one"] == str(anna["player_id"]) and form["confirm"] == "1"
    prg(a, form.pop("action"), form, says="Result entered: player0 won.")
    assert client.get(f"/api/v1/campaigns/{cid}/battles/{bid}", headers=gm).json()["status"] == "reported"
    b = make_client()
    login(b, "player1")
    prg(b, f"/campaigns/{cid}/battles/{bid}/confirm", says="Result confirmed.")
    g = make_client()
    login(g, "gamemaster")
    prg(g, f"/campaigns/{cid}/battles/{bid}/resolve", {"winner": str(borys["player_id"])}, says="Result decided: player1 won.")


def test_r6_8_dispute_redirects_with_a_flash(client, make_client):
    gm, cid, (anna, borys), bid = two_player_battle(client)
    a = make_client()
    login(a, "player0")
    prg(a, f"/campaigns/{cid}/battles/{bid}/dispute", {"reason": "Wrong table"}, says="The dispute is sent to the game master.")


# --- every other page form ------------------------------------------------------------------


def test_r11_5_account_forms_redirect_with_a_flash(client, make_client):
    prg(
        client,
        "/register",
        {"nickname": "anna", "password": "correct horse battery"},
        token_from="/register",
        says="Welcome, anna! Your account is ready.",
    )
    prg(client, "/logout", says="You are logged out.")
    prg(
        client,
        "/login",
        {"nickname": "anna", "password": "correct horse battery", "next": "/account"},
        token_from="/login",
        says="Welcome back, anna.",
    )
    # The message is read on the next page, in the language just chosen (R11.3).
    prg(client, "/language", {"locale": "pl", "next": "/account"}, says="Zmieniono język na: Polski.")
    prg(client, "/language", {"locale": "en", "next": "/account"}, says="Language changed to English.")
    prg(client, "/account/time-zone", {"time_zone": "Europe/Warsaw"}, token_from="/account", says="Time zone: Europe/Warsaw.")
    other = make_client()
    login(other, "anna")
    prg(client, "/account/sessions/revoke-others", says="Other sessions logged out: 1.")
    prg(
        client,
        "/account/password",
        {"current": "correct horse battery", "new": "another password"},
        says="Your password was changed; your other sessions were logged out.",
    )
    r = post(client, "/account/tokens", {"name": "club-bot"})
    assert r.status_code == 303 and r.headers["location"] == "/account"
    page = client.get("/account").text
    token = re.search(r"<code>([^<]+)</code>", page).group(1)
    assert client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert token not in client.get("/account").text  # shown once, and not kept in a cookie
    assert "hideout_flash" not in client.cookies
    token_id = page.split("/account/tokens/")[1].split("/")[0]
    prg(client, f"/account/tokens/{token_id}/revoke", says="API token club-bot revoked.")


def test_r1_1_r1_4_r1_5_campaign_forms_redirect_with_a_flash(client, make_client):
    register(client, "gamemaster")
    anna, borys, cyril = make_client(), make_client(), make_client()
    for browser, nick in ((anna, "anna"), (borys, "borys"), (cyril, "cyril")):
        register(browser, nick)
    target = prg(client, "/campaigns/new", {"name": "Winter"}, says="Campaign Winter created.")
    cid = int(target.split("/")[2])
    assert target == f"/campaigns/{cid}/setup/2"
    prg(client, f"/campaigns/{cid}/setup/2", {"max_players": "4"}, says="Saved: Players.")
    for name in ("Ravensgate", "Mill", "Ford"):
        prg(
            client,
            f"/campaigns/{cid}/places",
            {"name": name, "hideout_slot": "on", "next": f"/campaigns/{cid}/setup/3"},
            says=f"Place {name} added.",
        )
    for nick in ("anna", "borys", "cyril"):
        prg(client, f"/campaigns/{cid}/invitations", {"nickname": nick}, says=f"{nick} is invited.")
    prg(anna, f"/campaigns/{cid}/invitation/accept", says="You joined Winter.")
    prg(borys, f"/campaigns/{cid}/invitation/decline", says="You declined the invitation to Winter.")
    prg(cyril, f"/campaigns/{cid}/invitation/accept", says="You joined Winter.")
    prg(client, f"/campaigns/{cid}/status", {"status": "hideouts", "confirm": "1"}, says="Hideout selection is open")
    place_ids = [int(p) for p in re.findall(r'name="place_id" value="(\d+)"', anna.get(f"/campaigns/{cid}").text)]
    prg(anna, f"/campaigns/{cid}/hideouts", {"place_id": str(place_ids[0])}, says="Your hideout is at Ravensgate.")
    prg(cyril, f"/campaigns/{cid}/hideouts", {"place_id": str(place_ids[1])}, says="Your hideout is at Mill.")
    prg(
        client,
        f"/campaigns/{cid}/status",
        {"status": "running", "confirm": "1"},
        says="The campaign has started: round 1, Preparation.",
    )
    prg(client, f"/campaigns/{cid}/phase", {"phase": "orders"}, says="Phase changed to Orders.")
    prg(client, f"/campaigns/{cid}/setup/6", {"alliance_fee": "12"}, says="Saved: ")
    prg(client, f"/campaigns/{cid}/status", {"status": "finished", "confirm": "1"}, says="The campaign is finished.")


def test_r3_1_r3_7_r3_8_r3_9_company_forms_redirect_with_a_flash(client, make_client):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Shop"}, headers=gm).json()["id"]
    anna = join(client, gm, cid, "anna")
    browser = make_client()
    login(browser, "anna")
    prg(browser, f"/campaigns/{cid}/company/faction", {"faction": "orcs"}, says="Faction chosen: Orcs.")
    h = anna["headers"]
    leader = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": "orcs.krusher"}, headers=h).json()
    item = client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": "item.bandages"}, headers=h).json()
    prg(
        browser,
        f"/campaigns/{cid}/company/items/{item['id']}/assign",
        {"model_id": str(leader["id"])},
        says=f"{item['name']} given to Krusher.",
    )
    prg(browser, f"/campaigns/{cid}/company/items/{item['id']}/assign", {"model_id": ""}, says=f"{item['name']} is in the stash.")
    prg(browser, f"/campaigns/{cid}/company/items/{item['id']}/sell", says=f"Sold {item['name']}, {item['price']} gold back.")
    g = make_client()
    login(g, "gamemaster")
    prg(
        g,
        f"/campaigns/{cid}/rewards",
        {"player_id": str(anna["player_id"]), "item": "item.bandages"},
        says=f"Reward granted to anna: {item['name']}.",
    )
    prg(
        g,
        f"/campaigns/{cid}/ledger/adjustments",
        {"player_id": str(anna["player_id"]), "amount": "-5", "reason": "Late"},
        says="Gold adjusted for anna: -5.",
    )


def test_r4_r5_warband_event_and_order_forms_redirect_with_a_flash(client, make_client):
    gm, cid, players, places = running_campaign(client)
    models = buy(client, cid, players[0], "orcs.krusher", "orcs.ax", faction="orcs")
    browser = make_client()
    login(browser, "player0")
    target = prg(
        browser,
        f"/campaigns/{cid}/warbands/save",
        {"name": "Raiders", "model_ids": [str(m["id"]) for m in models]},
        says="Warband Raiders saved.",
    )
    wid = int(target.split("#w")[1])
    g = make_client()
    login(g, "gamemaster")
    prg(g, f"/campaigns/{cid}/events", {"place_id": str(places[2]["id"]), "title": "Storm"}, says="Event Storm added.")
    eid = client.get(f"/api/v1/campaigns/{cid}/events", headers=gm).json()[0]["id"]
    prg(g, f"/campaigns/{cid}/events/{eid}", {"title": "Great storm"}, says="Event Great storm saved.")
    to_phase(client, gm, cid, "orders")
    prg(
        browser,
        f"/campaigns/{cid}/warbands/{wid}/send",
        {"target": f"event:{eid}", "confirm": "1"},
        says="Raiders sent to Great storm · Place 2.",
    )
    prg(g, f"/campaigns/{cid}/warbands/{wid}/cancel", {"from": "orders"}, says="The order of Raiders is undone.")
    prg(g, f"/campaigns/{cid}/events/{eid}/end", {"confirm": "1"}, says="Event Great storm ended.")
    to_phase(client, gm, cid, "preparation")
    prg(browser, f"/campaigns/{cid}/warbands/{wid}/disband", says="Warband Raiders disbanded.")


def test_r1_2_r1_3_r9_7_map_and_place_forms_redirect_with_a_flash(client, make_client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, modules={"paths": True})["id"]
    a = client.post(f"/api/v1/campaigns/{cid}/places", json={"name": "Alpha"}, headers=gm).json()
    b = client.post(f"/api/v1/campaigns/{cid}/places", json={"name": "Beta"}, headers=gm).json()
    browser = make_client()
    login(browser, "gamemaster")
    prg(
        browser,
        f"/campaigns/{cid}/places/{a['id']}",
        {"name": "Alpha Keep", "income": "3", "next": f"/campaigns/{cid}/places"},
        says="Place Alpha Keep saved.",
    )
    prg(browser, f"/campaigns/{cid}/paths", {"from_id": str(a["id"]), "to_id": str(b["id"])}, says="Path added.")
    path_id = client.get(f"/api/v1/campaigns/{cid}/paths", headers=gm).json()[0]["id"]
    prg(browser, f"/campaigns/{cid}/paths/{path_id}", {"action": "one_way"}, says="Path changed.")
    prg(browser, f"/campaigns/{cid}/paths/{path_id}/delete", says="Path deleted.")
    # The map editor's own fetch (htmx header): 204 and HX-Redirect; the message waits for the reload.
    r = post(browser, f"/campaigns/{cid}/paths", {"from_id": str(a["id"]), "to_id": str(b["id"])}, headers={"HX-Request": "true"})
    assert r.status_code == 204 and r.headers["hx-redirect"] == f"/campaigns/{cid}/map"
    assert flash_of(browser.get(f"/campaigns/{cid}/map").text) == "Path added."
    buf = io.BytesIO()
    Image.new("RGB", (400, 200), "white").save(buf, "PNG")
    token = csrf(browser, f"/campaigns/{cid}/map")
    r = browser.post(
        f"/campaigns/{cid}/map/image",
        data={"csrf_token": token},
        files={"file": ("m.png", buf.getvalue(), "image/png")},
        follow_redirects=False,
    )
    assert r.status_code == 303 and flash_of(browser.get(r.headers["location"]).text) == "Map image uploaded."
    prg(browser, f"/campaigns/{cid}/places/{a['id']}/map", says="Alpha Keep has its own map now.")
    prg(browser, f"/campaigns/{cid}/places/{b['id']}/delete", {"next": f"/campaigns/{cid}/places"}, says="Place Beta removed.")


def test_r11_5_the_flash_cookie_is_signed(client):
    register(client, "anna")
    client.cookies.set("hideout_flash", "eyJtIjoiSGFja2VkIn0.0000")
    page = client.get("/account")
    assert flash_of(page.text) is None and "Hacked" not in page.text


# --- every problem at once, next to its field, named -----------------------------------


def test_r11_5_registration_lists_every_problem_at_once_and_keeps_the_nickname(client):
    r = post(client, "/register", {"nickname": "x!", "password": "short"}, token_from="/register")
    assert r.status_code == 422
    errors = re.findall(r'<p class="field-error" id="e-(\w+)">([^<]*)</p>', r.text)
    assert dict(errors) == {
        "nickname": "Nickname: A nickname has 3 to 32 letters, digits, dots, dashes or underscores.",
        "password": "Password: The password must have at least 8 characters.",
    }
    assert 'value="x!"' in r.text and r.text.count('aria-invalid="true"') == 2
    r = post(client, "/register", {"nickname": "", "password": ""}, token_from="/register")
    assert "Nickname is required." in r.text and "Password: The password must have at least 8 characters." in r.text


@pytest.mark.parametrize(
    "headers, cookie, expected",
    [
        ({}, None, "Campaign name is required."),
        ({"Accept-Language": "pl-PL,pl;q=0.9"}, None, "Pole „Nazwa kampanii” jest wymagane."),
        ({}, "pl", "Pole „Nazwa kampanii” jest wymagane."),
    ],
)
def test_r1_1_r11_3_wizard_step_1_says_the_campaign_name_is_required(client, make_client, headers, cookie, expected):
    browser = make_client()
    user(client, "gamemaster")
    if cookie:
        browser.cookies.set("hideout_lang", cookie)
    token = csrf(browser, "/login")
    browser.headers.update(headers)
    r = browser.post(
        "/login",
        data={"csrf_token": token, "nickname": "gamemaster", "password": "correct horse battery"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    r = post(browser, "/campaigns/new", {"name": "", "story": "Kept *story*"}, token_from="/campaigns/new")
    assert r.status_code == 422
    assert f'<p class="field-error" id="e-name">{html.escape(expected, quote=True)}</p>' in r.text
    assert "Kept *story*" in r.text


def test_r1_1_wizard_lists_every_field_problem_named(client):
    register(client, "gamemaster")
    cid = int(post(client, "/campaigns/new", {"name": "Ok"}).headers["location"].split("/")[2])
    r = post(client, f"/campaigns/{cid}/setup/4", {"starting_gold": "-5", "sale_loss_percent": "150", "gold_per_point": "many"})
    assert r.status_code == 422
    errors = dict(re.findall(r'<p class="field-error" id="e-(\w+)">([^<]*)</p>', r.text))
    assert errors == {
        "starting_gold": "Starting gold: This number must be at least 0.",
        "gold_per_point": "Gold per point: Enter a whole number.",
        "sale_loss_percent": "Sale loss (%): This number must be at most 100.",
    }
    assert 'value="-5"' in r.text and 'value="many"' in r.text


def test_r11_5_other_forms_name_their_fields(client, make_client):
    register(client, "anna")
    r = post(client, "/account/password", {"current": "", "new": "short"}, token_from="/account")
    assert r.status_code == 422 and "Current password is required." in r.text
    assert "New password: The password must have at least 8 characters." in r.text
    post(client, "/logout")
    r = post(client, "/login", {"nickname": "", "password": ""}, token_from="/login")
    assert r.status_code == 422 and "Nickname is required." in r.text and "Password is required." in r.text

    gm, cid, players, places = running_campaign(client)
    g = make_client()
    login(g, "gamemaster")
    r = post(g, f"/campaigns/{cid}/ledger/adjustments", {"player_id": str(players[0]["player_id"]), "amount": "x", "reason": " "})
    assert r.status_code == 422 and "Amount: Enter a whole number." in r.text
    assert "Reason: Give a reason; the player will see it in their ledger." in r.text and 'value="x"' in r.text
    r = post(
        g, f"/campaigns/{cid}/events", {"place_id": str(places[2]["id"]), "title": "", "duration": "0", "points_limit": "-1"}
    )
    assert r.status_code == 422
    for message in (
        "Title is required.",
        "Duration (rounds): This number must be at least 1.",
        "Points limit: This number must be at least 1.",
    ):
        assert message in r.text, message
    ev = event(client, gm, cid, places[2]["id"], "Fog")
    r = post(
        g,
        f"/campaigns/{cid}/events/{ev['id']}",
        {"title": "Fog", "duration": "500", "scenario": "__other__", "other_mission": ""},
    )
    assert r.status_code == 422 and "Duration (rounds): This number must be at most 100." in r.text
    assert "<details open>" in r.text and 'value="500"' in r.text
    r = post(g, f"/campaigns/{cid}/places", {"name": "", "income": "-1", "x": "500", "next": f"/campaigns/{cid}/places"})
    assert r.status_code == 422
    for message in (
        "Name is required.",
        "Income per round: This number must be at least 0.",
        "Position x (%): This number must be at most 100.",
    ):
        assert message in r.text, message
    assert 'value="500"' in r.text
    r = post(
        g, f"/campaigns/{cid}/places/{places[2]['id']}", {"name": "Renamed", "income": "-3", "next": f"/campaigns/{cid}/places"}
    )
    assert r.status_code == 422 and "Income per round: This number must be at least 0." in r.text and 'value="Renamed"' in r.text
    r = post(g, f"/campaigns/{cid}/invitations", {"nickname": ""})
    assert r.status_code == 422 and "Nickname is required." in r.text

    browser = make_client()
    login(browser, "player0")
    models = buy(client, cid, players[0], "orcs.krusher", faction="orcs")
    r = post(browser, f"/campaigns/{cid}/warbands/save", {"name": " ", "model_ids": str(models[0]["id"])})
    assert r.status_code == 422 and "Name is required." in r.text
    assert "A warband needs a Grunt or Warrior model." in r.text  # the warband's own problems too

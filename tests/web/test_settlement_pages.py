"""Settlement, ransom and Twilight pages (R7.1-R7.6, V11-V16, R11.2, R11.5) without JavaScript:
every form posts, redirects and says what it did once; refusals stay in place; other players
and outsiders get 404; the battles pages show warbands that did not fight; the pages run a
bounded number of statements."""

from __future__ import annotations

import re

from sqlmodel import Session, select

from app.battles.models import Battle
from app.campaigns.models import Campaign, Player
from app.companies.models import CompanyModel
from bench import large_campaign
from tests.builders.accounts import PASSWORD
from tests.builders.campaigns import running_campaign
from tests.builders.companies import buy, warband
from tests.builders.pages import browser as _browser
from tests.builders.pages import flash_of, post, prg, register
from tests.builders.rounds import to_phase
from tests.builders.settlements import close_all, play_round


def _page(rnd, i):
    return f"/campaigns/{rnd.cid}/battles/{rnd.bid}/settlements/{rnd.players[i]['band']['id']}"


def test_r7_1_v11_v12_the_settlement_page_from_the_dashboard_to_closed(client, make_client, engine):
    rnd = play_round(client)
    krusher, ax1, ax2 = rnd.models[0]
    b = _browser(make_client, "player0")
    dash = b.get(f"/campaigns/{rnd.cid}").text
    link = re.search(r'href="([^"]+)">Settle this battle: orcs band at Place 2<', dash)
    assert link and link.group(1) == _page(rnd, 0)
    page = b.get(_page(rnd, 0)).text
    for step in ("1. Course of the battle", "2. Injuries", "3. Equipment", "4. Experience", "5. Promotions", "6. Retinue"):
        assert step in page
    assert "Everyone survived" in page and "+1 XP to all who took part" in page
    # Every number is pre-filled from the battle: 1 for taking part and 1 for the win.
    assert re.search(rf'name="xp_{ax1}"[^>]*value="2"', page)
    url = _page(rnd, 0)
    target = prg(
        b,
        url,
        {
            "out": [str(ax1)],
            f"took_{krusher}": "1",
            f"xp_{krusher}": "3",
            "retinue_form": "1",
            "leader": str(krusher),
            "action": f"roll:{ax1}",
        },
        says="Ax: ",
        token_from=url,
    )
    assert target == f"{url}#m-{ax1}"
    after = b.get(url).text
    assert re.search(r"rolled \d+: ", after)
    form = {
        "out": [str(ax1)],
        f"took_{krusher}": "1",
        f"xp_{krusher}": "3",
        "retinue_form": "1",
        "leader": str(krusher),
        f"captor_{ax1}": str(rnd.players[1]["player_id"]),
        f"text_{ax1}": "Bad knee",
        "action": "close",
    }
    ask = post(b, url, form, token_from=url)
    assert ask.status_code == 200 and "Close the settlement?" in ask.text
    assert client.get(rnd.url(0), headers=rnd.h(0)).json()["status"] == "draft"
    prg(b, url, {**form, "confirm": "1"}, says="The settlement is closed.", token_from=url)
    closed = client.get(rnd.url(0), headers=rnd.h(0)).json()
    assert closed["status"] == "closed"
    with Session(engine) as s:
        k = s.get(CompanyModel, krusher)
        assert (k.xp, k.role) == (3, "leader")
    page = b.get(url).text
    assert "This settlement is closed" in page and 'name="action" value="close"' not in page
    refused = post(b, url, {"action": "save"}, token_from=url)
    assert refused.status_code == 409 and "only the game master can reopen it" in refused.text and flash_of(refused.text) is None


def test_r7_1_everyone_survived_and_the_xp_shortcut_without_javascript(client, make_client):
    rnd = play_round(client)
    krusher, ax1, ax2 = rnd.models[0]
    b = _browser(make_client, "player0")
    url = _page(rnd, 0)
    prg(b, url, {"out": [str(ax1), str(ax2)], "action": "save"}, says="Saved.", token_from=url)
    assert client.get(rnd.url(0), headers=rnd.h(0)).json()["steps"]["course"]["taken_out"] == [ax1, ax2]
    xp = {f"xp_{m}": "2" for m in rnd.models[0]}
    prg(b, url, {"out": [str(ax1)], "action": "survived", **xp}, says="Saved.", token_from=url)
    assert client.get(rnd.url(0), headers=rnd.h(0)).json()["steps"]["course"]["taken_out"] == []
    prg(b, url, {"action": "part_toggle", "part_award": "1", **xp}, says="Saved.", token_from=url)
    body = client.get(rnd.url(0), headers=rnd.h(0)).json()
    assert [e["xp"] for e in body["steps"]["experience"]] == [1, 1, 1]  # the award for taking part is off
    assert 'aria-pressed="false"' in b.get(url).text
    prg(b, url, {"action": "part_toggle", "part_award": "0", **dict.fromkeys(xp, "1")}, says="Saved.", token_from=url)
    assert [e["xp"] for e in client.get(rnd.url(0), headers=rnd.h(0)).json()["steps"]["experience"]] == [2, 2, 2]


def test_r11_5_a_refused_settlement_form_keeps_what_was_typed(client, make_client):
    rnd = play_round(client)
    krusher, ax1, _ax2 = rnd.models[0]
    b = _browser(make_client, "player0")
    url = _page(rnd, 0)
    r = post(
        b,
        url,
        {
            "out": [str(ax1)],
            f"injury_{ax1}": "permanent",
            f"text_{ax1}": "",
            f"took_{krusher}": "2",
            "action": "close",
            "confirm": "1",
        },
        token_from=url,
    )
    assert r.status_code == 422 and "Describe Ax 1&#39;s permanent injury." in r.text
    assert re.search(rf'name="took_{krusher}"[^>]*value="2"', r.text)
    assert client.get(rnd.url(0), headers=rnd.h(0)).json()["status"] == "draft"


def test_r11_2_settlement_pages_are_the_owners_and_the_gms(client, make_client):
    campaign = running_campaign(client, 3)
    rnd = play_round(client, campaign=campaign, place=3)
    url = _page(rnd, 0)
    for nickname in ("player1", "player2"):
        b = _browser(make_client, nickname)
        assert b.get(url).status_code == 404
        assert post(b, url, {"action": "save"}).status_code == 404
    register(make_client(), "outsider")
    o = _browser(make_client, "outsider")
    assert o.get(url).status_code == 404 and o.get(f"/campaigns/{rnd.cid}/ransoms").status_code == 404
    g = _browser(make_client, "gamemaster")
    page = g.get(url)
    assert page.status_code == 200 and 'name="action" value="close"' not in page.text
    assert "Still to settle:" in g.get(f"/campaigns/{rnd.cid}").text


def test_r7_1_the_gm_reopens_from_the_page(client, make_client):
    rnd = play_round(client)
    close_all(rnd)
    g = _browser(make_client, "gamemaster")
    url = _page(rnd, 0)
    assert "Reopen" in g.get(url).text
    prg(g, url + "/reopen", says="The settlement is reopened", token_from=url)
    assert client.get(rnd.url(0), headers=rnd.gm).json()["status"] == "draft"
    p = _browser(make_client, "player0")
    refused = post(p, url + "/reopen", token_from=url)
    assert refused.status_code == 403


def test_v12_ransom_named_and_paid_on_the_ransoms_page(client, make_client):
    rnd = play_round(client)
    arms = rnd.models[1][1]
    rnd.put(1, {"course": {"taken_out": [arms]}, "injuries": [{"model_id": arms, "result": "captured"}]})
    close_all(rnd)
    [ransom] = client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.gm).json()
    captor, owner = _browser(make_client, "player0"), _browser(make_client, "player1")
    assert "prisoner" in owner.get(f"/campaigns/{rnd.cid}").text  # the dashboard points to it
    page = f"/campaigns/{rnd.cid}/ransoms"
    assert "Name the price" in captor.get(page).text and "Name the price" not in owner.get(page).text
    refused = post(captor, f"{page}/{ransom['id']}/offer", {"price": "-3"}, token_from=page)
    assert refused.status_code == 422
    prg(captor, f"{page}/{ransom['id']}/offer", {"price": "12"}, says="The ransom is named: 12 gold.", token_from=page)
    assert "Pay 12 gold" in owner.get(page).text
    prg(owner, f"{page}/{ransom['id']}/pay", says="Ransom paid: 12 gold; the model is back.", token_from=page)
    assert client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.gm).json()[0]["status"] == "paid"


def test_v12_ransom_refused_on_the_page(client, make_client):
    rnd = play_round(client)
    arms = rnd.models[1][1]
    rnd.put(1, {"course": {"taken_out": [arms]}, "injuries": [{"model_id": arms, "result": "captured"}]})
    close_all(rnd)
    [ransom] = client.get(f"/api/v1/campaigns/{rnd.cid}/ransoms", headers=rnd.gm).json()
    client.post(f"/api/v1/campaigns/{rnd.cid}/ransoms/{ransom['id']}/offer", json={"price": 5}, headers=rnd.h(0))
    owner = _browser(make_client, "player1")
    page = f"/campaigns/{rnd.cid}/ransoms"
    prg(owner, f"{page}/{ransom['id']}/refuse", says="Ransom refused: the model is lost.", token_from=page)


def test_r7_3_r7_5_twilight_page_the_gm_chooses_and_ends_the_round(client, make_client):
    gm, cid, players, places = running_campaign(client, 3)
    free = places[3]["id"]
    events = [
        client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": free, "title": t}, headers=gm).json()["id"]
        for t in ("North gate", "South gate")
    ]
    bands = [
        warband(client, cid, players[i], buy(client, cid, players[i], *keys, faction=faction))
        for i, faction, keys in (
            (0, "orcs", ("orcs.krusher", "orcs.ax")),
            (1, "basileans", ("basileans.veteran-sergeant", "basileans.man-at-arms")),
        )
    ]
    to_phase(client, gm, cid, "orders")
    for i, band in enumerate(bands):
        client.put(
            f"/api/v1/campaigns/{cid}/warbands/{band['id']}/order", json={"event_id": events[i]}, headers=players[i]["headers"]
        )
    to_phase(client, gm, cid, "battles")
    battles_page = _browser(make_client, "player2").get(f"/campaigns/{cid}/battles").text
    assert (
        "Without a battle" in battles_page and "met nobody: it takes the place only if nobody wins a battle there" in battles_page
    )
    to_phase(client, gm, cid, "twilight")
    g = _browser(make_client, "gamemaster")
    page = g.get(f"/campaigns/{cid}/twilight").text
    assert "Several players came unopposed to a free place: the game master chooses who takes it." in page
    assert "Choose who takes 1 place before ending the round." in page
    refused = post(
        g,
        f"/campaigns/{cid}/end-round",
        {"round": "1", "from": "twilight", "confirm": "1"},
        token_from=f"/campaigns/{cid}/twilight",
    )
    assert refused.status_code == 409 and "choose who takes Place 3" in refused.text
    target = prg(
        g,
        f"/campaigns/{cid}/twilight/choices",
        {"place_id": str(free), "player_id": str(players[1]["player_id"])},
        says="player1 takes Place 3.",
        token_from=f"/campaigns/{cid}/twilight",
    )
    assert target == f"/campaigns/{cid}/twilight#place-{free}"
    assert "The game master chose player1, who takes the place." in g.get(target).text
    ask = post(g, f"/campaigns/{cid}/end-round", {"round": "1", "from": "twilight"}, token_from=target)
    assert ask.status_code == 200 and "End round 1?" in ask.text
    prg(
        g,
        f"/campaigns/{cid}/end-round",
        {"round": "1", "from": "twilight", "confirm": "1"},
        says="Round 1 ended; round 2 begins.",
        token_from=target,
    )
    assert (
        free
        in next(
            p
            for p in client.get(f"/api/v1/campaigns/{cid}/players", headers=gm).json()
            if p["player_id"] == players[1]["player_id"]
        )["places"]
    )


def test_r7_2_opening_twilight_asks_first_and_the_gate_refusal_lists_what_is_missing(client, make_client):
    rnd = play_round(client)
    g = _browser(make_client, "gamemaster")
    refused = post(g, f"/campaigns/{rnd.cid}/phase", {"phase": "twilight", "confirm": "1"})
    assert (
        refused.status_code == 409
        and "Settlements still open: player0 (orcs band, Place 2); player1 (basileans band, Place 2)" in refused.text
    )
    close_all(rnd)
    ask = post(g, f"/campaigns/{rnd.cid}/phase", {"phase": "twilight"})
    assert ask.status_code == 200 and "Open Twilight?" in ask.text
    assert client.get(f"/api/v1/campaigns/{rnd.cid}", headers=rnd.gm).json()["phase"] == "settlement"
    prg(g, f"/campaigns/{rnd.cid}/phase", {"phase": "twilight", "confirm": "1"}, says="Phase changed to Twilight.")


def test_r6_2_r6_4_the_battle_page_shows_warbands_that_did_not_fight(client, make_client):
    """Two players fight at one event of a place; a third comes alone to another event there."""
    gm, cid, players, places = running_campaign(client, 3)
    field = places[3]["id"]
    events = [
        client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": field, "title": t}, headers=gm).json()["id"]
        for t in ("Bridge", "Mill")
    ]
    bands = []
    for i, faction, keys in (
        (0, "orcs", ("orcs.krusher", "orcs.ax")),
        (1, "basileans", ("basileans.veteran-sergeant", "basileans.man-at-arms")),
        (2, "undead", ("undead.crypt-gouger", "undead.skeleton")),
    ):
        bands.append(warband(client, cid, players[i], buy(client, cid, players[i], *keys, faction=faction), f"Band {i}"))
    to_phase(client, gm, cid, "orders")
    for i, band in enumerate(bands):
        r = client.put(
            f"/api/v1/campaigns/{cid}/warbands/{band['id']}/order",
            json={"event_id": events[0 if i < 2 else 1]},
            headers=players[i]["headers"],
        )
        assert r.status_code == 200, r.text
    to_phase(client, gm, cid, "battles")
    [battle] = client.get(f"/api/v1/campaigns/{cid}/battles", headers=gm).json()["items"]
    b = _browser(make_client, "player0")
    page = b.get(f"/campaigns/{cid}/battles/{battle['id']}").text
    assert "Also at this place, without a battle" in page
    assert re.search(
        r"Band 2 \(player2\) —\s*met nobody: it takes the place only if nobody wins a battle there and the place has no owner.",
        page,
    )
    listing = b.get(f"/campaigns/{cid}/battles").text
    assert "Without a battle" in listing and "Band 2 (player2)" in listing


def test_v12_v15_settings_in_the_wizard_and_on_the_rules_tab(client, make_client):
    gm, cid, players, places = running_campaign(client, 2)
    g = _browser(make_client, "gamemaster")
    step = f"/campaigns/{cid}/setup/5"
    page = g.get(step).text
    assert "Casualty table: a D10 per model taken out" in page and 'value="5/10/16/23/31"' in page
    faces = {f"face_{i}": "recovered" for i in range(1, 7)}
    faces["face_1"] = "dead_lost"
    form = {
        "settlement_form": "1",
        "warband_points": "200",
        "underdog_points_per_die": "25",
        "die": "6",
        **faces,
        "ranks": "4/8/12",
        "xp_taking_part": "2",
        "xp_per_enemy": "1",
        "xp_objective": "1",
        "xp_win": "1",
        "xp_leader_bonus": "3",
        "retinue_free_retinue": "2",
        "retinue_role_cost": "4",
    }
    prg(g, step, form, says="Saved: Warbands.", token_from=step)
    rules = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["settlement_rules"]
    assert rules["casualty_table"][0] == {"result": "dead", "items_lost": True} and len(rules["casualty_table"]) == 6
    assert (
        rules["ranks"] == [4, 8, 12]
        and rules["xp"]["taking_part"] == 2
        and rules["retinue"] == {"free_retinue": 2, "role_cost": 4}
    )
    bad = post(g, step, {**form, "ranks": "8/4"}, token_from=step)
    assert bad.status_code == 422 and "Rank thresholds are rising whole numbers" in bad.text
    tab = _browser(make_client, "player0").get(f"/campaigns/{cid}/rules").text
    assert "Casualty table: a D6 per model taken out" in tab and "2-6" in tab and "Ranks 1–3 at 4/8/12 experience." in tab


def _settlement_world(engine, size: int) -> tuple[int, str, int, int]:
    """A campaign of `size` players in Settlement, every battle decided; returns the campaign,
    a player's nickname, their battle and warband."""
    cid, nicknames = large_campaign.build_round(engine, gm_nickname="gamemaster", players=size)
    from app.accounts.models import User
    from app.battles.models import BattleWarband
    from app.core.security import hash_password

    with Session(engine) as s:
        c = s.get(Campaign, cid)
        c.phase = "settlement"
        s.add(c)
        for b in s.exec(select(Battle).where(Battle.campaign_id == cid)).all():
            first = s.exec(select(BattleWarband).where(BattleWarband.battle_id == b.id).order_by(BattleWarband.id)).first()
            b.status, b.winners = "confirmed", [first.player_id]
            s.add(b)
        u = s.exec(select(User).where(User.nickname_key == nicknames[0])).one()
        u.password_hash = hash_password(PASSWORD)
        s.add(u)
        player_id = s.exec(select(Player.id).where(Player.user_id == u.id)).one()
        bw = s.exec(select(BattleWarband).where(BattleWarband.player_id == player_id)).one()
        s.commit()
        return cid, nicknames[0], bw.battle_id, bw.warband_id


def test_settlement_twilight_and_ransom_pages_run_a_bounded_number_of_statements(client, engine, count_statements, make_client):
    register(client, "gamemaster")
    counts: dict[str, list[int]] = {}
    for size in (4, 16):
        cid, nickname, bid, wid = _settlement_world(engine, size)
        player = _browser(make_client, nickname)
        pages = {
            "settlement": (player, f"/campaigns/{cid}/battles/{bid}/settlements/{wid}"),
            "ransoms": (player, f"/campaigns/{cid}/ransoms"),
            "twilight": (client, f"/campaigns/{cid}/twilight"),
            "dashboard": (player, f"/campaigns/{cid}"),
            "battles": (player, f"/campaigns/{cid}/battles"),
        }
        for name, (browser, path) in pages.items():
            with count_statements() as counter:
                r = browser.get(path)
            assert r.status_code == 200, (name, r.text[:300])
            counts.setdefault(name, []).append(counter.count)
    for name, (small, large) in counts.items():
        # The dashboard's "What to do now" also asks what is done (issue 29: settled or not): 24.
        assert small == large and small <= (24 if name == "dashboard" else 20), (name, small, large)


def test_r11_5_the_settlement_form_is_checked_by_the_apis_schema(client, make_client):
    """Issue 11: the page's fields become SettlementIn, so out-of-range numbers, huge ids and
    unknown results are refused on the page, and nothing is saved."""
    rnd = play_round(client)
    krusher, ax1, _ax2 = rnd.models[0]
    b = _browser(make_client, "player0")
    url = _page(rnd, 0)
    before = client.get(rnd.url(0), headers=rnd.h(0)).json()
    for data in (
        {f"took_{krusher}": "500"},
        {f"xp_{krusher}": "-3"},
        {"out": ["100000000000000000000"]},
        {"out": [str(ax1)], f"injury_{ax1}": "eaten"},
    ):
        r = post(b, url, {**data, "action": "save"}, token_from=url)
        assert r.status_code == 422, (data, r.status_code)
    assert client.get(rnd.url(0), headers=rnd.h(0)).json() == before
    r = post(b, "/campaigns/%s/ransoms/1/offer" % rnd.cid, {"price": "-5"}, token_from=url)
    assert r.status_code in (404, 422)


def test_v12_a_rolled_permanent_injury_keeps_its_text_from_the_page(client, make_client):
    """The die decides the result, the page still gives its text (V12): every face is a
    permanent injury here, so the roll is the same every run."""
    rnd = play_round(client, settlement_rules={"casualty_table": [{"result": "permanent"}] * 10})
    _krusher, ax1, _ax2 = rnd.models[0]
    b = _browser(make_client, "player0")
    url = _page(rnd, 0)
    prg(b, url, {"out": [str(ax1)], "action": f"roll:{ax1}"}, says="Ax: ", token_from=url)
    prg(
        b,
        url,
        {"out": [str(ax1)], f"text_{ax1}": "Bad knee", "action": "close", "confirm": "1"},
        says="The settlement is closed.",
        token_from=url,
    )
    closed = client.get(rnd.url(0), headers=rnd.h(0)).json()
    assert closed["status"] == "closed"
    assert [(i["result"], i.get("text")) for i in closed["steps"]["injuries"]] == [("permanent", "Bad knee")]

"""The Guilds page, the guild column of the Players tab and the dashboard panel (issue 13,
R8.1-R8.6, R9.2): every action through the pages, what it paid and who belongs where; paid and
one-way steps ask first; refusals change nothing; with the module off, nothing shows and
everything is refused (409)."""

import html
import re

import pytest
from babel.support import NullTranslations
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.campaigns.rules import DEFAULT_GUILD, DEFAULT_MODULES
from app.campaigns.terms import words
from app.core.errors import message_for
from app.core.security import hash_password
from app.guilds.models import Guild, GuildMember, GuildRequest
from bench import large_campaign
from tests.builders.accounts import PASSWORD
from tests.builders.campaigns import running_campaign
from tests.builders.pages import browser, flash_of, login, post, register


def world(client, make_client, n: int = 3, *, guilds_on: bool = True, **guild):
    """A running campaign of `n` players (player0…), each logged in in a browser of their own;
    the GM's browser last."""
    body = {"modules": {"guilds": guilds_on}}
    if guild:
        body["guild"] = guild
    gm, cid, players, _ = running_campaign(client, n, **body)
    browsers = [browser(make_client, nickname) for nickname in [p["nickname"] for p in players] + ["gamemaster"]]
    return gm, cid, players, browsers


def gold(client, cid, player) -> int:
    return client.get(f"/api/v1/campaigns/{cid}/ledger", headers=player["headers"]).json()["balance"]


def ledger(client, cid, player) -> list[dict]:
    return client.get(f"/api/v1/campaigns/{cid}/ledger", headers=player["headers"]).json()["items"]


def guilds(client, cid, player, *, strict: bool = True) -> list[dict]:
    r = client.get(f"/api/v1/campaigns/{cid}/guilds", headers=player["headers"])
    assert r.status_code == 200 or not strict, r.text
    return r.json()


def chronicle(client, cid, player) -> list[str]:
    return [e["text"] for e in client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=player["headers"]).json()["items"]]


def state(client, cid, players) -> tuple:
    """Everything a guild action may change: gold, ledger lengths, guilds with members and
    waiting offers, the chronicle."""
    return (
        tuple(gold(client, cid, p) for p in players),
        tuple(len(ledger(client, cid, p)) for p in players),
        tuple(repr(guilds(client, cid, p, strict=False)) for p in players),
        tuple(chronicle(client, cid, players[0])),
    )


def says(code: str, **params) -> str:
    """A refusal's English message, in a campaign that says "guild"."""
    return message_for(code, {**words("guild", NullTranslations()), **params}, NullTranslations().gettext)


def confirmed_post(browser, path, data=None, *, says: str) -> str:
    """A paid or one-way step: the first post only asks (a confirm page re-posting the form),
    the second, with confirm=1, acts and redirects with a flash message. Returns the page."""
    r = post(browser, path, data or {})
    assert r.status_code == 200, (path, r.status_code, r.text[:500])
    assert 'class="card confirm-step"' in r.text and 'name="confirm" value="1"' in r.text
    return done_post(browser, path, {**(data or {}), "confirm": "1"}, says=says)


def done_post(browser, path, data=None, *, says: str) -> str:
    r = post(browser, path, data or {})
    assert r.status_code == 303, (path, r.status_code, r.text[:800])
    page = browser.get(r.headers["location"])
    assert page.status_code == 200
    assert says in (flash_of(page.text) or ""), flash_of(page.text)
    return page.text


def found(browser, cid, name="Iron Hand") -> str:
    return confirmed_post(browser, f"/campaigns/{cid}/guilds", {"name": name}, says=f"You founded the guild {name} for 50 gold.")


# --- founding, inviting, accepting ------------------------------------------------------------


def test_r8_1_founding_from_the_page_asks_first_then_pays_level_1(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client)
    page = anna.get(f"/campaigns/{cid}/guilds").text
    assert "Found a guild" in page and "Found for 50 gold" in page and "No guilds yet." in page
    before = state(client, cid, players)
    # The first post only asks: nothing paid, no guild.
    r = post(anna, f"/campaigns/{cid}/guilds", {"name": "Iron Hand"})
    assert r.status_code == 200 and "Found the guild Iron Hand?" in r.text and "You pay 50 gold, the cost of level 1" in r.text
    assert state(client, cid, players) == before
    page = done_post(
        anna,
        f"/campaigns/{cid}/guilds",
        {"name": "Iron Hand", "confirm": "1"},
        says="You founded the guild Iron Hand for 50 gold.",
    )
    assert gold(client, cid, players[0]) == 350
    assert ledger(client, cid, players[0])[0]["kind"] == "guild_fee" and ledger(client, cid, players[0])[0]["amount"] == -50
    [g] = guilds(client, cid, players[0])
    assert (g["name"], g["level"], g["member_player_ids"]) == ("Iron Hand", 1, [players[0]["player_id"]])
    assert "player0 founded the guild Iron Hand." in chronicle(client, cid, players[0])
    # Mine first, with the member's share of the next income and the founder's tools.
    assert "you are the founder" in page and "Members and their share of the next income" in page
    assert "Upgrade to level 2 for 100 gold" in page and "Dissolve the guild Iron Hand" in page
    assert "Found a guild" not in page


def test_r8_3_invitation_from_the_guilds_page_is_free_and_accepting_pays_the_entry_fee(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client)
    found(anna, cid)
    gid = guilds(client, cid, players[0])[0]["id"]
    before = gold(client, cid, players[1])
    done_post(
        anna,
        f"/campaigns/{cid}/guilds/{gid}/invitations",
        {"player_id": str(players[1]["player_id"])},
        says="player1 is invited to the guild Iron Hand.",
    )
    assert gold(client, cid, players[0]) == 350  # free
    # The invitee sees it on the dashboard and on the Guilds page, one tap from joining.
    dashboard = bert.get(f"/campaigns/{cid}").text
    assert "The guild Iron Hand invites you." in dashboard and "Join for 10 gold" in dashboard
    iid = guilds(client, cid, players[1])[0]["requests"][0]["id"]
    assert f"/guilds/{gid}/invitations/{iid}/accept" in dashboard
    assert "Invitations for you" in bert.get(f"/campaigns/{cid}/guilds").text
    page = confirmed_post(
        bert,
        f"/campaigns/{cid}/guilds/{gid}/invitations/{iid}/accept",
        says="You joined the guild Iron Hand; entry fee 10 gold paid.",
    )
    assert gold(client, cid, players[1]) == before - 10
    assert guilds(client, cid, players[1])[0]["member_player_ids"] == [players[0]["player_id"], players[1]["player_id"]]
    assert "player1 joined the guild Iron Hand." in chronicle(client, cid, players[0])
    assert "you are a member" in page and "Leave" in page
    assert "The guild Iron Hand invites you." not in bert.get(f"/campaigns/{cid}").text


def test_r8_3_the_founder_invites_in_one_tap_from_the_players_tab(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client)
    found(anna, cid)
    gid = guilds(client, cid, players[0])[0]["id"]
    tab = anna.get(f"/campaigns/{cid}/players").text
    assert f'Guild: <a href="/campaigns/{cid}/guilds#guild-{gid}">Iron Hand</a>' in tab
    assert tab.count("Invite to Iron Hand") == 2  # player1 and player2, not the founder
    r = post(anna, f"/campaigns/{cid}/guilds/{gid}/invitations", {"player_id": str(players[2]["player_id"]), "from": "players"})
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}/players"
    tab = anna.get(r.headers["location"]).text
    assert flash_of(tab) == "player2 is invited to the guild Iron Hand." and tab.count("Invite to Iron Hand") == 1
    assert "invitation sent" in tab
    # The invitee's Players tab counts what waits; a member sees no invite buttons.
    theirs = cleo.get(f"/campaigns/{cid}/players").text
    assert re.search(
        rf'href="/campaigns/{cid}/guilds">Guilds <span class="badge accent"><span aria-hidden="true">1</span><span class="sr-only">1 waits for you</span>',
        theirs,
    )
    assert "Invite to" not in theirs
    # A refusal from the Players tab shows the tab again with the reason; nothing changes.
    before = state(client, cid, players)
    r = post(anna, f"/campaigns/{cid}/guilds/{gid}/invitations", {"player_id": str(players[2]["player_id"]), "from": "players"})
    assert r.status_code == 409 and html.escape(says("guild_request_pending", nickname="player2")) in r.text
    assert "<h2>Players" in r.text
    assert state(client, cid, players) == before


def test_r8_3_a_request_is_paid_and_not_returned_the_founder_rejects_or_accepts_in_one_tap(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client)
    found(anna, cid)
    gid = guilds(client, cid, players[0])[0]["id"]
    page = bert.get(f"/campaigns/{cid}/guilds").text
    assert "Ask to join for 5 gold" in page and "not returned" in page
    before = state(client, cid, players)
    r = post(bert, f"/campaigns/{cid}/guilds/{gid}/requests")
    assert r.status_code == 200 and "Ask to join the guild Iron Hand?" in r.text and "not returned" in r.text
    assert state(client, cid, players) == before
    page = done_post(
        bert,
        f"/campaigns/{cid}/guilds/{gid}/requests",
        {"confirm": "1"},
        says="Request to join the guild Iron Hand sent; 5 gold paid.",
    )
    assert gold(client, cid, players[1]) == 395 and "request sent" in page
    # The founder's dashboard: one tap to accept or reject.
    rid = guilds(client, cid, players[0])[0]["requests"][0]["id"]
    dashboard = anna.get(f"/campaigns/{cid}").text
    assert "player1 asks to join your guild Iron Hand." in dashboard
    assert f"/guilds/{gid}/requests/{rid}/accept" in dashboard and f"/guilds/{gid}/requests/{rid}/reject" in dashboard
    assert f'<a href="/campaigns/{cid}/guilds#requests">asks to join</a>' in anna.get(f"/campaigns/{cid}/players").text
    done_post(anna, f"/campaigns/{cid}/guilds/{gid}/requests/{rid}/reject", says="You rejected the request of player1.")
    assert gold(client, cid, players[1]) == 395  # the request fee is not returned
    assert guilds(client, cid, players[0])[0]["member_player_ids"] == [players[0]["player_id"]]
    # Asked again and accepted: the newcomer pays the entry fee.
    done_post(bert, f"/campaigns/{cid}/guilds/{gid}/requests", {"confirm": "1"}, says="Request to join the guild Iron Hand sent")
    rid = guilds(client, cid, players[0])[0]["requests"][0]["id"]
    page = done_post(anna, f"/campaigns/{cid}/guilds/{gid}/requests/{rid}/accept", says="player1 joined the guild Iron Hand.")
    assert gold(client, cid, players[1]) == 395 - 5 - 10
    assert guilds(client, cid, players[0])[0]["member_player_ids"] == [players[0]["player_id"], players[1]["player_id"]]
    # Each member's share of the next income: 10 gold at level 1 for two, 5 each.
    assert page.count('<span class="nowrap">5 gold</span>') == 2


def test_r8_4_upgrade_shows_the_cost_asks_and_the_founder_pays_up_to_the_top_level(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client, max_level=2)
    found(anna, cid)
    gid = guilds(client, cid, players[0])[0]["id"]
    page = confirmed_post(anna, f"/campaigns/{cid}/guilds/{gid}/upgrade", says="The guild Iron Hand rose to level 2.")
    assert gold(client, cid, players[0]) == 400 - 50 - 100
    assert guilds(client, cid, players[0])[0]["level"] == 2
    assert "Highest level reached." in page and "Upgrade to level" not in page
    assert "The guild Iron Hand rose to level 2." in chronicle(client, cid, players[0])
    # Above the top level: refused on the page, nothing paid.
    before = state(client, cid, players)
    r = post(anna, f"/campaigns/{cid}/guilds/{gid}/upgrade", {"confirm": "1"})
    assert r.status_code == 409 and html.escape(says("guild_top_level", level=2)) in r.text
    assert state(client, cid, players) == before


def test_r8_6_leaving_and_dissolving_ask_first_and_go_to_the_chronicle(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client)
    found(anna, cid)
    gid = guilds(client, cid, players[0])[0]["id"]
    for b, p in ((bert, players[1]), (cleo, players[2])):
        post(anna, f"/campaigns/{cid}/guilds/{gid}/invitations", {"player_id": str(p["player_id"])})
    for b, p in ((bert, players[1]), (cleo, players[2])):
        iid = next(r["id"] for r in guilds(client, cid, p)[0]["requests"] if r["player_id"] == p["player_id"])
        post(b, f"/campaigns/{cid}/guilds/{gid}/invitations/{iid}/accept", {"confirm": "1"})
    assert len(guilds(client, cid, players[0])[0]["member_player_ids"]) == 2  # level 1: the founder and one ally
    # cleo's acceptance was refused: the guild was full.
    page = confirmed_post(bert, f"/campaigns/{cid}/guilds/{gid}/leave", says="You left the guild Iron Hand.")
    assert "Found a guild" in page
    assert guilds(client, cid, players[0])[0]["member_player_ids"] == [players[0]["player_id"]]
    assert "player1 left the guild Iron Hand." in chronicle(client, cid, players[0])
    r = post(anna, f"/campaigns/{cid}/guilds/{gid}/dissolve")
    assert r.status_code == 200 and 'class="grow danger"' in r.text and "This cannot be undone." in r.text
    assert len(guilds(client, cid, players[0])) == 1
    confirmed_post(anna, f"/campaigns/{cid}/guilds/{gid}/dissolve", says="You dissolved the guild Iron Hand.")
    assert guilds(client, cid, players[0]) == []
    assert "player0 dissolved the guild Iron Hand." in chronicle(client, cid, players[0])
    assert "Guild:" not in anna.get(f"/campaigns/{cid}/players").text


def test_r8_3_declining_an_invitation_is_one_tap(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client)
    found(anna, cid)
    gid = guilds(client, cid, players[0])[0]["id"]
    post(anna, f"/campaigns/{cid}/guilds/{gid}/invitations", {"player_id": str(players[1]["player_id"])})
    iid = guilds(client, cid, players[1])[0]["requests"][0]["id"]
    done_post(
        bert,
        f"/campaigns/{cid}/guilds/{gid}/invitations/{iid}/decline",
        says="You declined the invitation of the guild Iron Hand.",
    )
    assert gold(client, cid, players[1]) == 400 and guilds(client, cid, players[1])[0]["requests"] == []


# --- refusals change nothing -------------------------------------------------------------------


def test_r8_1_r11_5_founding_refusals_are_said_in_place_and_change_nothing(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client, level_cost=500)
    before = state(client, cid, players)
    r = post(anna, f"/campaigns/{cid}/guilds", {"name": "Iron Hand", "confirm": "1"})
    assert r.status_code == 409 and "Not enough gold" in r.text and 'value="Iron Hand"' in r.text
    r = post(anna, f"/campaigns/{cid}/guilds", {"name": "   "})
    assert r.status_code == 422 and '<p class="field-error" id="e-name">Name is required.</p>' in r.text
    r = post(anna, f"/campaigns/{cid}/guilds", {"name": "N" * 61})
    assert r.status_code == 422 and "Name: This value is too long (at most 60)." in r.text
    assert state(client, cid, players) == before


def test_r8_1_r8_3_refusals_between_players_change_nothing(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client)
    found(anna, cid)
    gid = guilds(client, cid, players[0])[0]["id"]
    before = state(client, cid, players)
    # A taken name, next to the name field; a founder joining another guild.
    r = post(bert, f"/campaigns/{cid}/guilds", {"name": "iron hand", "confirm": "1"})
    assert (
        r.status_code == 409
        and f'<p class="field-error" id="e-name">Name: {html.escape(says("guild_name_taken", name="iron hand"))}</p>' in r.text
    )
    r = post(anna, f"/campaigns/{cid}/guilds/{gid}/requests", {"confirm": "1"})
    assert (
        r.status_code == 409 and html.escape(says("guild_founder_dissolve_first", nickname="player0", name="Iron Hand")) in r.text
    )
    # Only the founder upgrades, invites, decides and dissolves; only members leave.
    for path, data in (
        ("upgrade", {"confirm": "1"}),
        ("invitations", {"player_id": str(players[2]["player_id"])}),
        ("dissolve", {"confirm": "1"}),
    ):
        r = post(bert, f"/campaigns/{cid}/guilds/{gid}/{path}", data)
        assert r.status_code == 403 and html.escape(says("guild_founder_only")) in r.text, path
    r = post(bert, f"/campaigns/{cid}/guilds/{gid}/leave", {"confirm": "1"})
    assert r.status_code == 409 and html.escape(says("guild_not_member")) in r.text
    r = post(anna, f"/campaigns/{cid}/guilds/{gid}/leave", {"confirm": "1"})
    assert r.status_code == 409 and html.escape(says("guild_founder_leaves")) in r.text
    # Ids that are not there, a decision that does not exist, a player id that is not a number.
    assert post(anna, f"/campaigns/{cid}/guilds/{gid}/requests/999/accept").status_code == 404
    assert post(anna, f"/campaigns/{cid}/guilds/{gid}/requests/1/maybe").status_code == 404
    assert post(bert, f"/campaigns/{cid}/guilds/999/requests", {"confirm": "1"}).status_code == 404
    r = post(anna, f"/campaigns/{cid}/guilds/{gid}/invitations", {"player_id": "abc"})
    assert r.status_code == 422 and "Player: Enter a whole number." in r.text
    # The GM is no player: refused, and the page offers the GM no buttons.
    r = post(master, f"/campaigns/{cid}/guilds", {"name": "GM guild", "confirm": "1"})
    assert r.status_code == 403
    page = master.get(f"/campaigns/{cid}/guilds").text
    assert "Iron Hand" in page and "Found a guild" not in page and "/upgrade" not in page and "/requests" not in page
    assert state(client, cid, players) == before


def test_r8_3_an_entry_fee_the_invitee_cannot_pay_is_refused_and_nothing_changes(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client, entry_fee=1000)
    found(anna, cid)
    gid = guilds(client, cid, players[0])[0]["id"]
    post(anna, f"/campaigns/{cid}/guilds/{gid}/invitations", {"player_id": str(players[1]["player_id"])})
    iid = guilds(client, cid, players[1])[0]["requests"][0]["id"]
    before = state(client, cid, players)
    r = post(bert, f"/campaigns/{cid}/guilds/{gid}/invitations/{iid}/accept")
    assert r.status_code == 409 and html.escape(says("guild_entry_unaffordable", nickname="player1", fee=1000)) in r.text
    assert state(client, cid, players) == before


# --- the module off (R9.2, R9.6) ----------------------------------------------------------------


def test_r9_2_with_guilds_off_the_pages_are_refused_and_no_link_shows(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(client, make_client, guilds_on=False)
    for b in (anna, master):
        r = b.get(f"/campaigns/{cid}/guilds")
        assert r.status_code == 409 and "The Guilds module is off in this campaign." in r.text
        for path in ("", "/players", "/rules"):
            assert f"/campaigns/{cid}/guilds" not in b.get(f"/campaigns/{cid}{path}").text, path
    before = state(client, cid, players)
    for path, data in (
        ("/guilds", {"name": "Iron Hand", "confirm": "1"}),
        ("/guilds/1/requests", {"confirm": "1"}),
        ("/guilds/1/requests/1/accept", {}),
        ("/guilds/1/invitations", {"player_id": "2"}),
        ("/guilds/1/invitations/1/accept", {"confirm": "1"}),
        ("/guilds/1/upgrade", {"confirm": "1"}),
        ("/guilds/1/leave", {"confirm": "1"}),
        ("/guilds/1/dissolve", {"confirm": "1"}),
    ):
        r = post(anna, f"/campaigns/{cid}{path}", data)
        assert r.status_code == 409 and "The Guilds module is off in this campaign." in r.text, path
    assert state(client, cid, players) == before


def test_r8_4_r9_1_the_rules_tab_states_the_amounts_and_the_reading(client, make_client):
    gm, cid, players, (anna, bert, cleo, master) = world(
        client, make_client, term="cartel", level_cost=40, level_income=7, max_level=4
    )
    rules = anna.get(f"/campaigns/{cid}/rules").text
    assert (
        "Level N allows N allies besides the founder and costs N × 40 gold, paid by the founder; each round a cartel of level N "
        "yields N × 7 gold, shared equally among all its members, each share rounded up. Highest level: 4."
    ) in rules
    assert f'href="/campaigns/{cid}/guilds">Cartels</a>' in rules


def test_r11_2_outsiders_do_not_see_the_guilds_page(client, make_client):
    gm, cid, players, browsers = world(client, make_client)
    register(client, "stranger")
    stranger = make_client()
    login(stranger, "stranger")
    assert stranger.get(f"/campaigns/{cid}/guilds").status_code == 404
    assert post(stranger, f"/campaigns/{cid}/guilds", {"name": "Spies", "confirm": "1"}).status_code == 404


# --- bounded statements ---------------------------------------------------------------------------


def _guild_world(engine, size: int) -> tuple[int, str]:
    """A running campaign of `size` players in guilds of three, each with a request and an
    invitation waiting; returns the campaign and the first founder's nickname (who logs in)."""
    cid = large_campaign.build(engine, gm_nickname="gamemaster", players=size)
    with Session(engine) as s:
        campaign = s.get(Campaign, cid)
        campaign.modules, campaign.guild = dict(DEFAULT_MODULES), {**DEFAULT_GUILD, "max_level": 20}
        roster = s.exec(select(Player).where(Player.campaign_id == cid).order_by(Player.id)).all()
        for p in roster:
            p.gold = 400
        for k in range(0, size, 3):
            founder, member, asker = roster[k], roster[k + 1], roster[k + 2]
            guild = Guild(campaign_id=cid, name=f"Guild {k}", founder_player_id=founder.id, level=3, founded_round=1)
            s.add(guild)
            s.flush()
            s.add_all(
                [
                    GuildMember(campaign_id=cid, guild_id=guild.id, player_id=founder.id),
                    GuildMember(campaign_id=cid, guild_id=guild.id, player_id=member.id),
                    GuildRequest(campaign_id=cid, guild_id=guild.id, player_id=asker.id, kind="request", fee=5),
                    GuildRequest(campaign_id=cid, guild_id=guild.id, player_id=asker.id, kind="invitation"),
                ]
            )
        u = s.exec(select(User).where(User.id == roster[0].user_id)).one()
        u.password_hash = hash_password(PASSWORD)
        s.add(u)
        s.commit()
        return cid, u.nickname


@pytest.mark.parametrize("path", ["/guilds", "/players", ""])
def test_r8_1_guild_pages_run_the_same_statements_with_3_and_12_players_and_guilds(
    client, engine, count_statements, make_client, path
):
    register(client, "gamemaster")
    counts = []
    for size in (3, 12):
        cid, nickname = _guild_world(engine, size)
        browser = make_client()
        login(browser, nickname)
        for who in (browser, client):  # the first founder, and the GM
            with count_statements() as counter:
                r = who.get(f"/campaigns/{cid}{path}")
            assert r.status_code == 200, r.text[:300]
            counts.append(counter.count)
    assert counts[:2] == counts[2:], counts
    assert max(counts) <= 20, counts

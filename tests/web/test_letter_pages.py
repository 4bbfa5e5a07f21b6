"""The Messages tab on a phone (R8.12, R9.4, R11.2; the manual's „Wiadomości”): two taps to
write from a player's row, a preview before sending, post/redirect/get with a flash message,
the thread view that marks read as a mail client does, the unread badge on the tab and the
dashboard — and a letter seen by nobody but its two parties on every page: not the other
player, not the GM when not a party, not an outsider, not an anonymous visitor."""

from __future__ import annotations

import re

import pytest
from markupsafe import escape
from sqlmodel import Session, select

from app.campaigns.models import Campaign
from app.core.errors import message_for
from app.core.i18n import translations
from app.letters.models import Letter
from tests.builders.accounts import user
from tests.builders.campaigns import campaign_with_players, create_campaign, join, start_campaign
from tests.builders.pages import browser, flash_of, login, post, register
from tests.unit.test_letter_markdown import HOSTILE, assert_harmless

SECRET = "Secret plan at the ford"


def esc(text: str) -> str:
    return str(escape(text))


def world(client, make_client, n: int = 3, *, letters_on: bool = True, running: bool = True):
    """`n` players (player0…) and the GM, each logged in in a browser of their own (the GM's
    last), and an outsider (a user of no campaign) logged in too."""
    gm, cid, players, places = campaign_with_players(client, n, modules={"letters": letters_on})
    if running:
        start_campaign(client, gm, cid, players, places)
    browsers = [browser(make_client, nickname) for nickname in [p["nickname"] for p in players] + ["gamemaster"]]
    user(client, "outsider")
    outsider = browser(make_client, "outsider")
    return gm, cid, players, browsers, outsider


def letters(engine) -> list[tuple]:
    with Session(engine) as s:
        return [
            (x.id, x.from_player_id, x.to_player_id, x.subject, x.body, x.read_at, x.thread_id)
            for x in s.exec(select(Letter).order_by(Letter.id)).all()
        ]


def read_at(engine, lid: int):
    with Session(engine) as s:
        return s.get(Letter, lid).read_at


def says(code: str, locale: str = "en", **params) -> str:
    return message_for(code, params, translations(locale).gettext)


def tab_badge(page: str, cid: int) -> int:
    """The unread count on the Messages tab (0 when no badge)."""
    link = re.search(rf'<a href="/campaigns/{cid}/letters"[^>]*>Messages(.*?)</a>', page, re.S)
    assert link, "no Messages tab"
    badge = re.search(r'<span class="badge accent"[^>]*>(?:<span aria-hidden="true">)?(\d+)</span>', link.group(1))
    return int(badge.group(1)) if badge else 0


def send(browser, cid: int, to, subject: str = SECRET, body: str = "Meet at *midnight*.") -> str:
    r = post(
        browser,
        f"/campaigns/{cid}/letters",
        {"to": str(to), "subject": subject, "body": body},
        token_from=f"/campaigns/{cid}/letters/new",
    )
    assert r.status_code == 303, r.text[:600]
    return r.headers["location"]


def test_r8_12_write_in_two_taps_preview_send_read_and_reply(client, make_client, engine):
    gm, cid, players, (anna, bert, cleo, master), _ = world(client, make_client)
    pid = [p["player_id"] for p in players]
    # Tap 1: the Players tab's row links here (the coordinator adds the link); the recipient is chosen.
    page = anna.get(f"/campaigns/{cid}/letters/new?to={pid[1]}")
    assert page.status_code == 200
    assert f'<option value="{pid[1]}" selected>player1</option>' in page.text
    assert '<option value="gm" >Game master</option>' in page.text  # a player may write to the GM
    assert f'<option value="{pid[0]}"' not in page.text  # not to oneself
    assert 'formaction="/campaigns/%d/letters/preview"' % cid in page.text
    # Preview: the same form again with the body as it will be read; nothing is sent.
    form = {"to": str(pid[1]), "subject": SECRET, "body": "Meet at *midnight*.\n\n![map](https://evil.example/m.png)"}
    r = post(anna, f"/campaigns/{cid}/letters/preview", form, token_from=f"/campaigns/{cid}/letters/new")
    assert r.status_code == 200
    assert "<p>Meet at <em>midnight</em>.</p>" in r.text and "<p>map</p>" in r.text and 'evil.example/m.png"' not in r.text
    assert "Not sent yet" in r.text and f'<option value="{pid[1]}" selected>' in r.text
    assert "Meet at *midnight*." in r.text  # the textarea keeps what was written
    assert letters(engine) == []
    # Tap 2: Send. Post/redirect/get to the thread, which says what was done once.
    target = send(anna, cid, pid[1], body=form["body"])
    lid = letters(engine)[0][0]
    assert target == f"/campaigns/{cid}/letters/{lid}#letter-{lid}"
    first = anna.get(target).text
    assert flash_of(first) == "Letter sent to player1." and SECRET in first
    assert flash_of(anna.get(target).text) is None
    assert read_at(engine, lid) is None  # the sender's opening marks nothing
    # The recipient: a badge on the tab and a line on the dashboard, then the inbox.
    dashboard = bert.get(f"/campaigns/{cid}").text
    assert tab_badge(dashboard, cid) == 1 and "1 unread letter" in dashboard
    inbox = bert.get(f"/campaigns/{cid}/letters").text
    assert SECRET in inbox and "from player0" in inbox and "unread" in inbox and "Mark as read" in inbox
    # Opening the thread marks it read (a GET, as mail clients do); it says "new" this once.
    thread = bert.get(f"/campaigns/{cid}/letters/{lid}").text
    assert '<span class="badge accent">new</span>' in thread and "From player0 to player1" in thread
    assert read_at(engine, lid) is not None and tab_badge(thread, cid) == 0
    assert '<span class="badge accent">new</span>' not in bert.get(f"/campaigns/{cid}/letters/{lid}").text
    assert "unread letter" not in bert.get(f"/campaigns/{cid}").text
    assert "opened" in anna.get(f"/campaigns/{cid}/letters?box=out").text
    # Reply: to the sender, in the thread, "Re: …".
    assert f'value="Re: {SECRET}"' in thread and 'name="reply_to"' in thread
    r = post(
        bert,
        f"/campaigns/{cid}/letters/{lid}/reply",
        {"subject": f"Re: {SECRET}", "body": "Agreed."},
        token_from=f"/campaigns/{cid}/letters/{lid}",
    )
    assert r.status_code == 303
    rid = letters(engine)[1][0]
    assert r.headers["location"] == f"/campaigns/{cid}/letters/{lid}#letter-{rid}"
    assert flash_of(bert.get(r.headers["location"]).text) == "Reply sent to player0."
    assert letters(engine)[1][1:4] == (pid[1], pid[0], f"Re: {SECRET}") and letters(engine)[1][6] == lid
    # Mark unread from the thread: back to the inbox, unread again.
    r = post(bert, f"/campaigns/{cid}/letters/{lid}/unread", token_from=f"/campaigns/{cid}/letters")
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}/letters"
    inbox = bert.get(r.headers["location"]).text
    assert flash_of(inbox) == f"Marked as unread: {SECRET}" and tab_badge(inbox, cid) == 1
    assert read_at(engine, lid) is None
    # …and read again with one tap in the inbox.
    r = post(bert, f"/campaigns/{cid}/letters/{lid}/read", {"page": "1"}, token_from=f"/campaigns/{cid}/letters")
    assert r.status_code == 303 and flash_of(bert.get(r.headers["location"]).text) == f"Marked as read: {SECRET}"
    assert read_at(engine, lid) is not None


def test_r8_12_the_gm_is_a_participant_addressed_as_game_master(client, make_client, engine):
    gm, cid, players, (anna, bert, cleo, master), _ = world(client, make_client)
    target = send(anna, cid, "gm", "Rules question", "May I?")
    assert flash_of(anna.get(target).text) == "Letter sent to the game master."
    page = master.get(f"/campaigns/{cid}/letters/new").text
    assert 'value="gm"' not in page  # the GM does not write to the GM
    assert "1 unread letter" in master.get(f"/campaigns/{cid}").text
    lid = letters(engine)[0][0]
    thread = master.get(f"/campaigns/{cid}/letters/{lid}").text
    assert "From player0 to Game master" in thread and "Reply to player0" in thread
    r = post(master, f"/campaigns/{cid}/letters/{lid}/reply", {"body": "Yes."}, token_from=f"/campaigns/{cid}/letters/{lid}")
    assert r.status_code == 303 and flash_of(master.get(r.headers["location"]).text) == "Reply sent to player0."
    back = anna.get(f"/campaigns/{cid}/letters/{lid}").text
    assert "From Game master to player0" in back and "Reply to Game master" in back
    r = post(anna, f"/campaigns/{cid}/letters/{lid}/reply", {"body": "Thanks."}, token_from=f"/campaigns/{cid}/letters/{lid}")
    assert flash_of(anna.get(r.headers["location"]).text) == "Reply sent to the game master."


def test_r8_12_r11_5_refusals_show_the_form_again_in_the_users_language_and_change_nothing(client, make_client, engine):
    gm, cid, players, (anna, bert, cleo, master), _ = world(client, make_client)
    pid = [p["player_id"] for p in players]
    other_gm = user(client, "othergm")
    other_cid = create_campaign(client, other_gm, name="Elsewhere")["id"]
    stranger = join(client, other_gm, other_cid, "stranger")
    new = f"/campaigns/{cid}/letters/new"
    # Every problem at once, next to its field; what was typed stays.
    r = post(anna, f"/campaigns/{cid}/letters", {"to": "", "subject": "", "body": "Kept text"}, token_from=new)
    assert r.status_code == 422
    assert "Write to is required." in r.text and "Subject is required." in r.text and "Kept text" in r.text
    r = post(anna, f"/campaigns/{cid}/letters", {"to": str(pid[1]), "subject": "x" * 201, "body": "y" * 20_001}, token_from=new)
    assert r.status_code == 422 and "Subject: This value is too long (at most 200)." in r.text
    assert "Letter: This value is too long (at most 20000)." in r.text
    # Refused by the service: to oneself, to a player of another campaign.
    r = post(anna, f"/campaigns/{cid}/letters", {"to": str(pid[0]), "subject": "S", "body": "B"}, token_from=new)
    assert r.status_code == 422 and says("letter_to_self") in r.text and 'name="subject" type="text" value="S"' in r.text
    r = post(anna, f"/campaigns/{cid}/letters", {"to": str(stranger["player_id"]), "subject": "S", "body": "B"}, token_from=new)
    assert r.status_code == 404 and says("not_found") in r.text
    # A preview with a problem says so and sends nothing either.
    r = post(anna, f"/campaigns/{cid}/letters/preview", {"to": str(pid[1]), "subject": "S", "body": "  "}, token_from=new)
    assert r.status_code == 422 and "Letter is required." in r.text and "Not sent yet" not in r.text
    # In Polish for a Polish user.
    bert.post(
        "/language",
        data={"locale": "pl", "csrf_token": re.search(r'name="csrf_token" value="([0-9a-f]+)"', bert.get("/").text).group(1)},
    )
    r = post(bert, f"/campaigns/{cid}/letters", {"to": str(pid[1]), "subject": "S", "body": "B"}, token_from=new)
    assert r.status_code == 422 and esc(says("letter_to_self", "pl")) in r.text
    # The sender may not mark a letter read: the thread shows why.
    send(anna, cid, pid[1])
    lid = letters(engine)[0][0]
    before = letters(engine)
    r = post(anna, f"/campaigns/{cid}/letters/{lid}/read", token_from=f"/campaigns/{cid}/letters")
    assert r.status_code == 403 and esc(says("letter_recipient_only")) in r.text
    # A blank reply is refused in place.
    r = post(anna, f"/campaigns/{cid}/letters/{lid}/reply", {"body": " "}, token_from=f"/campaigns/{cid}/letters")
    assert r.status_code == 422 and "Letter is required." in r.text
    assert letters(engine) == before


def test_r8_12_a_finished_campaign_shows_its_letters_and_sends_none(client, make_client, engine):
    gm, cid, players, (anna, bert, cleo, master), _ = world(client, make_client)
    pid = [p["player_id"] for p in players]
    send(anna, cid, pid[1])
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=gm).status_code == 200
    before = letters(engine)
    page = anna.get(f"/campaigns/{cid}/letters/new").text
    assert "letters can be read but no longer sent" in page and 'action="/campaigns/%d/letters"' % cid not in page
    assert "Write a letter</a>" not in anna.get(f"/campaigns/{cid}/letters").text
    r = post(
        anna,
        f"/campaigns/{cid}/letters",
        {"to": str(pid[1]), "subject": "S", "body": "B"},
        token_from=f"/campaigns/{cid}/letters",
    )
    assert r.status_code == 409 and says("campaign_read_only") in r.text
    lid = before[0][0]
    thread = bert.get(f"/campaigns/{cid}/letters/{lid}").text
    assert SECRET in thread and "Send the reply" not in thread
    r = post(bert, f"/campaigns/{cid}/letters/{lid}/reply", {"body": "B"}, token_from=f"/campaigns/{cid}/letters")
    assert r.status_code == 409 and says("campaign_read_only") in r.text
    assert [x[:5] for x in letters(engine)] == [x[:5] for x in before]


def test_r8_12_r11_2_a_letter_is_secret_on_every_page_for_everybody_else(client, make_client, engine):
    gm, cid, players, (anna, bert, cleo, master), outsider = world(client, make_client)
    pid = [p["player_id"] for p in players]
    send(anna, cid, pid[1])
    lid = letters(engine)[0][0]
    send(anna, cid, "gm", "For the GM only", "Eyes of the GM only.")
    gm_lid = letters(engine)[1][0]
    anonymous = make_client()
    anonymous.get("/")
    before = letters(engine)
    pages = [
        "",
        "/letters",
        "/letters?box=out",
        "/letters/new",
        f"/letters/new?to={pid[1]}",
        "/players",
        "/chronicle",
        "/rules",
        "/events",
        "/map",
    ]
    # The other player and the GM (not a party to the first letter).
    for who, hidden in ((cleo, (lid, gm_lid)), (master, (lid,))):
        for path in pages:
            r = who.get(f"/campaigns/{cid}{path}")
            assert r.status_code == 200, (path, r.status_code)
            assert SECRET not in r.text and "Meet at" not in r.text, path
            for x in hidden:
                assert f"/letters/{x}" not in r.text, path
            if path in ("", "/letters"):
                assert tab_badge(r.text, cid) == (1 if who is master else 0)
        assert "unread letter" not in cleo.get(f"/campaigns/{cid}").text
        for x in hidden:
            r = who.get(f"/campaigns/{cid}/letters/{x}")
            assert r.status_code == 404 and SECRET not in r.text and "For the GM only" not in r.text
            missing = who.get(f"/campaigns/{cid}/letters/999999")
            assert missing.status_code == 404 and missing.text.count("Not found") == r.text.count("Not found")
            for action, data in (("read", {}), ("unread", {}), ("reply", {"body": "Let me in"})):
                r = post(who, f"/campaigns/{cid}/letters/{x}/{action}", data, token_from=f"/campaigns/{cid}/letters")
                assert r.status_code == 404, (action, r.status_code)
            r = post(
                who,
                f"/campaigns/{cid}/letters/preview",
                {"reply_to": str(x), "body": "peek"},
                token_from=f"/campaigns/{cid}/letters",
            )
            assert r.status_code == 404 and SECRET not in r.text
    # Player 2 does not see the letter to the GM in the GM's place either: the GM does.
    assert "For the GM only" in master.get(f"/campaigns/{cid}/letters").text
    # An outsider (a user of no campaign) learns nothing; an anonymous visitor is sent to log in.
    for path in ["", "/letters", "/letters?box=out", "/letters/new", f"/letters/{lid}", f"/letters/{gm_lid}"]:
        r = outsider.get(f"/campaigns/{cid}{path}")
        assert r.status_code == 404 and SECRET not in r.text, path
        r = anonymous.get(f"/campaigns/{cid}{path}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/login"), path
    for stranger in (outsider, anonymous):
        for path, data in (
            (f"/letters/{lid}/read", {}),
            (f"/letters/{lid}/unread", {}),
            (f"/letters/{lid}/reply", {"body": "x"}),
            ("/letters", {"to": str(pid[1]), "subject": "S", "body": "B"}),
            ("/letters/preview", {"reply_to": str(lid)}),
        ):
            r = post(stranger, f"/campaigns/{cid}{path}", data)
            assert r.status_code in (303, 404) and SECRET not in r.text, path
            if r.status_code == 303:
                assert r.headers["location"].startswith("/login")
    assert letters(engine) == before
    # The two parties see it.
    assert SECRET in anna.get(f"/campaigns/{cid}/letters?box=out").text
    assert SECRET in bert.get(f"/campaigns/{cid}/letters").text


def test_r9_4_with_the_module_off_pages_are_refused_and_links_hidden(client, make_client, engine):
    gm, cid, players, (anna, bert, cleo, master), _ = world(client, make_client, letters_on=False)
    pid = [p["player_id"] for p in players]
    for who in (anna, master):
        dashboard = who.get(f"/campaigns/{cid}").text
        assert f'href="/campaigns/{cid}/letters"' not in dashboard and "unread letter" not in dashboard
        for path in ("/letters", "/letters/new", "/letters/1"):
            r = who.get(f"/campaigns/{cid}{path}")
            assert r.status_code == 409 and "Messages module is off" in r.text, path
    r = post(anna, f"/campaigns/{cid}/letters", {"to": str(pid[1]), "subject": "S", "body": "B"})
    assert r.status_code == 409 and "Messages module is off" in r.text
    r = post(anna, f"/campaigns/{cid}/letters/preview", {"to": str(pid[1]), "subject": "S", "body": "B"})
    assert r.status_code == 409
    assert letters(engine) == []


def test_r8_12_the_tab_shows_the_badge_on_every_campaign_page_and_its_links_with_the_module_on(client, make_client):
    gm, cid, players, (anna, bert, cleo, master), _ = world(client, make_client)
    send(anna, cid, players[1]["player_id"])
    for path in ("", "/players", "/map", "/events", "/chronicle", "/rules", "/letters"):
        page = bert.get(f"/campaigns/{cid}{path}").text
        assert tab_badge(page, cid) == 1, path
        assert tab_badge(anna.get(f"/campaigns/{cid}{path}").text, cid) == 0, path
    assert 'aria-current="page">Messages' in bert.get(f"/campaigns/{cid}/letters").text


def test_r8_12_the_inbox_is_paginated(client, make_client, engine):
    gm, cid, players, (anna, bert, master), _ = world(client, make_client, n=2)
    pid = [p["player_id"] for p in players]
    with Session(engine) as s:
        for i in range(25):
            s.add(Letter(campaign_id=cid, from_player_id=pid[0], to_player_id=pid[1], subject=f"Letter no. {i:02d}", body="B"))
        s.commit()
    first = bert.get(f"/campaigns/{cid}/letters").text
    assert "Letter no. 24" in first and "Letter no. 04" not in first and "page 1 of 2" in first
    assert 'href="?page=2"' in first
    second = bert.get(f"/campaigns/{cid}/letters?page=2").text
    assert "Letter no. 04" in second and "Letter no. 05" not in second
    out = anna.get(f"/campaigns/{cid}/letters?box=out").text
    assert 'href="?box=out&amp;page=2"' in out
    assert "No letters yet." in anna.get(f"/campaigns/{cid}/letters").text


@pytest.mark.parametrize("body", HOSTILE)
def test_r8_12_r11_2_hostile_markdown_is_harmless_on_the_pages(client, make_client, engine, body):
    gm, cid, players, (anna, bert, master), _ = world(client, make_client, n=2, running=False)
    send(anna, cid, players[1]["player_id"], "Hostile", body)
    lid = letters(engine)[0][0]
    preview = post(
        anna,
        f"/campaigns/{cid}/letters/preview",
        {"to": str(players[1]["player_id"]), "subject": "Hostile", "body": body},
        token_from=f"/campaigns/{cid}/letters/new",
    ).text
    for page in (bert.get(f"/campaigns/{cid}/letters/{lid}").text, preview):
        letter = re.search(r'<div class="story letter-body"[^>]*>(.*?)</div>', page, re.S).group(1)
        assert_harmless(letter)
        lowered = letter.lower()
        for bad in (
            "<script",
            "<img",
            "<iframe",
            "<style",
            "<svg",
            "<object",
            "<embed",
            "<form",
            "<input",
            "<link",
            "<meta",
            "<math",
            "<details",
        ):
            assert bad not in lowered, (body, letter)


def _letters_world(engine, gm_user_id: int, n_letters: int) -> tuple[int, str]:
    """A campaign whose first player received and sent `n_letters` letters each (one thread
    of `n_letters` replies among them); its nickname."""
    from app.accounts.models import User
    from app.campaigns.models import Player
    from app.core.security import hash_password
    from tests.builders.accounts import PASSWORD

    with Session(engine) as s:
        campaign = Campaign(
            gm_user_id=gm_user_id,
            name=f"Letters {n_letters}",
            modules={"letters": True},
            status="running",
            round=1,
            phase="preparation",
        )
        s.add(campaign)
        s.flush()
        players = []
        for i in range(3):
            u = User(nickname=f"l{n_letters}p{i}", nickname_key=f"l{n_letters}p{i}", password_hash=hash_password(PASSWORD))
            s.add(u)
            s.flush()
            p = Player(campaign_id=campaign.id, user_id=u.id)
            s.add(p)
            s.flush()
            players.append(p.id)
        root = None
        for i in range(n_letters):
            for frm, to in ((players[1 + i % 2], players[0]), (players[0], None if i % 2 else players[2])):
                letter = Letter(
                    campaign_id=campaign.id,
                    from_player_id=frm,
                    to_player_id=to,
                    subject=f"S{i}",
                    body=f"*B{i}*",
                    reply_to_id=root,
                    thread_id=root,
                )
                s.add(letter)
                s.flush()
                if root is None:
                    root = letter.id
                    letter.thread_id = root
        s.commit()
        return campaign.id, root, f"l{n_letters}p0"


@pytest.mark.parametrize("path", ["/letters", "/letters?box=out", "/letters/new", "/letters/{root}", ""])
def test_r8_12_messages_pages_run_the_same_statements_with_5_and_50_letters(client, make_client, engine, count_statements, path):
    register(client, "gamemaster")
    from app.accounts.models import User

    with Session(engine) as s:
        gm_id = s.exec(select(User.id).where(User.nickname_key == "gamemaster")).one()
    counts = []
    for size in (5, 50):
        cid, root, nickname = _letters_world(engine, gm_id, size)
        browser = make_client()
        login(browser, nickname)
        url = f"/campaigns/{cid}{path.format(root=root)}"
        browser.get(url)  # the first opening of a thread marks its letters read: count the next one
        for who in (browser, client):
            with count_statements() as counter:
                r = who.get(url)
            assert r.status_code == 200 or (who is client and "{root}" in path), (url, r.status_code, r.text[:300])
            counts.append(counter.count)
    assert counts[:2] == counts[2:], counts
    assert max(counts) <= 14, counts

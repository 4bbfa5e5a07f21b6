"""SPEC R11.2, side channels (issue 27 item 7): a page resumes its live stream from the newest
event its viewer may see. That point was found by reading back through the campaign's events,
200 at a time, until one the viewer may see turned up: after others wrote letters or had their
orders undone, each of the viewer's page draws ran more SQL statements and took longer. Each
event now names its audiences as it is written, and a page finds its viewer's newest event with
one statement, whatever is hidden from them; the stream's replay check likewise."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from app.accounts.models import User
from app.core.live import broker, open_id, seal_id
from app.live import service as live
from app.live.models import LiveEvent
from app.live.seen import live_events_seen_by
from app.visibility import viewer_for
from tests.api.live_helpers import listen, stream_server
from tests.builders.campaigns import running_campaign
from tests.builders.pages import login

RESUME = re.compile(r'data-sse-connect="/api/v1/campaigns/\d+/stream\?after=([0-9a-f]{16}|0)"')
VARYING = {"x-request-id", "date"}
HIDDEN = 500


def _user(session: Session, nickname: str) -> User:
    return session.exec(select(User).where(User.nickname == nickname)).one()


def _letter(client, cid: int, sender: dict, recipient: dict | None, subject: str = "Between us") -> int:
    body = {"to_player_id": recipient["player_id"]} if recipient else {"to_gm": True}
    r = client.post(f"/api/v1/campaigns/{cid}/letters", headers=sender["headers"], json={**body, "subject": subject, "body": "…"})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _hidden_events(engine, cid: int, letter_id: int, borys: int, celina: int, *, gm_too: bool) -> None:
    """HIDDEN live events about borys and celina, written straight through the live service in
    one transaction: a letter between them, and (when `gm_too`, hidden from a player but not
    from the GM) their undone orders, settlements, a ransom and Twilight's call to the GM."""
    kinds = ["letter"] + (["order", "settlement", "ransom", "twilight"] if gm_too else [])
    with Session(engine) as session:
        for i in range(HIDDEN):
            kind = kinds[i % len(kinds)]
            if kind == "letter":
                live.publish(session, cid, "letter", subject_id=letter_id)
            elif kind == "order":
                live.publish(session, cid, "order", subject_id=borys, player_id=borys, round=1, warband="Krushers")
            elif kind == "settlement":
                live.publish(session, cid, "settlement", subject_id=1, player_id=celina, warband_id=1, action="closed")
            elif kind == "ransom":
                live.publish(session, cid, "ransom", subject_id=1, owner_player_id=borys, captor_player_id=celina, model="Gob")
            else:
                live.publish(session, cid, "twilight", count=2)
        session.commit()
        added = session.exec(select(LiveEvent).where(LiveEvent.campaign_id == cid)).all()
    assert len(added) >= HIDDEN


def _draw(browser, url: str, count_statements) -> tuple[int, list[str], int, list, bytes]:
    with count_statements() as counted:
        r = browser.get(url)
    assert r.status_code == 200, r.text[:300]
    headers = sorted((k, v) for k, v in r.headers.multi_items() if k.lower() not in VARYING)
    return counted.count, counted.statements, r.status_code, headers, r.content


def _browser(make_client, nickname: str):
    browser = make_client()
    login(browser, nickname)
    browser.get("/")  # shows (and so ends) the welcome flash
    return browser


@pytest.mark.parametrize("role", ["player", "gm"])
def test_R11_2_hidden_live_events_change_neither_the_dashboard_nor_its_sql(role, client, make_client, engine, count_statements):
    """Before the change: 500 events hidden from the viewer made the dashboard run four more
    statements (batches of 200 events read back, and their letters) — more with every 200."""
    gm, cid, players, places = running_campaign(client, 3)
    anna, borys, celina = players
    letter = _letter(client, cid, borys, celina)
    browser = _browser(make_client, "player0" if role == "player" else "gamemaster")
    url = f"/campaigns/{cid}"
    browser.get(url)  # warm: what a first draw may do once
    before = _draw(browser, url, count_statements)
    _hidden_events(engine, cid, letter, borys["player_id"], celina["player_id"], gm_too=role == "player")
    after = _draw(browser, url, count_statements)
    assert after[0] == before[0], f"{before[0]} statements before {HIDDEN} hidden events, {after[0]} after"
    assert after[1] == before[1]  # the same statements, not only as many
    assert after[2:] == before[2:]  # status, every header (the ETag too) and the body


def test_R11_2_the_viewers_own_event_still_moves_their_cursor(client, make_client, engine, listen, app):
    """The point moves with what the viewer may see, and the stream resumed from the old point
    sends that event (nothing of the viewer's is skipped), from the new one nothing."""
    gm, cid, players, places = running_campaign(client, 3)
    anna, borys, celina = players
    browser = _browser(make_client, "player0")
    url = f"/campaigns/{cid}"
    old = RESUME.search(browser.get(url).text).group(1)
    _hidden_events(engine, cid, _letter(client, cid, borys, celina), borys["player_id"], celina["player_id"], gm_too=True)
    assert RESUME.search(browser.get(url).text).group(1) == old
    mine = _letter(client, cid, borys, anna, "For you")  # anna's own: her cursor moves to it
    new = RESUME.search(browser.get(url).text).group(1)
    with Session(engine) as session:
        (event,) = session.exec(select(LiveEvent).where(LiveEvent.kind == "letter", LiveEvent.subject_id == mine)).all()
    assert new != old and open_id(app.state.secret_key.encode(), new) == event.id
    resumed = listen(cid, anna["headers"], f"?after={old}")
    ev = resumed.next()
    assert (ev.kind, ev.id) == ("letter", new)
    resumed.silent(0.3)  # the 500 hidden events are not sent
    listen(cid, anna["headers"], f"?after={new}").silent(0.3)


def _open_stream(client, cid: int, headers: dict, count_statements) -> tuple[int, str]:
    """A stream's opening (it ends at once, as at a shutdown): its statements and what it sent."""
    broker.closing = True
    try:
        with count_statements() as counted:
            r = client.get(f"/api/v1/campaigns/{cid}/stream", headers=headers)
    finally:
        broker.closing = False
    assert r.status_code == 200, r.text
    return counted.count, r.text


def test_R11_2_hidden_live_events_do_not_change_the_work_of_a_resumed_stream(client, engine, app, count_statements):
    """The replay check (issue 28 item 9) counted the viewer's events by reading every event
    after the resume point, hidden ones included, 200 at a time."""
    gm, cid, players, places = running_campaign(client, 3)
    anna, borys, celina = players
    with Session(engine) as session:
        resume = live.last_seen(session, viewer_for(session, _user(session, "player0"), cid))
    assert resume
    headers = {**anna["headers"], "Last-Event-ID": seal_id(app.state.secret_key.encode(), resume)}
    before = _open_stream(client, cid, headers, count_statements)
    _hidden_events(engine, cid, _letter(client, cid, borys, celina), borys["player_id"], celina["player_id"], gm_too=True)
    assert _open_stream(client, cid, headers, count_statements) == before


def test_R11_2_an_events_audiences_are_who_the_stream_tells(client, engine):
    """The audiences written with each event name exactly the viewers the stream tells of it
    (live.seen.live_events_seen_by), for every member: the cursor neither lags behind what a
    viewer was told nor moves with what they were not."""
    gm, cid, players, places = running_campaign(client, 3)
    anna, borys, celina = players
    letters = [_letter(client, cid, borys, celina), _letter(client, cid, anna, None), _letter(client, cid, celina, anna)]
    with Session(engine) as session:
        for lid in letters:
            live.publish(session, cid, "letter", subject_id=lid)
        live.publish(session, cid, "order", subject_id=1, player_id=borys["player_id"])
        live.publish(session, cid, "settlement", subject_id=1, player_id=anna["player_id"], action="closed")
        live.publish(
            session, cid, "ransom", subject_id=1, owner_player_id=anna["player_id"], captor_player_id=celina["player_id"]
        )
        live.publish(session, cid, "twilight", count=1)
        live.publish(session, cid, "clock", subject_id=1)
        session.commit()
    with Session(engine) as session:
        events = list(session.exec(select(LiveEvent).where(LiveEvent.campaign_id == cid).order_by(LiveEvent.id)).all())
        for nickname in ("gamemaster", "player0", "player1", "player2"):
            viewer = viewer_for(session, _user(session, nickname), cid)
            told = [ev.id for ev, _ in live_events_seen_by(session, viewer, events)]
            assert told, nickname
            assert live.last_seen(session, viewer) == max(told), nickname
            for i, ev in enumerate(events):
                assert live.seen_after(session, viewer, ev.id, 100) == len([t for t in told if t > ev.id]), (nickname, i)

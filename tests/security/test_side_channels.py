"""Side channels (SPEC R11.2, last paragraph; issue 27 item 7, issue 28 items 9 and 10): nothing
a viewer receives changes when only something hidden from them changed — not a page's bytes,
not its headers (the ETag), not what the live stream replays or whether it asks to reload —
and what is drawn for someone logged in is kept by no HTTP cache."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from app.core.live import broker, open_id
from app.live import service as live_service
from app.live.models import LiveEvent
from tests.api.live_helpers import listen, stream_server
from tests.builders.accounts import PASSWORD
from tests.builders.campaigns import running_campaign
from tests.builders.pages import csrf, login, post
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase

RESUME = re.compile(r'data-sse-connect="/api/v1/campaigns/\d+/stream\?after=([0-9a-f]{16}|0)"')
NO_STORE = "private, no-store"


def _letters(client, cid: int, sender: dict, recipient: dict, n: int) -> None:
    for i in range(n):
        r = client.post(
            f"/api/v1/campaigns/{cid}/letters",
            headers=sender["headers"],
            json={"to_player_id": recipient["player_id"], "subject": f"Plan {i}", "body": "Between us."},
        )
        assert r.status_code == 201, r.text


def _browser(make_client, nickname: str):
    browser = make_client()
    login(browser, nickname)
    browser.get("/")  # shows (and so ends) the welcome flash
    return browser


def _replayed(client, cid: int, headers: dict) -> list[str]:
    """What a stream sends before it would start waiting (it ends at once, as at a shutdown):
    its `retry` and, when too much was missed, the reload frame."""
    broker.closing = True
    try:
        r = client.get(f"/api/v1/campaigns/{cid}/stream", headers=headers)
    finally:
        broker.closing = False
    assert r.status_code == 200, r.text
    return re.findall(r"^event: (\w+)$", r.text, flags=re.MULTILINE)


def test_R11_2_issue28_9_letters_between_others_do_not_count_towards_the_replay_limit(client, listen, app, monkeypatch):
    """Issue 28 item 9: a stream resumed after more hidden events than the replay limit asked
    the viewer to reload, after fewer it did not — a count of other people's letters. Only what
    the viewer may see counts now: the letters change nothing, the phase after them is replayed,
    and more visible events than the limit still ask to reload (the refusal still works)."""
    monkeypatch.setattr(app.state.settings, "live_replay_limit", 3)
    monkeypatch.setattr(live_service, "SCAN_BATCH", 2)  # several reads of a run of hidden events
    gm, cid, players, places = running_campaign(client, 3)
    anna, borys, celina = players
    s = listen(cid, anna["headers"])
    to_phase(client, gm, cid, "orders")
    seen = s.next()
    s.close()
    resume = {**anna["headers"], "Last-Event-ID": seen.id}
    assert _replayed(client, cid, resume) == []
    _letters(client, cid, borys, celina, 7)  # more than the limit, hidden from anna
    assert _replayed(client, cid, resume) == []  # before the change: "reload"
    to_phase(client, gm, cid, "battles")
    resumed = listen(cid, resume)
    ev = resumed.next()
    assert (ev.kind, ev.data.get("phase")) == ("phase", "battles")
    # Celina may see the letters: for her they are missed updates, too many to replay.
    assert _replayed(client, cid, {**celina["headers"], "Last-Event-ID": seen.id}) == ["reload"]
    for phase in ("settlement", "twilight"):
        to_phase(client, gm, cid, phase)
    to_phase(client, gm, cid, "preparation")  # four visible events after `seen`: too many
    assert _replayed(client, cid, resume) == ["reload"]


def test_R11_2_issue28_9_the_reload_frame_names_the_newest_event_the_viewer_may_see(client, app, monkeypatch):
    """The reload frame's id is where the viewer resumes; it is the newest event they may see,
    however many hidden ones came after it (the latest hundred events held none of anna's,
    and the frame then went without an id)."""
    monkeypatch.setattr(app.state.settings, "live_replay_limit", 1)
    monkeypatch.setattr(live_service, "SCAN_BATCH", 2)
    gm, cid, players, places = running_campaign(client, 3)
    anna, borys, celina = players
    broker.closing = True
    try:
        r = client.get(f"/api/v1/campaigns/{cid}/stream?after=0", headers=anna["headers"])
        before = re.search(r"^id: ([0-9a-f]{16})$", r.text, flags=re.MULTILINE).group(1)
        _letters(client, cid, borys, celina, 5)
        r = client.get(f"/api/v1/campaigns/{cid}/stream?after=0", headers=anna["headers"])
        after = re.search(r"^id: ([0-9a-f]{16})$", r.text, flags=re.MULTILINE)
    finally:
        broker.closing = False
    assert "event: reload" in r.text and after and after.group(1) == before


@pytest.mark.parametrize("since", [253402300800000, 2**53, 10**20])
def test_issue28_9_a_since_past_the_year_9999_is_a_422(client, since):
    """A moment no datetime holds was a 500; it is bad input. The last millisecond of 9999 is
    still a moment (the stream answers)."""
    gm, cid, players, places = running_campaign(client, 2)
    r = client.get(f"/api/v1/campaigns/{cid}/stream?since={since}", headers=gm)
    assert r.status_code == 422 and error_code(r) == "validation_error"
    broker.closing = True
    try:
        assert client.get(f"/api/v1/campaigns/{cid}/stream?since=253402300799999", headers=gm).status_code == 200
    finally:
        broker.closing = False


def test_R11_2_a_page_resumes_its_stream_from_what_its_viewer_saw(client, make_client, listen, app):
    """Issue 27 item 7: the stream's starting point on a page was the moment it was drawn (every
    load a different page). It is now the newest event the viewer may see: letters between
    others leave the page byte for byte the same, and the stream from that point sends the
    next visible event, not the letters."""
    gm, cid, players, places = running_campaign(client, 3)
    anna, borys, celina = players
    browser = _browser(make_client, "player0")
    url = f"/campaigns/{cid}"
    first = browser.get(url)
    assert browser.get(url).text == first.text  # no render-time nonce
    _letters(client, cid, borys, celina, 3)
    again = browser.get(url)
    assert again.text == first.text and again.headers["etag"] == first.headers["etag"]
    point = RESUME.search(again.text).group(1)
    assert open_id(app.state.secret_key.encode(), point) == max(e.id for e in _events(app, cid) if e.kind == "phase")
    s = listen(cid, anna["headers"], f"?after={point}")
    to_phase(client, gm, cid, "orders")
    ev = s.next()
    assert (ev.kind, ev.data.get("phase")) == ("phase", "orders")
    s.silent(0.3)
    moved = browser.get(url)
    assert RESUME.search(moved.text).group(1) == ev.id  # a change anna sees moves it


def _events(app, cid: int):
    with Session(app.state.engine) as session:
        return list(session.exec(select(LiveEvent).where(LiveEvent.campaign_id == cid)).all())


def test_issue28_10_pages_of_a_logged_in_user_are_not_stored(client, make_client):
    """Issue 28 item 10: every page drawn for someone logged in, every page showing a flash
    message (a new API token is shown in one) and every new token over the API answers
    `private, no-store`; a client that revalidates with If-None-Match still gets its 304."""
    gm, cid, players, places = running_campaign(client, 2)
    browser = _browser(make_client, "player0")
    for path in ("/", "/account", f"/campaigns/{cid}", f"/campaigns/{cid}/company", f"/campaigns/{cid}/map"):
        r = browser.get(path)
        assert r.status_code == 200 and r.headers["cache-control"] == NO_STORE, path
    page = browser.get(f"/campaigns/{cid}")
    again = browser.get(f"/campaigns/{cid}", headers={"If-None-Match": page.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == NO_STORE
    r = post(browser, "/account/tokens", {"name": "phone"}, token_from="/account")
    assert r.status_code == 303
    shown = browser.get("/account")
    assert "copy it now" in shown.text and shown.headers["cache-control"] == NO_STORE and "etag" not in shown.headers
    api = client.post("/api/v1/auth/tokens", json={"nickname": "player0", "password": PASSWORD})
    assert api.status_code == 201 and api.headers["cache-control"] == NO_STORE
    me = client.get("/api/v1/me", headers=players[0]["headers"])
    assert me.status_code == 200 and me.headers["cache-control"] == NO_STORE
    # Logged out: the login page after a logout shows a flash; a plain one is nobody's.
    assert browser.post("/logout", data={"csrf_token": csrf(browser, "/")}, follow_redirects=False).status_code == 303
    bye = browser.get("/login")
    assert bye.headers["cache-control"] == NO_STORE
    assert make_client().get("/login").headers.get("cache-control") != NO_STORE
    # Answers that say what they are keep their word: a hashed static file is immutable.
    static = re.search(r'src="(/static/app\.js\?v=[0-9a-f]+)"', page.text).group(1)
    assert browser.get(static).headers["cache-control"] == "public, max-age=31536000, immutable"

"""Issue 28, items 6–8: webhook addresses that hide a private IPv4 inside IPv6 are refused
(R28.7), deliveries are signed the Standard Webhooks way with a timestamp (R28.8), one
campaign's slow receivers do not hold up another campaign's news (R28.8), and the daily
digest goes only to a confirmed address, with one-click unsubscribe, and never turns a
campaign's name into a link (R28.6)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import re
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlmodel import Session, select
from structlog.testing import capture_logs

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.chronicle import service as chronicle
from app.core.db import unit_of_work
from app.core.errors import DomainError
from app.season import digest
from app.season import rules as rules_season
from app.season.models import DigestSubscription
from app.webhooks import rules, sender, service
from app.webhooks.models import Webhook, WebhookDelivery
from tests.api.test_season_digest_api import _world, noon, smtp_settings
from tests.api.test_webhooks_api import SECRET, Receiver, add_hook
from tests.builders.accounts import user
from tests.builders.battles import campaign_with_warbands
from tests.builders.campaigns import create_campaign
from tests.builders.pages import login, post
from tests.builders.responses import error_code
from tests.builders.rounds import to_phase


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def allow_private(app, monkeypatch):
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", True)
    return app.state.settings


# --- R28.7: IPv4 inside IPv6 ---------------------------------------------------------------------

EMBEDDED_PRIVATE = [
    "::127.0.0.1",
    "::ffff:127.0.0.1",
    "::ffff:0:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::7f00:1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b:1::a00:1",
    "2002:7f00:1::1",
    "2002:c0a8:101::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "::",
    "::1",
    "::ffff:0.0.0.0",
    "::ffff:100.64.0.1",
]
EMBEDDED_PUBLIC = ["64:ff9b::808:808", "2002:808:808::1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]


@pytest.mark.parametrize("address", EMBEDDED_PRIVATE)
def test_R28_7_ipv6_forms_of_a_private_ipv4_are_private(address):
    assert rules.is_private(address)


@pytest.mark.parametrize("address", EMBEDDED_PUBLIC)
def test_R28_7_public_ipv4_behind_nat64_or_6to4_stays_reachable(address):
    """An IPv6-only host reaches IPv4 receivers through NAT64: those are not refused."""
    assert not rules.is_private(address)


@pytest.mark.parametrize(
    "host", ["[::127.0.0.1]", "[::ffff:0:7f00:1]", "[::ffff:127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:a00:1::1]"]
)
def test_R28_7_a_hook_to_an_embedded_private_address_is_refused_and_nothing_is_added(client, engine, host):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    r = client.post(f"/api/v1/campaigns/{cid}/webhooks", json={"url": f"http://{host}/x", "secret": SECRET}, headers=gm)
    assert r.status_code == 422 and error_code(r) == "webhook_url_private"
    with Session(engine) as s:
        assert s.exec(select(Webhook)).all() == []


def test_R28_7_a_name_resolving_to_an_embedded_private_address_is_refused():
    def resolve(host, port, **kwargs):
        return [(10, 1, 6, "", ("64:ff9b::a00:5", port, 0, 0)), (2, 1, 6, "", ("93.184.216.34", port))]

    with pytest.raises(DomainError) as refused:
        service.check_address("https://hooks.example.org/x", allow_private=False, resolve=resolve)
    assert refused.value.code == "webhook_url_private"


# --- R28.8: Standard Webhooks signatures ---------------------------------------------------------


def _standard_ok(got: dict, key: bytes) -> bool:
    h = got["headers"]
    signed = f"{h['webhook-id']}.{h['webhook-timestamp']}.".encode() + got["body"]
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    version, _, mac = h["webhook-signature"].partition(",")
    return version == "v1" and hmac.compare_digest(mac, expected)


def test_R28_8_deliveries_carry_a_timestamped_standard_signature_and_the_old_one(client, engine, allow_private, receiver):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url)
    receiver.answers = [500]
    to_phase(client, gm, cid, "orders")
    sender.deliver_due(engine, allow_private)
    with unit_of_work(engine, write=True) as s:  # the retry is due at once
        for d in s.exec(select(WebhookDelivery)).all():
            d.next_at = d.entry_at
            s.add(d)
    sender.deliver_due(engine, allow_private)
    first, retry = receiver.got
    for got in (first, retry):
        # An existing secret signs as its UTF-8 bytes: whsec_ + base64(secret) in a Standard Webhooks library.
        assert _standard_ok(got, SECRET.encode()) and not _standard_ok(got, b"another secret")
        assert abs(int(got["headers"]["webhook-timestamp"]) - time.time()) < 30
        legacy = "sha256=" + hmac.new(SECRET.encode(), got["body"], hashlib.sha256).hexdigest()
        assert got["headers"]["X-Hideout-Signature"] == legacy
    assert first["headers"]["webhook-id"] == retry["headers"]["webhook-id"]  # a retry is the same message
    assert rules.standard_secret(SECRET) == "whsec_" + base64.b64encode(SECRET.encode()).decode()


def test_R28_8_a_replayed_body_under_a_new_timestamp_does_not_verify():
    body = b'{"kind":"phase_changed"}'
    headers = rules.standard_headers("whsec_" + base64.b64encode(b"k" * 24).decode(), "hideout-7", 1_700_000_000, body)
    got = {"headers": headers, "body": body}
    assert _standard_ok(got, b"k" * 24)
    assert not _standard_ok({"headers": {**headers, "webhook-timestamp": "1800000000"}, "body": body}, b"k" * 24)


def test_R28_8_a_whsec_secret_is_used_as_its_key_and_new_hooks_get_one(client, engine, allow_private, receiver):
    key = b"0123456789abcdef0123456789abcdef"
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url, secret="whsec_" + base64.b64encode(key).decode())
    r = client.post(f"/api/v1/campaigns/{cid}/webhooks", json={"url": receiver.url + "/2"}, headers=gm)
    assert r.status_code == 201
    to_phase(client, gm, cid, "orders")
    sender.deliver_due(engine, allow_private)
    by_path = {g["path"]: g for g in receiver.got}
    assert _standard_ok(by_path["/hideout"], key)
    with Session(engine) as s:
        made_up = s.exec(select(Webhook.secret).where(Webhook.url.endswith("/2"))).one()
    assert made_up.startswith("whsec_") and len(rules.signing_key(made_up)) == 24
    assert _standard_ok(by_path["/hideout/2"], rules.signing_key(made_up))


# --- R28.8: fairness between campaigns -----------------------------------------------------------


class SlowReceiver:
    """Answers after `delay` seconds: a receiver that hangs."""

    def __init__(self, delay: float) -> None:
        self.hits = 0

        class Handler(BaseHTTPRequestHandler):
            def do_POST(handler):
                self.hits += 1
                time.sleep(delay)
                try:
                    handler.send_response(200)
                    handler.end_headers()
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/slow"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _news(engine, cid: int) -> None:
    with unit_of_work(engine, write=True) as s:
        chronicle.record(s, s.get(Campaign, cid), "player_joined", nickname="Zed")


@pytest.mark.load
def test_R28_8_ten_slow_hooks_in_one_campaign_do_not_hold_up_another(client, engine, allow_private, receiver):
    """Campaign A has ten hooks whose receiver hangs past the timeout; campaign B's news,
    written while A's are being tried, reaches B's receiver within a few seconds (one at a
    time, it would wait ten timeouts)."""
    slow = SlowReceiver(delay=3.0)
    settings = allow_private.model_copy(update={"webhook_timeout_seconds": 1.5})
    try:
        gm = user(client, "fair-gm")
        a, b = (create_campaign(client, gm, name=name)["id"] for name in ("Slow A", "Quick B"))
        for i in range(10):
            add_hook(client, gm, a, f"{slow.url}/{i}")
        add_hook(client, gm, b, receiver.url)
        _news(engine, a)
        worker = threading.Thread(target=sender.deliver_due, args=(engine, settings))
        worker.start()
        deadline = time.monotonic() + 10
        while slow.hits == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        written = time.monotonic()
        _news(engine, b)
        while not receiver.got and time.monotonic() < deadline:
            time.sleep(0.05)
        waited = time.monotonic() - written
        worker.join(30)
        assert receiver.got and waited < 3.0, waited
        assert slow.hits == 10  # A's hooks were all tried too, each once
        with Session(engine) as s:
            rows = s.exec(select(WebhookDelivery)).all()
        assert sorted((r.campaign_id, r.status) for r in rows if r.campaign_id == b) == [(b, "sent")]
        assert all(r.attempts == 1 and r.status == "pending" for r in rows if r.campaign_id == a)
    finally:
        slow.close()


def test_R28_8_fair_pick_takes_campaigns_in_turn_within_their_bound():
    due = [(1, 10, 100), (2, 10, 101), (3, 10, 102), (4, 20, 200), (5, 10, 100), (6, 30, 300)]
    picked = rules.fair_pick(due, busy_hooks=set(), in_flight={}, per_campaign=2, free=8, last_campaign=None)
    assert picked == [1, 4, 6, 2]  # hook 100's second entry waits for its first
    assert rules.fair_pick(due, busy_hooks={101}, in_flight={10: 1}, per_campaign=2, free=2, last_campaign=10) == [4, 6]
    assert (
        rules.fair_pick(due, busy_hooks=set(), in_flight={10: 2, 20: 2, 30: 2}, per_campaign=2, free=8, last_campaign=None) == []
    )


# --- R28.6: the digest's address: double opt-in, few mails, one-click unsubscribe, no links --------


@pytest.fixture
def mail(app, monkeypatch):
    """The app pointed at a local SMTP server; yields its inbox."""
    with smtp_settings(app) as (settings, inbox):
        for name in ("smtp_host", "smtp_port", "smtp_starttls", "smtp_from", "public_url", "smtp_timeout_seconds"):
            monkeypatch.setattr(app.state.settings, name, getattr(settings, name))
        yield inbox


def _row(engine, nickname: str) -> DigestSubscription | None:
    with Session(engine) as s:
        uid = s.exec(select(User.id).where(User.nickname == nickname)).one()
        return s.get(DigestSubscription, uid)


def _link(message) -> str:
    found = re.search(r"https?://\S+/digest/confirm\?token=\S+", message.get_content())
    assert found, message.get_content()
    return found.group(0)


def _save(browser, email: str, enabled: bool = True):
    data = {"email": email, **({"enabled": "on"} if enabled else {})}
    return post(browser, "/account/digest", data, token_from="/account")


def test_R28_6_an_address_gets_only_a_confirmation_until_its_owner_confirms_it(client, app, engine, make_client, mail):
    _gm, _cid, _players, _places, _ends = _world(client, engine)  # player1 and player2 have things waiting
    browser = make_client()
    login(browser, "player1")
    r = _save(browser, "Stranger@Example.org")
    assert r.status_code == 303
    ((rcpt, confirmation),) = mail.wait_for(1)
    assert rcpt == ["Stranger@Example.org"] and confirmation["Subject"] == "Hideout: potwierdź swój adres e-mail"
    row = _row(engine, "player1")
    assert row.email == "Stranger@Example.org" and row.confirmed_at is None and row.enabled
    link = _link(confirmation)
    token = parse_qs(urlsplit(link).query)["token"][0]
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest() and token not in row.token_hash
    # Unconfirmed: the day's digest goes to player2 only, never to the address typed.
    mail.clear()
    assert digest.send_due(engine, app.state.settings, noon()) == 1
    assert [rcpt for rcpt, _m in mail.wait_for(1)] == [["p2@example.org"]]
    # The link shows a button (a scanner opening it confirms nothing); the button confirms, without a login.
    stranger = make_client()
    page = stranger.get(urlsplit(link).path + "?" + urlsplit(link).query)
    assert page.status_code == 200 and 'action="/digest/confirm"' in page.text and "Confirm my address" in page.text
    assert _row(engine, "player1").confirmed_at is None
    r = post(stranger, "/digest/confirm", {"token": token}, token_from="/login")
    assert r.status_code == 303 and r.headers["location"] == "/digest/done"
    row = _row(engine, "player1")
    assert row.confirmed_at is not None and row.token_hash is None
    # Used once: the same link again is refused and changes nothing.
    again = post(stranger, "/digest/confirm", {"token": token}, token_from="/login")
    assert again.status_code == 404 and _row(engine, "player1").confirmed_at == row.confirmed_at
    mail.clear()
    assert digest.send_due(engine, app.state.settings, noon(1)) == 2
    assert sorted(r for rcpt, _m in mail.wait_for(2) for r in rcpt) == ["Stranger@Example.org", "p2@example.org"]


def test_R28_6_a_wrong_or_old_link_confirms_nothing(client, app, engine, make_client, mail):
    user(client, "anna")
    browser = make_client()
    login(browser, "anna")
    _save(browser, "anna@example.org")
    token = parse_qs(urlsplit(_link(mail.wait_for(1)[0][1])).query)["token"][0]
    for wrong in (token[:-2] + "xx", "1.abc", "abc", "", "99999.abc", token.replace(token.split(".")[0], "2", 1)):
        r = post(make_client(), "/digest/confirm", {"token": wrong}, token_from="/login")
        assert r.status_code == 404 and "This link is not valid any more." in r.text
    assert _row(engine, "anna").confirmed_at is None
    with unit_of_work(engine, write=True) as s:  # the link is two days old
        row = s.get(DigestSubscription, _row(engine, "anna").user_id)
        row.token_sent_at = row.token_sent_at - timedelta(hours=48, seconds=1)
        s.add(row)
    r = post(make_client(), "/digest/confirm", {"token": token}, token_from="/login")
    assert r.status_code == 404 and _row(engine, "anna").confirmed_at is None


def test_R28_6_confirmation_mails_are_limited_per_user_and_per_address(client, app, engine, make_client, mail):
    user(client, "anna")
    browser = make_client()
    login(browser, "anna")
    for i in range(3):
        assert _save(browser, f"a{i}@example.org").status_code == 303
    refused = _save(browser, "a3@example.org")
    assert refused.status_code == 429 and "3 confirmation e-mails an hour at most" in html.unescape(refused.text)
    assert _row(engine, "anna").email == "a2@example.org"  # the refusal changed nothing
    resend = post(browser, "/account/digest/resend", token_from="/account")
    assert resend.status_code == 429
    assert len(mail.wait_for(3)) == 3
    # One address, asked for by several users: three mails an hour at most, whoever asks.
    for name in ("bob", "cyd", "dan", "eve"):
        user(client, name)
    answers = []
    for name in ("bob", "cyd", "dan", "eve"):
        b = make_client()
        login(b, name)
        answers.append(_save(b, "Victim@example.org").status_code)
    assert answers == [303, 303, 303, 429] and _row(engine, "eve") is None
    time.sleep(0.3)
    assert len([m for rcpt, m in mail.messages if rcpt == ["Victim@example.org"]]) == 3


def test_R28_6_every_digest_has_one_click_unsubscribe_that_needs_no_login(client, app, engine, make_client, mail):
    _world(client, engine)
    assert digest.send_due(engine, app.state.settings, noon()) == 2
    message = mail.to("p2@example.org") if mail.wait_for(2) else None
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = re.fullmatch(r"<(https://hideout\.example\.org/digest/unsubscribe\?token=\S+)>", message["List-Unsubscribe"]).group(1)
    assert url in message.get_content()
    path = url.removeprefix("https://hideout.example.org")
    anonymous = make_client()
    # A forged or another user's token: refused, nothing changes.
    token = parse_qs(urlsplit(url).query)["token"][0]
    for wrong in (token[:-3] + "abc", "1." + token.split(".", 1)[1], "junk"):
        r = anonymous.post(f"/digest/unsubscribe?token={wrong}", data={"List-Unsubscribe": "One-Click"})
        assert r.status_code == 404
    assert _row(engine, "player2").enabled and _row(engine, "player1").enabled
    # The mail program's POST (RFC 8058): no cookie, no CSRF token.
    r = anonymous.post(path, data={"List-Unsubscribe": "One-Click"})
    assert r.status_code == 200 and not _row(engine, "player2").enabled and _row(engine, "player1").enabled
    mail.clear()
    assert digest.send_due(engine, app.state.settings, noon(1)) == 1
    assert [rcpt for rcpt, _m in mail.wait_for(1)] == [["p1@example.org"]]


def test_R28_6_names_users_chose_never_become_links_in_the_digest(client, app, engine, mail):
    _gm, cid, *_rest = _world(client, engine)
    with unit_of_work(engine, write=True) as s:
        campaign = s.get(Campaign, cid)
        campaign.name = "Free gold at evil.example and https://evil.example/login"
        s.add(campaign)
    assert digest.send_due(engine, app.state.settings, noon()) == 2
    mail.wait_for(2)
    text = mail.to("p2@example.org").get_content()
    assert "== Free gold at evil[.]example and https[:]//evil[.]example/login ==" in text
    assert "evil.example" not in text and "https://evil" not in text
    assert "https://hideout.example.org/campaigns/" in text  # the server's own links stay links
    assert rules_season.defang("Zima 2026. Koniec") == "Zima 2026. Koniec"


def test_R28_6_the_api_keeps_a_new_address_unconfirmed_and_mails_it_once(client, app, engine, mail):
    headers = user(client, "anna")
    assert client.get("/api/v1/me/digest", headers=headers).json()["confirmed"] is False
    r = client.put("/api/v1/me/digest", json={"email": "anna@example.org", "enabled": True}, headers=headers)
    assert r.status_code == 200, r.text
    assert r.json()["outcome"] == "confirm_sent" and r.json()["confirmed"] is False and r.json()["confirmation_sent_at"]
    ((rcpt, message),) = mail.wait_for(1)
    assert rcpt == ["anna@example.org"] and "/digest/confirm?token=" in message.get_content()
    for _ in range(2):
        assert client.post("/api/v1/me/digest/resend", headers=headers).status_code == 200
    r = client.post("/api/v1/me/digest/resend", headers=headers)
    assert r.status_code == 429 and error_code(r) == "digest_confirm_too_many"
    r = client.put("/api/v1/me/digest", json={"email": "other@example.org", "enabled": True}, headers=headers)
    assert r.status_code == 429 and client.get("/api/v1/me/digest", headers=headers).json()["email"] == "anna@example.org"
    assert client.put("/api/v1/me/digest", json={"email": "x", "enabled": True}, headers=headers).status_code == 422
    assert client.get("/api/v1/me/digest").status_code == 401


def _section(browser) -> str:
    return html.unescape(browser.get("/account").text.split('id="digest"')[1].split("</section>")[0])


NO_PUBLIC_URL = (
    "This server sends no digest yet: its administrator has to set its public address first, "
    "for the link in every digest that stops it. You can opt in already."
)


def test_R28_6_without_a_public_address_no_digest_goes_out_and_the_log_says_why_once(
    client, app, engine, make_client, mail, monkeypatch
):
    """No public address, no way out of a digest that works: Hideout reads no incoming mail, so a
    mailto: unsubscribe would go unanswered. None is sent, the day is not used up, the log says
    why once, and the Account page tells the user in their language."""
    _world(client, engine)  # player1 reads Polish
    monkeypatch.setattr(app.state.settings, "public_url", "")
    monkeypatch.setattr(digest, "_SAID", set())
    assert digest.missing(app.state.settings) == "public_url" and not digest.configured(app.state.settings)
    with capture_logs() as logs:
        assert digest.send_due(engine, app.state.settings, noon()) == 0
        assert digest.send_due(engine, app.state.settings, noon()) == 0
    said = [e for e in logs if e["event"] == "digest_off_no_public_url"]
    assert len(said) == 1 and said[0]["log_level"] == "warning" and "HIDEOUT_PUBLIC_URL" in said[0]["reason"]
    time.sleep(0.3)
    assert mail.messages == []
    with Session(engine) as s:  # nobody's day is used up: the digest comes once the address is set
        assert all(r.last_run_on is None and r.last_sent_at is None for r in s.exec(select(DigestSubscription)).all())
        reader = s.exec(select(User).where(User.nickname == "player2")).one()
        assert digest.compose(s, reader, app.state.settings, noon()) is None  # never built without the link
    english, polish = make_client(), make_client()
    login(english, "player2")
    login(polish, "player1")
    assert NO_PUBLIC_URL in _section(english) and "set up SMTP" not in _section(english)
    assert "Ten serwer nie wysyła jeszcze podsumowań" in _section(polish)
    # The administrator sets it: the same day's digests go out, each with its one-click way out.
    monkeypatch.setattr(app.state.settings, "public_url", "https://hideout.example.org/")
    assert digest.send_due(engine, app.state.settings, noon()) == 2
    for _rcpt, message in mail.wait_for(2):
        assert message["List-Unsubscribe"].startswith("<https://hideout.example.org/digest/unsubscribe?token=")
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert NO_PUBLIC_URL not in _section(english)


def test_R28_6_one_click_is_claimed_only_for_an_https_link(client, app, engine, mail, monkeypatch):
    """RFC 8058 one-click is for HTTPS links; a plain http address still gets List-Unsubscribe."""
    _world(client, engine)
    monkeypatch.setattr(app.state.settings, "public_url", "http://hideout.lan:8000")
    assert digest.send_due(engine, app.state.settings, noon()) == 2
    for _rcpt, message in mail.wait_for(2):
        assert message["List-Unsubscribe"].startswith("<http://hideout.lan:8000/digest/unsubscribe?token=")
        assert message["List-Unsubscribe-Post"] is None
        assert "http://hideout.lan:8000/digest/unsubscribe?token=" in message.get_content()


def test_R28_6_without_smtp_the_account_page_names_smtp_not_the_address(client, app, make_client, monkeypatch):
    user(client, "anna")
    monkeypatch.setattr(app.state.settings, "smtp_host", "")
    monkeypatch.setattr(app.state.settings, "public_url", "")
    browser = make_client()
    login(browser, "anna")
    section = _section(browser)
    assert "its administrator has to set up SMTP first" in section and NO_PUBLIC_URL not in section
    assert digest.missing(app.state.settings) == "smtp"

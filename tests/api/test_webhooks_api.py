"""Webhooks (issue 19, API.md `webhooks`): the GM's hooks hear the campaign's public news —
its chronicle entries — signed with the hook's secret, after commit, retried with backoff and
recorded with their last status; secrets (orders before Battles, transfers, letters) never
reach them; private addresses are refused unless the install allows them.

A receiver runs in the test on 127.0.0.1 (so the tests turn HIDEOUT_WEBHOOK_ALLOW_PRIVATE on)
and the sender is run by hand with the test's own clock: nothing sleeps."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import socket
import ssl
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import httpx
import pytest
from sqlmodel import Session, func, select

from app.campaigns.models import Campaign
from app.chronicle import service as chronicle
from app.core.db import unit_of_work, utcnow
from app.core.errors import DomainError
from app.webhooks import rules, sender, service
from app.webhooks.models import Webhook, WebhookDelivery
from tests.builders.accounts import user
from tests.builders.battles import campaign_with_warbands
from tests.builders.responses import error_code
from tests.builders.rounds import send, to_phase

SECRET = "receiver-secret-42"
TRANSFER_NOTE = "zq-webhook-transfer-9c1d"
LETTER_SUBJECT = "zq-webhook-letter-5e2a"
LETTER_BODY = "zq-webhook-letterbody-7b3f"


class Receiver:
    """A small HTTP server standing in for a club's bot: it records every POST and answers
    with the statuses queued in `answers`, then 200."""

    def __init__(self) -> None:
        self.got: list[dict] = []
        self.answers: list[int] = []
        self.always: int | None = None
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.got.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status = receiver.always or (receiver.answers.pop(0) if receiver.answers else 200)
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hideout"

    def json(self) -> list[dict]:
        return [json.loads(g["body"]) for g in self.got]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def allow_private(app, monkeypatch):
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", True)
    return app.state.settings


def hooks_url(cid: int) -> str:
    return f"/api/v1/campaigns/{cid}/webhooks"


def add_hook(client, gm, cid, url, kinds=(), secret=SECRET) -> dict:
    r = client.post(hooks_url(cid), json={"url": url, "secret": secret, "kinds": list(kinds)}, headers=gm)
    assert r.status_code == 201, r.text
    return r.json()


def deliver(engine, settings, **kwargs) -> int:
    return sender.deliver_due(engine, settings, **kwargs)


def signed(got: dict, secret: str = SECRET) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), got["body"], hashlib.sha256).hexdigest()
    return hmac.compare_digest(got["headers"]["X-Hideout-Signature"], expected)


def outbox(engine) -> list[WebhookDelivery]:
    with Session(engine) as s:
        return list(s.exec(select(WebhookDelivery).order_by(WebhookDelivery.id)).all())


def listed(client, gm, cid) -> list[dict]:
    r = client.get(hooks_url(cid), headers=gm)
    assert r.status_code == 200, r.text
    return r.json()


# --- public news, and never a secret -----------------------------------------------------------


def test_issue19_public_news_reaches_the_hook_signed_and_secrets_never_do(client, engine, allow_private, receiver):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    anna, borys = players
    hook = add_hook(client, gm, cid, receiver.url)
    assert set(hook) >= {"id", "url", "kinds"} and hook["kinds"] == [] and "secret" not in hook
    to_phase(client, gm, cid, "orders")
    assert deliver(engine, allow_private) == 1
    (phase,) = receiver.json()
    assert phase["kind"] == "phase_changed" and phase["category"] == "phase" and phase["campaign_id"] == cid
    assert phase["text"] == "Round 1: Preparation → Orders." and phase["round"] == 1 and phase["phase"] == "orders"
    assert phase["params"]["to_phase"] == "orders" and phase["created_at"]
    got = receiver.got[0]
    assert signed(got) and not signed(got, "another secret")
    assert got["headers"]["Content-Type"] == "application/json" and got["path"] == "/hideout"
    assert got["headers"]["X-Hideout-Event"] == "phase_changed" and got["headers"]["X-Hideout-Delivery"].isdigit()

    # Secrets before Battles: orders, a gold transfer, letters. Nothing is written, nothing is sent.
    for p in players:
        send(client, cid, p, place_id=places[-1]["id"])
    r = client.post(
        f"/api/v1/campaigns/{cid}/transfers",
        json={"to_player_id": borys["player_id"], "amount": 7, "note": TRANSFER_NOTE},
        headers=anna["headers"],
    )
    assert r.status_code == 201, r.text
    for body in ({"to_player_id": borys["player_id"]}, {"to_gm": True}):
        r = client.post(
            f"/api/v1/campaigns/{cid}/letters",
            json={**body, "subject": LETTER_SUBJECT, "body": LETTER_BODY},
            headers=anna["headers"],
        )
        assert r.status_code == 201, r.text
    assert len(outbox(engine)) == 1
    assert deliver(engine, allow_private) == 0 and len(receiver.got) == 1

    # Battles: the phase change and the battle announced with its public rosters.
    to_phase(client, gm, cid, "battles")
    assert deliver(engine, allow_private) == 2
    kinds = [b["kind"] for b in receiver.json()]
    assert kinds == ["phase_changed", "phase_changed", "battle_announced"]
    battle = receiver.json()[2]
    assert battle["category"] == "battles" and "orcs band" in battle["text"] and "basileans band" in battle["text"]
    assert "Krusher" in battle["text"]  # the roster, as the chronicle shows it (R6.5)
    assert all(signed(g) for g in receiver.got)
    everything = b"".join(g["body"] for g in receiver.got).decode()
    for secret in (TRANSFER_NOTE, LETTER_SUBJECT, LETTER_BODY):
        assert secret not in everything
    # Sent once: a second round sends nothing again, and the hook shows its last status.
    assert deliver(engine, allow_private) == 0
    (row,) = listed(client, gm, cid)
    assert row["last_status"] == 200 and row["last_error"] is None and row["pending"] == 0 and row["last_at"]


def test_issue19_a_hook_hears_only_the_categories_it_chose(client, engine, allow_private, receiver):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url, kinds=["battles", "results"])
    to_phase(client, gm, cid, "orders")
    for p in players:
        send(client, cid, p, place_id=places[-1]["id"])
    to_phase(client, gm, cid, "battles")
    deliver(engine, allow_private)
    assert [b["kind"] for b in receiver.json()] == ["battle_announced"]
    assert listed(client, gm, cid)[0]["kinds"] == ["battles", "results"]


def test_issue37_the_sender_reads_the_trusted_certificates_once_and_still_verifies(
    client, engine, allow_private, receiver, monkeypatch
):
    """Each round of the sender (every poll, every wake-up) read the CA bundle again: ~30 ms of
    CPU a round on a server with nothing to send. Now once a process, the same checks kept."""
    made = []
    real = httpx.create_ssl_context
    monkeypatch.setattr(httpx, "create_ssl_context", lambda *a, **k: made.append(1) or real(*a, **k))
    sender._tls.cache_clear()
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url)
    assert deliver(engine, allow_private) == 0  # nothing due yet
    to_phase(client, gm, cid, "orders")
    assert deliver(engine, allow_private) == 1 and [b["kind"] for b in receiver.json()] == ["phase_changed"]
    assert deliver(engine, allow_private) == 0
    assert made == [1]
    assert sender._tls().verify_mode == ssl.CERT_REQUIRED and sender._tls().check_hostname
    sender._tls.cache_clear()


def test_issue19_a_rolled_back_change_sends_nothing(client, engine, allow_private, receiver):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url)
    with pytest.raises(RuntimeError), unit_of_work(engine, write=True) as session:
        chronicle.record(session, session.get(Campaign, cid), "event_added", title="Never", place="Nowhere")
        chronicle.record_many(session, session.get(Campaign, cid), [("battle_announced", {"place": "Nowhere", "warbands": ""})])
        assert len(session.exec(select(WebhookDelivery)).all()) == 2
        raise RuntimeError("refused after the entries were written")
    assert outbox(engine) == [] and deliver(engine, allow_private) == 0 and receiver.got == []


def test_issue19_a_commit_with_news_wakes_the_sender(client, allow_private, receiver, monkeypatch):
    woken = []
    monkeypatch.setattr(sender, "nudge", lambda: woken.append(True))
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    assert woken == []  # no hook yet: nothing to send
    add_hook(client, gm, cid, receiver.url)
    listed(client, gm, cid)
    assert woken == []
    to_phase(client, gm, cid, "orders")
    assert woken == [True]


def test_issue19_the_job_in_the_server_sends_when_woken(client, engine, allow_private, receiver):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url)
    settings = allow_private.model_copy(update={"webhook_poll_seconds": 60.0})
    app = SimpleNamespace(state=SimpleNamespace(engine=engine, settings=settings))

    async def scenario():
        job = asyncio.create_task(sender.run(app))
        for _ in range(100):
            if sender._waker is not None:
                break
            await asyncio.sleep(0.01)
        await asyncio.to_thread(to_phase, client, gm, cid, "orders")  # commits news: the job is woken, not polled
        for _ in range(500):
            if receiver.got:
                break
            await asyncio.sleep(0.01)
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job

    asyncio.run(scenario())
    assert [b["kind"] for b in receiver.json()] == ["phase_changed"] and sender._waker is None


# --- retries -----------------------------------------------------------------------------------


def test_issue19_a_failed_delivery_is_retried_with_backoff_then_succeeds(client, engine, allow_private, receiver):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url)
    to_phase(client, gm, cid, "orders")
    receiver.answers = [500, 503]
    start = utcnow()
    assert deliver(engine, allow_private, now=start) == 1
    (row,) = listed(client, gm, cid)
    assert row["last_status"] == 500 and row["last_error"] == "HTTP 500" and row["pending"] == 1
    # Backoff: 30 s after the first failure, 60 s after the second.
    assert deliver(engine, allow_private, now=start + timedelta(seconds=29)) == 0
    assert deliver(engine, allow_private, now=start + timedelta(seconds=31)) == 1
    assert listed(client, gm, cid)[0]["last_status"] == 503
    assert deliver(engine, allow_private, now=start + timedelta(seconds=31 + 59)) == 0
    assert deliver(engine, allow_private, now=start + timedelta(seconds=31 + 61)) == 1
    (row,) = listed(client, gm, cid)
    assert row["last_status"] == 200 and row["last_error"] is None and row["pending"] == 0 and row["failed"] == 0
    assert len(receiver.got) == 3 and len({g["body"] for g in receiver.got}) == 1  # the same delivery each time
    assert len({g["headers"]["X-Hideout-Delivery"] for g in receiver.got}) == 1
    (d,) = outbox(engine)
    assert d.status == "sent" and d.attempts == 3


def test_issue19_a_hook_gives_up_after_the_last_attempt_and_says_why_then_goes_on(client, engine, allow_private, receiver):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url)
    to_phase(client, gm, cid, "orders")
    to_phase(client, gm, cid, "battles")  # nobody sent: a second phase change, held back behind the first
    receiver.always = 500
    moment = utcnow()
    for attempt in range(allow_private.webhook_max_attempts - 1):
        assert deliver(engine, allow_private, now=moment) == 1, attempt
        moment += timedelta(hours=1)
    # The last attempt fails: the hook gives that news up and tries the next at once.
    assert deliver(engine, allow_private, now=moment) == 2
    assert [b["params"]["to_phase"] for b in receiver.json()] == ["orders"] * 5 + ["battles"]
    first, second = outbox(engine)
    assert (first.status, first.attempts, second.status, second.attempts) == ("failed", 5, "pending", 1)
    (row,) = listed(client, gm, cid)
    assert row["failed"] == 1 and row["pending"] == 1 and row["last_error"] == "HTTP 500" and row["last_status"] == 500
    # The receiver is back: the next news goes out; the given-up one is not tried again.
    receiver.always = None
    assert deliver(engine, allow_private, now=moment + timedelta(hours=1)) == 1
    assert receiver.json()[-1]["params"]["to_phase"] == "battles"
    assert deliver(engine, allow_private, now=moment + timedelta(days=1)) == 0
    assert listed(client, gm, cid)[0]["last_status"] == 200


def test_issue19_two_senders_never_send_one_delivery_twice(client, engine, allow_private, receiver):
    """Several workers each run the sender: a delivery is claimed by one of them only, and
    a claim left by a sender that died is taken again once its lease is over."""
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url)
    to_phase(client, gm, cid, "orders")
    now = utcnow()
    (due,) = sender._due(engine, now, 10)
    first = sender._claim(engine, allow_private, due, now)
    assert first is not None and sender._claim(engine, allow_private, due, now) is None
    assert sender._due(engine, now, 10) == [] and deliver(engine, allow_private, now=now) == 0
    later = now + timedelta(minutes=5)
    assert deliver(engine, allow_private, now=later) == 1 and len(receiver.got) == 1


def test_issue19_done_deliveries_are_dropped_after_two_weeks(client, engine, allow_private, receiver):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    add_hook(client, gm, cid, receiver.url)
    to_phase(client, gm, cid, "orders")
    assert deliver(engine, allow_private) == 1
    to_phase(client, gm, cid, "battles")
    assert [d.status for d in outbox(engine)] == ["sent", "pending"]
    assert deliver(engine, allow_private, now=utcnow() + timedelta(days=13)) == 1
    assert [d.status for d in outbox(engine)] == ["sent", "sent"]
    to_phase(client, gm, cid, "settlement")
    assert deliver(engine, allow_private, now=utcnow() + timedelta(days=15)) == 1
    assert outbox(engine) == [] and len(receiver.got) == 3


def test_issue19_an_unreachable_receiver_is_an_error_not_a_crash(client, engine, allow_private):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    with socket.socket() as probe:  # a port nobody listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    add_hook(client, gm, cid, f"http://127.0.0.1:{port}/gone")
    to_phase(client, gm, cid, "orders")
    assert deliver(engine, allow_private) == 1
    (row,) = listed(client, gm, cid)
    assert row["last_status"] is None and row["last_error"].startswith("ConnectError") and row["pending"] == 1


# --- addresses ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://localhost/hook",
        "https://10.1.2.3/x",
        "http://192.168.0.10/x",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/x",
        "http://[::ffff:127.0.0.1]/x",
        "http://0.0.0.0/x",
        "http://100.64.0.1/x",
        "http://224.0.0.1/x",
    ],
)
def test_issue19_private_addresses_are_refused_without_the_setting(client, engine, url):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    r = client.post(hooks_url(cid), json={"url": url, "secret": SECRET}, headers=gm)
    assert r.status_code == 422 and error_code(r) == "webhook_url_private", r.text
    assert "public addresses" in r.json()["error"]["message"]
    assert listed(client, gm, cid) == []


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/x",
        "file:///etc/passwd",
        "example.com/hook",
        "http:///nohost",
        "javascript:alert(1)",
        "http://example.com:99999/x",
    ],
)
def test_issue19_only_http_addresses_are_taken(client, url):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    r = client.post(hooks_url(cid), json={"url": url, "secret": SECRET}, headers=gm)
    assert r.status_code == 422 and error_code(r) in ("webhook_url_invalid", "validation_error"), r.text


def _resolver(*addresses):
    def resolve(host, port, type=0):
        if not addresses:
            raise OSError("no such host")
        return [(2, 1, 6, "", (a, port)) for a in addresses]

    return resolve


def test_issue19_a_name_is_judged_by_every_address_it_resolves_to():
    check = service.check_address
    check("https://hooks.example.org/x", allow_private=False, resolve=_resolver("93.184.216.34"))
    for addresses in (("10.0.0.5",), ("93.184.216.34", "127.0.0.1"), ("fd00::1",)):
        with pytest.raises(DomainError) as refused:
            check("https://hooks.example.org/x", allow_private=False, resolve=_resolver(*addresses))
        assert refused.value.code == "webhook_url_private"
    with pytest.raises(DomainError) as unknown:
        check("https://nowhere.example.org/x", allow_private=False, resolve=_resolver())
    assert unknown.value.code == "webhook_host_unknown" and unknown.value.params == {"host": "nowhere.example.org"}
    check("http://127.0.0.1/x", allow_private=True, resolve=_resolver())  # home setups: asked for nothing
    with pytest.raises(DomainError):
        check("gopher://127.0.0.1/x", allow_private=True)


def test_issue37_a_host_whose_lookup_does_not_answer_is_refused_within_the_bound_and_adds_nothing(client, app, monkeypatch):
    """Adding a hook looks its host up inside the request's write transaction (on SQLite, the one
    writer's lock): a resolver that does not answer is given LOOKUP_SECONDS, not its own
    timeouts, and the hook is refused as an unknown host, with nothing added."""
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", False)
    monkeypatch.setattr(service, "LOOKUP_SECONDS", 0.3)
    answer = threading.Event()
    monkeypatch.setattr(service.socket, "getaddrinfo", lambda *_a, **_k: answer.wait(10) and [])
    started = time.monotonic()
    r = client.post(hooks_url(cid), json={"url": "https://slow.example.org/x", "kinds": []}, headers=gm)
    took = time.monotonic() - started
    answer.set()
    assert (r.status_code, error_code(r)) == (422, "webhook_host_unknown") and "slow.example.org" in r.text
    assert took < 3, took
    assert listed(client, gm, cid) == []


def test_issue19_the_address_is_checked_again_when_sending(client, engine, app, receiver, monkeypatch):
    """A hook added while private addresses were allowed is not sent to once they are not."""
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", True)
    add_hook(client, gm, cid, receiver.url)
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", False)
    to_phase(client, gm, cid, "orders")
    assert deliver(engine, app.state.settings) == 1
    assert receiver.got == []
    (row,) = listed(client, gm, cid)
    assert row["last_status"] is None and "not a public address" in row["last_error"] and row["pending"] == 1


def test_issue19_the_send_goes_to_the_address_that_was_checked(client, engine, app, receiver, monkeypatch):
    """The name is looked up once per send and the request goes to that address (with the
    name as Host), so a second lookup cannot send it somewhere private. Here the name exists
    only for the check, and the receiver's loopback address is taken as public."""
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    port = receiver.server.server_address[1]
    real = socket.getaddrinfo
    looked_up = []

    def resolve(host, *args, **kwargs):
        if host == "receiver.test":
            looked_up.append(host)
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    monkeypatch.setattr(rules, "is_private", lambda address: False)
    add_hook(client, gm, cid, f"http://receiver.test:{port}/pinned")
    to_phase(client, gm, cid, "orders")
    assert deliver(engine, app.state.settings) == 1
    (got,) = receiver.got
    assert got["path"] == "/pinned" and got["headers"]["Host"] == f"receiver.test:{port}" and signed(got)
    assert looked_up == ["receiver.test", "receiver.test"]  # when added, and when sent


# --- Discord -----------------------------------------------------------------------------------


def test_issue19_a_discord_webhook_gets_a_discord_message_in_the_gms_language(client, engine, allow_private):
    gm = user(client, "gamemaster-pl", locale="pl")
    cid = client.post("/api/v1/campaigns", json={"name": "Discord"}, headers=gm).json()["id"]
    url = "https://discord.com/api/webhooks/123456/token-abc"
    hook = add_hook(client, gm, cid, url, secret=None)  # a Discord channel checks no signature: one is made up
    assert listed(client, gm, cid)[0]["discord"] is True and hook["discord"] is True
    # An entry written straight through the chronicle: the GM's Polish words, and a name that tries to ping everyone.
    with unit_of_work(engine, write=True) as session:
        chronicle.record(session, session.get(Campaign, cid), "phase_changed", round=2, from_phase="orders", to_phase="battles")
        chronicle.record(session, session.get(Campaign, cid), "guild_founded", player="@everyone", name="x" * 3000)
    seen = []

    def discord(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(204)

    with httpx.Client(transport=httpx.MockTransport(discord)) as fake:
        assert deliver(engine, allow_private, client=fake) == 2
    assert [str(r.url) for r in seen] == [url, url]
    first, second = (json.loads(r.content) for r in seen)
    assert first == {"content": "Runda 2: Rozkazy → Bitwy.", "allowed_mentions": {"parse": []}}
    assert set(second) == {"content", "allowed_mentions"} and len(second["content"]) == 2000 and second["content"].endswith("…")
    assert seen[0].headers["X-Hideout-Signature"].startswith("sha256=")


# --- who may, and what is refused --------------------------------------------------------------


def test_issue19_only_the_gm_manages_hooks_players_are_refused_outsiders_told_nothing(client, allow_private, receiver):
    gm, cid, players, _places = campaign_with_warbands(client, 2)
    hook = add_hook(client, gm, cid, receiver.url)
    outsider = user(client, "outsider")
    body = {"url": receiver.url, "secret": SECRET}
    for headers, status, code in ((players[0]["headers"], 403, "gm_only"), (outsider, 404, "not_found")):
        for r in (
            client.get(hooks_url(cid), headers=headers),
            client.post(hooks_url(cid), json=body, headers=headers),
            client.delete(f"{hooks_url(cid)}/{hook['id']}", headers=headers),
        ):
            assert r.status_code == status and error_code(r) == code, r.text
            assert receiver.url not in r.text
    assert client.get(hooks_url(cid)).status_code == 401
    assert len(listed(client, gm, cid)) == 1


def test_issue19_removing_a_hook_drops_its_undelivered_news(client, engine, allow_private, receiver):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    hook = add_hook(client, gm, cid, receiver.url)
    to_phase(client, gm, cid, "orders")
    assert len(outbox(engine)) == 1
    r = client.delete(f"{hooks_url(cid)}/{hook['id']}", headers=gm)
    assert r.status_code == 204
    assert listed(client, gm, cid) == [] and outbox(engine) == []
    assert client.delete(f"{hooks_url(cid)}/{hook['id']}", headers=gm).status_code == 404
    to_phase(client, gm, cid, "battles")
    assert deliver(engine, allow_private) == 0 and receiver.got == []


def test_issue19_another_campaigns_hook_is_not_found(client, allow_private, receiver):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    other = client.post("/api/v1/campaigns", json={"name": "Other"}, headers=gm).json()["id"]
    hook = add_hook(client, gm, other, receiver.url)
    r = client.delete(f"{hooks_url(cid)}/{hook['id']}", headers=gm)
    assert r.status_code == 404 and error_code(r) == "not_found"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"secret": SECRET},
        {"url": None, "secret": SECRET},
        {"url": 5, "secret": SECRET},
        {"url": "https://example.com/x", "secret": "short"},
        {"url": "https://example.com/x", "secret": "s" * 201},
        {"url": "https://example.com/" + "x" * 2000, "secret": SECRET},
        {"url": "https://exa mple.com/x", "secret": SECRET},
        {"url": "https://example.com/x\n", "secret": SECRET, "kinds": "all"},
        {"url": "https://example.com/x", "secret": SECRET, "kinds": ["nope"]},
        {"url": "https://example.com/x", "secret": SECRET, "kinds": [1]},
        {"url": "https://example.com/x", "secret": SECRET, "extra": 1},
        [],
        "text",
        {"url": "", "secret": SECRET},
    ],
)
def test_issue19_bad_input_is_422_never_500(client, allow_private, body):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    r = client.post(hooks_url(cid), json=body, headers=gm)
    assert r.status_code == 422, (body, r.status_code, r.text)
    assert listed(client, gm, cid) == []


@pytest.mark.parametrize("path", ["/0", "/-1", "/abc", "/99999999999"])
def test_issue19_bad_hook_ids_are_refused_cleanly(client, path):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    assert client.delete(hooks_url(cid) + path, headers=gm).status_code in (404, 422)


def test_issue19_a_campaign_has_ten_hooks_at_most_and_a_finished_one_takes_none(client, engine, allow_private, receiver):
    gm, cid, _players, _places = campaign_with_warbands(client, 2)
    for i in range(10):
        add_hook(client, gm, cid, f"{receiver.url}/{i}", kinds=["rounds", "rounds"])
    r = client.post(hooks_url(cid), json={"url": receiver.url, "secret": SECRET}, headers=gm)
    assert r.status_code == 409 and error_code(r) == "webhook_too_many"
    assert listed(client, gm, cid)[0]["kinds"] == ["rounds"]
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=gm).status_code == 200
    hook_id = listed(client, gm, cid)[0]["id"]
    assert client.delete(f"{hooks_url(cid)}/{hook_id}", headers=gm).status_code == 204
    r = client.post(hooks_url(cid), json={"url": receiver.url, "secret": SECRET}, headers=gm)
    assert r.status_code == 409 and error_code(r) == "campaign_read_only"
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(Webhook)).one() == 9

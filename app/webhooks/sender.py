"""Sending the outbox (issue 19): after commit, never inside a request's transaction. A job in
the server polls for deliveries that are due and is woken at once when this process commits
new ones; `hideout send-webhooks` does one round from cron.

Each hook gets its news in order: only its oldest undelivered entry is tried, and a failure
holds the rest back until it is sent or given up (a channel reads like the chronicle).
Several workers may run the job: a delivery is claimed by one conditional UPDATE, so only
one sends it; one that dies while sending leaves it to be tried again after its lease."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ssl
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
import structlog
from sqlalchemy import delete, event, func, update
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.campaigns.terms import campaign_words
from app.chronicle.models import ChronicleEntry
from app.chronicle.texts import entry_text
from app.core.db import unit_of_work, utcnow
from app.core.errors import DomainError
from app.core.i18n import DEFAULT_LOCALE, translations
from app.core.settings import Settings
from app.webhooks import rules, service
from app.webhooks.models import Webhook, WebhookDelivery

log = structlog.get_logger("hideout.webhooks")
USER_AGENT = "Hideout-Webhooks/1"
KEEP_DONE = timedelta(days=14)
# Sends at once in all, and for one campaign; how often the sender looks for news due while
# its sends are under way.
WORKERS = 8
PER_CAMPAIGN = 2
POLL_SECONDS = 0.5


@functools.cache
def _tls() -> ssl.SSLContext:
    """The trusted certificates, read once a process: reading them for each round of the
    sender (every poll, every wake-up) cost about 30 ms of CPU, most of a round's cost when
    nothing is due (issue 37: a club's small server)."""
    return httpx.create_ssl_context()


# --- waking the sender after commit -------------------------------------------------------------

_waker: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None


def nudge() -> None:
    if _waker is not None:
        loop, woken = _waker
        with contextlib.suppress(RuntimeError):  # the loop is closed (shutdown)
            loop.call_soon_threadsafe(woken.set)


@event.listens_for(Session, "after_commit")
def _after_commit(session) -> None:
    session.info.pop(service.CACHE, None)
    if session.info.pop(service.NUDGE, False):
        nudge()


@event.listens_for(Session, "after_rollback")
def _after_rollback(session) -> None:
    session.info.pop(service.CACHE, None)
    session.info.pop(service.NUDGE, None)


# --- what is sent ------------------------------------------------------------------------------


def body_of(delivery: WebhookDelivery, url: str, campaign: Campaign, locale: str | None) -> bytes:
    """The delivery as its receiver reads it, in the GM's language: Discord's message shape
    for a Discord webhook, the entry as JSON for anything else."""
    gettext = translations(locale or DEFAULT_LOCALE).gettext
    entry = ChronicleEntry(
        campaign_id=delivery.campaign_id,
        round=delivery.round,
        phase=delivery.phase,
        kind=delivery.kind,
        params=delivery.params or {},
    )
    text = entry_text(entry, gettext, campaign_words(campaign, gettext))
    if rules.is_discord(url):
        return rules.encode(rules.discord_body(text))
    return rules.encode(
        rules.plain_body(
            campaign_id=delivery.campaign_id,
            kind=delivery.kind,
            category=delivery.category,
            round_=delivery.round,
            phase=delivery.phase,
            text=text,
            params=delivery.params or {},
            created_at=delivery.entry_at,
        )
    )


@dataclass
class Claimed:
    delivery: WebhookDelivery
    url: str
    secret: str
    body: bytes


@dataclass
class Outcome:
    status: int | None
    error: str | None

    @property
    def ok(self) -> bool:
        return rules.succeeded(self.status) and self.error is None


def _post(client: httpx.Client, claimed: Claimed, settings: Settings) -> Outcome:
    try:
        addresses = service.check_address(claimed.url, allow_private=settings.webhook_allow_private)
    except DomainError as exc:
        host = exc.params.get("host", "")
        return Outcome(
            None,
            {
                "webhook_url_private": f"refused: {host} is not a public address",
                "webhook_host_unknown": f"{host} could not be found",
            }.get(exc.code, "refused: not an http(s) address"),
        )
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        **rules.standard_headers(claimed.secret, f"hideout-{claimed.delivery.id}", int(time.time()), claimed.body),
        "X-Hideout-Signature": rules.signature(claimed.secret, claimed.body),
        "X-Hideout-Delivery": str(claimed.delivery.id),
        "X-Hideout-Event": claimed.delivery.kind,
    }
    url, extensions = claimed.url, {}
    if addresses:
        # To the address just checked, not to whatever a second lookup inside httpx says.
        url, headers["Host"] = rules.pinned(claimed.url, addresses[0])
        extensions = {"sni_hostname": rules.split_url(claimed.url)[1]}
    try:
        # Streamed and never read: a receiver's answer is its status alone, however long its body.
        with client.stream("POST", url, content=claimed.body, headers=headers, extensions=extensions) as response:
            status = response.status_code
    except Exception as exc:  # noqa: BLE001 — whatever went wrong is this hook's last error, never the sender's end
        return Outcome(None, f"{type(exc).__name__}: {exc}"[:300])
    if rules.succeeded(status):
        return Outcome(status, None)
    return Outcome(status, f"HTTP {status}")


# --- one round ---------------------------------------------------------------------------------


def _due(engine, now: datetime, limit: int) -> list[int]:
    return [delivery_id for delivery_id, _campaign, _hook in _heads(engine, now, limit)]


def _heads(engine, now: datetime, limit: int) -> list[tuple[int, int, int]]:
    """The oldest undelivered entry of each hook, where it is due: (id, campaign id, hook id)."""
    heads = select(func.min(WebhookDelivery.id)).where(WebhookDelivery.status == "pending").group_by(WebhookDelivery.webhook_id)
    with Session(engine) as session:
        return [
            tuple(r)
            for r in session.exec(
                select(WebhookDelivery.id, WebhookDelivery.campaign_id, WebhookDelivery.webhook_id)
                .where(WebhookDelivery.id.in_(heads), WebhookDelivery.next_at <= now)
                .order_by(WebhookDelivery.id)
                .limit(limit)
            ).all()
        ]


def _claim(engine, settings: Settings, delivery_id: int, now: datetime) -> Claimed | None:
    """One delivery, held for this sender until well after its send would have timed out
    (each phase of a request — connect, write, read — may take the whole timeout); None when
    another sender took it first."""
    lease = now + timedelta(seconds=settings.webhook_timeout_seconds * 4 + 30)
    with unit_of_work(engine, write=True) as session:
        row = session.exec(
            select(WebhookDelivery, Webhook.url, Webhook.secret, Campaign, User.locale)
            .join(Webhook, Webhook.id == WebhookDelivery.webhook_id)
            .join(Campaign, Campaign.id == WebhookDelivery.campaign_id)
            .join(User, User.id == Campaign.gm_user_id)
            .where(WebhookDelivery.id == delivery_id)
        ).first()
        if row is None:
            return None
        delivery, url, secret, campaign, locale = row
        taken = session.execute(
            update(WebhookDelivery)
            .where(
                WebhookDelivery.id == delivery.id,
                WebhookDelivery.campaign_id == delivery.campaign_id,
                WebhookDelivery.status == "pending",
                WebhookDelivery.next_at <= now,
            )
            .values(next_at=lease)
            .execution_options(synchronize_session=False)
        )
        if taken.rowcount != 1:
            return None
        return Claimed(delivery, url, secret, body_of(delivery, url, campaign, locale))


def _record(engine, settings: Settings, now: datetime, results: list[tuple[Claimed, Outcome]]) -> None:
    with unit_of_work(engine, write=True) as session:
        for claimed, outcome in results:
            d = claimed.delivery
            attempts = d.attempts + 1
            if outcome.ok:
                values = {"status": "sent", "sent_at": now, "attempts": attempts}
            elif attempts >= settings.webhook_max_attempts:
                values = {"status": "failed", "attempts": attempts}
            else:
                values = {"attempts": attempts, "next_at": now + rules.retry_delay(attempts, settings.webhook_retry_seconds)}
            # campaign_id in each WHERE: the change is placed in its campaign (page ETags), not everywhere.
            session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id == d.id, WebhookDelivery.campaign_id == d.campaign_id)
                .values(**values)
                .execution_options(synchronize_session=False)
            )
            session.execute(
                update(Webhook)
                .where(Webhook.id == d.webhook_id, Webhook.campaign_id == d.campaign_id)
                .values(last_at=now, last_status=outcome.status, last_error=outcome.error)
                .execution_options(synchronize_session=False)
            )
            if not outcome.ok:
                log.info("webhook_failed", webhook_id=d.webhook_id, delivery_id=d.id, attempts=attempts, error=outcome.error)
        # Done deliveries are kept a while (the page counts those given up), then dropped.
        for campaign_id in sorted({c.delivery.campaign_id for c, _outcome in results}):
            session.execute(
                delete(WebhookDelivery)
                .where(
                    WebhookDelivery.campaign_id == campaign_id,
                    WebhookDelivery.status != "pending",
                    WebhookDelivery.entry_at < now - KEEP_DONE,
                )
                .execution_options(synchronize_session=False)
            )


def _send_one(engine, settings: Settings, client: httpx.Client, claimed: Claimed, now: datetime | None) -> None:
    outcome = _post(client, claimed, settings)
    _record(engine, settings, now or utcnow(), [(claimed, outcome)])


class _Sends:
    """The sends under way: which hook and campaign each is for."""

    def __init__(self, workers: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="webhook")
        self.running: dict[Future, tuple[int, int]] = {}

    def busy(self) -> tuple[set[int], Counter]:
        return {h for _c, h in self.running.values()}, Counter(c for c, _h in self.running.values())

    def settle(self, timeout: float) -> None:
        done, _ = wait(list(self.running), timeout=timeout, return_when=FIRST_COMPLETED)
        for future in done:
            self.running.pop(future)
            if future.exception() is not None:  # its delivery is tried again after its lease
                log.warning("webhook_send_failed", error=str(future.exception()))


def deliver_due(
    engine, settings: Settings, *, now: datetime | None = None, client: httpx.Client | None = None, limit: int = 500
) -> int:
    """Sends what is due, each hook's news in order, until nothing is due or `limit`
    deliveries were tried; returns how many were tried. Sends run side by side, at most
    PER_CAMPAIGN at once for one campaign and taken round-robin between campaigns, and
    what falls due meanwhile is looked for every POLL_SECONDS: one campaign's slow
    receivers hold up nobody else's news. `now`: the tests' clock."""
    own = client is None
    client = client or httpx.Client(
        verify=_tls(),
        timeout=settings.webhook_timeout_seconds,
        follow_redirects=False,
        limits=httpx.Limits(max_connections=WORKERS),
    )
    sends, tried, last_campaign = _Sends(WORKERS), 0, None
    try:
        while True:
            busy_hooks, in_flight = sends.busy()
            free = min(WORKERS - len(sends.running), limit - tried)
            picked = (
                rules.fair_pick(
                    _heads(engine, now or utcnow(), 1000),
                    busy_hooks=busy_hooks,
                    in_flight=dict(in_flight),
                    per_campaign=PER_CAMPAIGN,
                    free=free,
                    last_campaign=last_campaign,
                )
                if free > 0
                else []
            )
            for delivery_id in picked:
                claimed = _claim(engine, settings, delivery_id, now or utcnow())
                if claimed is None:
                    continue  # another sender has it
                future = sends.pool.submit(_send_one, engine, settings, client, claimed, now)
                sends.running[future] = (claimed.delivery.campaign_id, claimed.delivery.webhook_id)
                last_campaign, tried = claimed.delivery.campaign_id, tried + 1
            if not sends.running:
                break
            sends.settle(POLL_SECONDS)
    finally:
        sends.pool.shutdown(wait=True)
        if own:
            client.close()
    return tried


# --- the job in the server ---------------------------------------------------------------------


async def run(app) -> None:
    global _waker
    settings = app.state.settings
    woken = asyncio.Event()
    _waker = (asyncio.get_running_loop(), woken)
    try:
        while True:
            try:
                await asyncio.to_thread(deliver_due, app.state.engine, settings)
            except Exception as exc:  # noqa: BLE001 — the database went away: try again at the next poll
                log.warning("webhook_sender_failed", error=str(exc))
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a cancel that
            # arrives as the event is set, and the job then never stopped (a suite hung on it).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(settings.webhook_poll_seconds):
                    await woken.wait()
            woken.clear()
    finally:
        _waker = None

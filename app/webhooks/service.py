"""Webhooks' use cases (issue 19): the GM lists, adds and removes a campaign's hooks, and
every new chronicle entry becomes a delivery for each hook that wants its category.

Only the chronicle feeds them: it is the campaign's public news (R11.1), which the secrecy
matrix proves holds no secret, so orders and alliances before Battles, transfers and letters
never reach a hook — they never reach the chronicle."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, func, insert
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.chronicle.models import ChronicleEntry
from app.core.db import utcnow
from app.core.errors import DomainError
from app.visibility import require_gm, require_writable, viewer_for
from app.webhooks import rules
from app.webhooks.models import Webhook, WebhookDelivery

CACHE = "webhooks_of"  # session.info: campaign id -> [(hook id, kinds)], for the entries of one transaction
NUDGE = "webhooks_nudge"  # session.info: deliveries were written; wake the sender after commit


@dataclass
class HookView:
    id: int
    url: str
    kinds: list[str]
    discord: bool
    created_at: datetime
    last_at: datetime | None
    last_status: int | None
    last_error: str | None
    pending: int
    failed: int

    @property
    def ok(self) -> bool | None:
        """None: never tried yet."""
        return None if self.last_at is None else rules.succeeded(self.last_status) and not self.last_error


# --- addresses ---------------------------------------------------------------------------------


# Adding a hook looks its host up inside the request's write transaction (on SQLite, the one
# writer's lock): a resolver that did not answer held every other write of the club for as long
# as its own timeouts allowed (five seconds a try, several tries). A lookup gets this long.
LOOKUP_SECONDS = 2.0


def _looked_up(host: str, port: int, resolve) -> list:
    """`resolve(host, port)`'s answer (getaddrinfo's), given at most LOOKUP_SECONDS: no answer by
    then is no answer (OSError). A lookup left behind ends in its own thread, unheard."""
    answer: list = []

    def look() -> None:
        try:
            answer.append(resolve(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as exc:
            answer.append(exc)

    thread = threading.Thread(target=look, name="webhook-lookup", daemon=True)
    thread.start()
    thread.join(LOOKUP_SECONDS)
    if not answer:
        raise OSError(f"no answer for {host} within {LOOKUP_SECONDS:g} s")
    if isinstance(answer[0], BaseException):
        raise answer[0]
    return answer[0]


def check_address(url: str, *, allow_private: bool, resolve=None) -> list[str]:
    """Refuses what a hook may not reach: another scheme, and unless the install allows it
    (home setups, tests), any host that is or resolves to a private address. Asked again
    before each send, since a name can point elsewhere by then; returns the public addresses
    found, for the send to go to one of them and not to what a second lookup might say
    (none when private ones are allowed: then nothing needs pinning). A host whose lookup
    takes longer than LOOKUP_SECONDS is unknown."""
    try:
        _scheme, host, port = rules.split_url(url)
    except ValueError:
        raise DomainError("webhook_url_invalid") from None
    if allow_private:
        return []
    literal = rules.literal_address(host)
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = [info[4][0] for info in _looked_up(host, port, resolve or socket.getaddrinfo)]
        except (OSError, UnicodeError):
            raise DomainError("webhook_host_unknown", host=host) from None
    if not addresses:
        raise DomainError("webhook_host_unknown", host=host)
    if any(rules.is_private(a) for a in addresses):
        raise DomainError("webhook_url_private", host=host)
    return addresses


# --- the GM's hooks ----------------------------------------------------------------------------


def _gm_viewer(session: Session, actor: User, campaign_id: int, *, lock: bool = False):
    viewer = viewer_for(session, actor, campaign_id, lock=lock)
    require_gm(viewer)
    return viewer


# Built once: the rules page shows the GM the campaign's hooks on every visit (issue 37).
_HOOKS = select(Webhook).where(Webhook.campaign_id == bindparam("campaign_id")).order_by(col(Webhook.id))


def views(session: Session, campaign_id: int) -> list[HookView]:
    hooks = list(session.exec(_HOOKS, params={"campaign_id": campaign_id}).all())
    if not hooks:
        return []
    counts = {
        (hid, status): n
        for hid, status, n in session.exec(
            select(WebhookDelivery.webhook_id, WebhookDelivery.status, func.count())
            .where(WebhookDelivery.campaign_id == campaign_id, WebhookDelivery.status.in_(("pending", "failed")))
            .group_by(WebhookDelivery.webhook_id, WebhookDelivery.status)
        ).all()
    }
    return [
        HookView(
            id=h.id,
            url=h.url,
            kinds=list(h.kinds),
            discord=rules.is_discord(h.url),
            created_at=h.created_at,
            last_at=h.last_at,
            last_status=h.last_status,
            last_error=h.last_error,
            pending=counts.get((h.id, "pending"), 0),
            failed=counts.get((h.id, "failed"), 0),
        )
        for h in hooks
    ]


def hooks(session: Session, *, actor: User, campaign_id: int) -> list[HookView]:
    _gm_viewer(session, actor, campaign_id)
    return views(session, campaign_id)


def add(
    session: Session,
    *,
    actor: User,
    campaign_id: int,
    url: str,
    secret: str | None,
    kinds: list[str],
    allow_private: bool,
    resolve=None,
) -> HookView:
    viewer = _gm_viewer(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    count = session.exec(select(func.count()).select_from(Webhook).where(Webhook.campaign_id == campaign_id)).one()
    if count >= rules.MAX_HOOKS:
        raise DomainError("webhook_too_many", max=rules.MAX_HOOKS)
    check_address(url, allow_private=allow_private, resolve=resolve)
    # Without a secret (a Discord channel checks none) deliveries are still signed, with one made up here.
    hook = Webhook(
        campaign_id=campaign_id,
        url=url,
        secret=secret or rules.new_secret(),
        kinds=[k for k in rules.CATEGORIES if k in set(kinds)],
    )
    session.add(hook)
    session.flush()
    session.info.pop(CACHE, None)
    return HookView(
        id=hook.id,
        url=hook.url,
        kinds=hook.kinds,
        discord=rules.is_discord(hook.url),
        created_at=hook.created_at,
        last_at=None,
        last_status=None,
        last_error=None,
        pending=0,
        failed=0,
    )


def remove(session: Session, *, actor: User, campaign_id: int, hook_id: int) -> Webhook:
    """Its undelivered news goes with it. Allowed in a finished campaign too: a hook is the
    GM's plumbing, not part of the campaign's story."""
    _gm_viewer(session, actor, campaign_id, lock=True)
    hook = session.get(Webhook, hook_id)
    if hook is None or hook.campaign_id != campaign_id:
        raise DomainError("not_found")
    session.delete(hook)
    session.flush()
    session.info.pop(CACHE, None)
    return hook


# --- the outbox --------------------------------------------------------------------------------


# Built once (issue 37: every chronicle entry written asked it, built anew).
_HOOK_KINDS = select(Webhook.id, Webhook.kinds).where(Webhook.campaign_id == bindparam("campaign_id")).order_by(Webhook.id)


def _hooks_of(session: Session, campaign_id: int) -> list[tuple[int, list[str]]]:
    cache = session.info.setdefault(CACHE, {})
    if campaign_id not in cache:
        rows = session.exec(_HOOK_KINDS, params={"campaign_id": campaign_id}).all()
        cache[campaign_id] = [(hid, list(kinds or [])) for hid, kinds in rows]
    return cache[campaign_id]


def on_entries(session: Session, campaign: Campaign, entries: list[ChronicleEntry]) -> None:
    """The chronicle's listener: in the writer's transaction, so the deliveries commit or
    roll back with the news they carry."""
    # No autoflush: the writer may still be filling in what it added; its flush is its own.
    with session.no_autoflush:
        hooks_ = _hooks_of(session, campaign.id)
    if not hooks_ or not entries:
        return
    now = utcnow()
    rows = []
    for entry in entries:
        category = rules.category_of(entry.kind)
        for hook_id, kinds in hooks_:
            if rules.wanted(kinds, category):
                rows.append(
                    {
                        "webhook_id": hook_id,
                        "campaign_id": campaign.id,
                        "kind": entry.kind,
                        "category": category,
                        "round": entry.round,
                        "phase": entry.phase,
                        "params": dict(entry.params or {}),
                        "entry_at": entry.created_at or now,
                        "status": "pending",
                        "attempts": 0,
                        "next_at": now,
                    }
                )
    if rows:
        with session.no_autoflush:
            session.execute(insert(WebhookDelivery), rows)
        session.info[NUDGE] = True

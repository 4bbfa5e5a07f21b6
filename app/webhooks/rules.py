"""Webhooks without a session or a clock: which chronicle entries belong to which category,
what a delivery's body is, how it is signed, when a failed one is tried again, and which
addresses are private."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
import secrets
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from app.core.errors import N_

MAX_HOOKS = 10
DISCORD_HOSTS = {"discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"}
# Discord refuses a message longer than this.
DISCORD_LIMIT = 2000

# What the GM picks from; a hook with none picked hears every public entry.
CATEGORY_NAMES = {
    "phase": N_("Phase changes"),
    "battles": N_("Battles announced"),
    "results": N_("Battle results"),
    "captures": N_("Captures"),
    "guilds": N_("%(Guilds)s"),
    "rounds": N_("Round ends"),
    "deadlines": N_("Deadlines"),
    "events": N_("Events"),
    "players": N_("Players joining"),
    "news": N_("Other news"),
}
CATEGORIES = tuple(CATEGORY_NAMES)
KIND_CATEGORY = {
    "phase_changed": "phase",
    "campaign_started": "phase",
    "campaign_finished": "phase",
    "hideouts_opened": "phase",
    "battle_announced": "battles",
    "battle_announced_event": "battles",
    "alliance_revealed": "battles",
    "clock_out_of_time": "battles",
    "clock_ended": "battles",
    "battle_won": "results",
    "battle_drawn": "results",
    "warband_scattered": "results",
    "place_taken": "captures",
    "place_taken_from": "captures",
    "round_no_captures": "captures",
    "guild_founded": "guilds",
    "guild_joined": "guilds",
    "guild_upgraded": "guilds",
    "guild_left": "guilds",
    "guild_dissolved": "guilds",
    "round_ended": "rounds",
    "event_added": "events",
    "event_ended": "events",
    "campaign_created": "players",
    "player_joined": "players",
    "hideout_claimed": "players",
}


def category_of(kind: str) -> str:
    """Deadline entries are written by the season's scheduler under kinds of its own."""
    if kind in KIND_CATEGORY:
        return KIND_CATEGORY[kind]
    return "deadlines" if kind.startswith("deadline") else "news"


def wanted(kinds: list[str], category: str) -> bool:
    return not kinds or category in kinds


# --- addresses ---------------------------------------------------------------------------------


def split_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an http(s) address; ValueError for anything else."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(url)
    port = parts.port or (443 if scheme == "https" else 80)  # .port raises ValueError when out of range
    return scheme, parts.hostname.lower(), port


def is_discord(url: str) -> bool:
    try:
        _scheme, host, _port = split_url(url)
    except ValueError:
        return False
    return host in DISCORD_HOSTS and urlsplit(url).path.startswith("/api/webhooks/")


def literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


# IPv6 forms that stand for an IPv4 address (its last 32 bits) and reach it through a
# translator or the dual stack: IPv4-mapped and SIIT's IPv4-translated, NAT64's well-known and
# local-use prefixes (RFC 6052/8215), and the deprecated IPv4-compatible ::/96. Such an address
# is as public as its IPv4 part (Python calls these ranges "reserved" as a whole, which would
# refuse every NAT64 receiver of an IPv6-only host).
TRANSLATED = tuple(
    ipaddress.ip_network(n) for n in ("::ffff:0:0/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "::/96")
)


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address that `ip` carries: translated forms, 6to4's, Teredo's server and client."""
    found = []
    if any(ip in net for net in TRANSLATED):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    return found


def _not_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (
        not ip.is_global
        or ip.is_private
        or ip.is_reserved
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_unspecified
    )


def is_private(address: str) -> bool:
    """Anything not on the public internet: private, loopback, link-local, shared (CGNAT),
    reserved, multicast, unspecified — also when written as IPv4 inside IPv6 in any of its
    forms (mapped, compatible, NAT64, SIIT, 6to4, Teredo): then its IPv4 part is judged too."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        inner = embedded_ipv4(ip)
        if any(_not_public(v4) for v4 in inner):
            return True
        if inner and any(ip in net for net in TRANSLATED) and int(ip) & 0xFFFFFFFF:
            return False  # a translated form: its IPv4 part, public, is what it reaches
    return _not_public(ip)


def pinned(url: str, address: str) -> tuple[str, str]:
    """(the address with its host replaced by `address`, the Host header it needs): the send
    goes to the address that was checked. TLS still checks the certificate against the name."""
    parts = urlsplit(url)
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    netloc = f"{host}:{parts.port}" if parts.port else host
    host_header = split_url(url)[1] + (f":{parts.port}" if parts.port else "")
    return parts._replace(netloc=netloc).geturl(), host_header


# --- deliveries --------------------------------------------------------------------------------


def discord_body(text: str) -> dict:
    """No mentions: a warband or player called "@everyone" must not ping a whole server."""
    if len(text) > DISCORD_LIMIT:
        text = text[: DISCORD_LIMIT - 1] + "…"
    return {"content": text, "allowed_mentions": {"parse": []}}


def plain_body(
    *, campaign_id: int, kind: str, category: str, round_: int, phase: str | None, text: str, params: dict, created_at: datetime
) -> dict:
    return {
        "campaign_id": campaign_id,
        "kind": kind,
        "category": category,
        "round": round_,
        "phase": phase,
        "text": text,
        "params": params,
        "created_at": created_at.isoformat(),
    }


def encode(body: dict) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def signature(secret: str, body: bytes) -> str:
    """The old `X-Hideout-Signature` (the body alone: kept for receivers written for it)."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


SECRET_PREFIX = "whsec_"


def signing_key(secret: str) -> bytes:
    """The Standard Webhooks key of a hook's secret: a `whsec_<base64>` secret is its base64
    part decoded; any other secret (every hook added before) is its UTF-8 bytes, so that its
    receiver verifies with `whsec_` + base64 of the secret it chose (standard_secret)."""
    if secret.startswith(SECRET_PREFIX):
        try:
            return base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
        except (binascii.Error, ValueError):
            pass  # not base64 after all: a secret like any other
    return secret.encode()


def standard_secret(secret: str) -> str:
    """The secret as a Standard Webhooks library takes it."""
    return SECRET_PREFIX + base64.b64encode(signing_key(secret)).decode()


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def standard_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """Standard Webhooks (standardwebhooks.com): `webhook-signature: v1,<base64 HMAC-SHA256 of
    "id.timestamp.body">`. The timestamp is signed, so a receiver that refuses old ones (five
    minutes is the usual tolerance) cannot be fed a delivery replayed later; the id lets it
    drop one it has already had (a retry keeps its id)."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    mac = base64.b64encode(hmac.new(signing_key(secret), signed, hashlib.sha256).digest()).decode()
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp), "webhook-signature": f"v1,{mac}"}


def fair_pick(
    due: list[tuple[int, int, int]],
    *,
    busy_hooks: set[int],
    in_flight: dict[int, int],
    per_campaign: int,
    free: int,
    last_campaign: int | None,
) -> list[int]:
    """Which due deliveries — (delivery id, campaign id, hook id), oldest first — start now:
    one hook at a time each (its news in order), at most `per_campaign` sends at once for a
    campaign, `free` in all, taken round-robin between campaigns from the one after
    `last_campaign`, so that one campaign's slow hooks never hold up another's."""
    queues: dict[int, list[int]] = {}
    for delivery_id, campaign_id, hook_id in due:
        if hook_id not in busy_hooks:
            queues.setdefault(campaign_id, []).append(delivery_id)
            busy_hooks = busy_hooks | {hook_id}
    order = sorted(queues)
    if last_campaign is not None:
        order = [c for c in order if c > last_campaign] + [c for c in order if c <= last_campaign]
    room = {c: max(0, per_campaign - in_flight.get(c, 0)) for c in order}
    picked: list[int] = []
    while len(picked) < free and any(room[c] and queues[c] for c in order):
        for c in order:
            if len(picked) < free and room[c] and queues[c]:
                picked.append(queues[c].pop(0))
                room[c] -= 1
    return picked


def retry_delay(failed_attempts: int, first_seconds: float) -> timedelta:
    """Doubling after each failure: 1, 2, 4, 8 … times the first wait."""
    return timedelta(seconds=first_seconds * 2 ** max(0, failed_attempts - 1))


def succeeded(status: int | None) -> bool:
    return status is not None and 200 <= status < 300

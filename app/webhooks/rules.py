"""Webhooks without a session or a clock: which chronicle entries belong to which category,
what a delivery's body is, how it is signed, when a failed one is tried again, and which
addresses are private."""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
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
    "phase_changed": "phase", "campaign_started": "phase", "campaign_finished": "phase", "hideouts_opened": "phase",
    "battle_announced": "battles", "battle_announced_event": "battles", "alliance_revealed": "battles",
    "clock_out_of_time": "battles", "clock_ended": "battles",
    "battle_won": "results", "battle_drawn": "results", "warband_scattered": "results",
    "place_taken": "captures", "place_taken_from": "captures", "round_no_captures": "captures",
    "guild_founded": "guilds", "guild_joined": "guilds", "guild_upgraded": "guilds", "guild_left": "guilds",
    "guild_dissolved": "guilds",
    "round_ended": "rounds",
    "event_added": "events", "event_ended": "events",
    "campaign_created": "players", "player_joined": "players", "hideout_claimed": "players",
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


def is_private(address: str) -> bool:
    """Anything not on the public internet: private, loopback, link-local, shared (CGNAT),
    reserved, multicast, unspecified — also when written as IPv4 inside IPv6."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is not None:
            ip = inner
    return not ip.is_global or ip.is_multicast


def pinned(url: str, address: str) -> tuple[str, str]:
    """(the address with its host replaced by `address`, the Host header it needs): the send
    goes to the address that was checked. TLS still checks the certificate against the name."""
    parts = urlsplit(url)
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    netloc = f"{host}:{parts.port}" if parts.port else host
    host_header = parts.hostname + (f":{parts.port}" if parts.port else "")
    return parts._replace(netloc=netloc).geturl(), host_header


# --- deliveries --------------------------------------------------------------------------------


def discord_body(text: str) -> dict:
    """No mentions: a warband or player called "@everyone" must not ping a whole server."""
    if len(text) > DISCORD_LIMIT:
        text = text[: DISCORD_LIMIT - 1] + "…"
    return {"content": text, "allowed_mentions": {"parse": []}}


def plain_body(*, campaign_id: int, kind: str, category: str, round_: int, phase: str | None, text: str, params: dict,
               created_at: datetime) -> dict:
    return {"campaign_id": campaign_id, "kind": kind, "category": category, "round": round_, "phase": phase, "text": text,
            "params": params, "created_at": created_at.isoformat()}


def encode(body: dict) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def retry_delay(failed_attempts: int, first_seconds: float) -> timedelta:
    """Doubling after each failure: 1, 2, 4, 8 … times the first wait."""
    return timedelta(seconds=first_seconds * 2 ** max(0, failed_attempts - 1))


def succeeded(status: int | None) -> bool:
    return status is not None and 200 <= status < 300

"""Passwords, opaque tokens stored as HMACs, and CSRF checks."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from functools import lru_cache
from urllib.parse import urlsplit

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from app.core.settings import get_settings

SESSION_COOKIE = "hideout_session"
CSRF_COOKIE = "hideout_csrf"
LANG_COOKIE = "hideout_lang"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"


@lru_cache
def _hasher() -> PasswordHash:
    if get_settings().fast_hashing:
        return PasswordHash((Argon2Hasher(time_cost=1, memory_cost=8, parallelism=1),))
    return PasswordHash((Argon2Hasher(),))


@lru_cache
def _dummy_hash() -> str:
    return _hasher().hash(secrets.token_urlsafe(16))


def hash_password(password: str) -> str:
    return _hasher().hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    # An unknown nickname still pays for one verification, so timing does not tell
    # which nicknames exist.
    if password_hash is None:
        _hasher().verify(password, _dummy_hash())
        return False
    return _hasher().verify(password, password_hash)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_digest(secret_key: str, token: str) -> str:
    return hmac.new(secret_key.encode(), token.encode(), hashlib.sha256).hexdigest()


def csrf_token_for(secret_key: str, csrf_cookie: str) -> str:
    return token_digest(secret_key, "csrf:" + csrf_cookie)


def csrf_token_valid(secret_key: str, csrf_cookie: str | None, submitted: str | None) -> bool:
    if not csrf_cookie or not submitted:
        return False
    return hmac.compare_digest(csrf_token_for(secret_key, csrf_cookie), submitted)


def same_origin(headers, host: str) -> bool:
    """Fetch metadata first, then Origin; requests without either (old clients) pass
    on the strength of the form token alone."""
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == host


def cookie_of(headers: Mapping[str, str], name: str) -> str | None:
    """One cookie of a request's headers, read by middleware that runs before any Request."""
    for part in headers.get("cookie", "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None

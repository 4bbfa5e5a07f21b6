"""Tokens are stored as HMACs; CSRF tokens bind to the browser's cookie."""

from app.core import security


def test_tokens_are_random_and_stored_as_digests():
    a, b = security.new_token(), security.new_token()
    assert a != b and len(a) >= 40
    digest = security.token_digest("k" * 32, a)
    assert digest != a and len(digest) == 64
    assert security.token_digest("k" * 32, a) == digest
    assert security.token_digest("x" * 32, a) != digest


def test_csrf_token_matches_only_its_cookie():
    token = security.csrf_token_for("k" * 32, "cookie-1")
    assert security.csrf_token_valid("k" * 32, "cookie-1", token)
    assert not security.csrf_token_valid("k" * 32, "cookie-2", token)
    assert not security.csrf_token_valid("k" * 32, None, token)
    assert not security.csrf_token_valid("k" * 32, "cookie-1", None)


def test_same_origin_checks_fetch_metadata_then_origin():
    assert security.same_origin({"sec-fetch-site": "same-origin"}, "h")
    assert not security.same_origin({"sec-fetch-site": "cross-site", "origin": "http://h"}, "h")
    assert security.same_origin({"origin": "http://h:8000"}, "h:8000")
    assert not security.same_origin({"origin": "http://evil.example"}, "h:8000")
    assert not security.same_origin({"origin": "null"}, "h")
    assert security.same_origin({}, "h")


def test_passwords_hash_and_verify_and_unknown_users_pay_the_same_cost():
    h = security.hash_password("secret password")
    assert security.verify_password("secret password", h)
    assert not security.verify_password("wrong password", h)
    assert not security.verify_password("anything", None)

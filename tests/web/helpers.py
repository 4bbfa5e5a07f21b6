"""Drive the pages as a browser would: fetch the form's CSRF token, then post."""
from __future__ import annotations

import re

from tests.helpers import PASSWORD

TOKEN = re.compile(r'name="csrf_token" value="([0-9a-f]+)"')


def csrf(client, path: str = "/login") -> str:
    return TOKEN.search(client.get(path).text).group(1)


def post(client, path: str, data: dict | None = None, token_from: str = "/", **kwargs):
    body = {"csrf_token": csrf(client, token_from), **(data or {})}
    return client.post(path, data=body, follow_redirects=False, **kwargs)


def login(client, nickname: str, password: str = PASSWORD):
    r = post(client, "/login", {"nickname": nickname, "password": password}, token_from="/login")
    assert r.status_code == 303, r.text
    return r


def register(client, nickname: str, password: str = PASSWORD):
    r = post(client, "/register", {"nickname": nickname, "password": password}, token_from="/register")
    assert r.status_code == 303, r.text
    return r

"""Users and their Bearer tokens, as an integrator gets them."""

from __future__ import annotations

PASSWORD = "correct horse battery"


def register(client, nickname: str, password: str = PASSWORD, locale: str | None = None) -> dict:
    body = {"nickname": nickname, "password": password}
    if locale:
        body["locale"] = locale
    r = client.post("/api/v1/users", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def token_headers(client, nickname: str, password: str = PASSWORD) -> dict:
    r = client.post("/api/v1/auth/tokens", json={"nickname": nickname, "password": password})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def user(client, nickname: str, locale: str | None = None) -> dict:
    register(client, nickname, locale=locale)
    return token_headers(client, nickname)

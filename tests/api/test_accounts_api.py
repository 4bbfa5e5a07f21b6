"""Accounts over the API: registration, tokens, throttled logins, errors (R11.3, R11.5)."""

from sqlmodel import Session, func, select

from app.accounts.models import ApiToken, User
from tests.builders.accounts import PASSWORD, register, token_headers, user
from tests.builders.responses import error_code


def test_register_and_me(client):
    assert register(client, "Anna")["nickname"] == "Anna"
    headers = token_headers(client, "anna")  # nicknames are case-insensitive
    me = client.get("/api/v1/me", headers=headers).json()
    assert me["nickname"] == "Anna" and me["campaigns"] == [] and me["invitations"] == []


def test_r11_5_register_refusals_change_nothing(client, engine):
    register(client, "anna")
    cases = [
        ({"nickname": "ANNA", "password": PASSWORD}, 409, "nickname_taken"),
        ({"nickname": "a", "password": PASSWORD}, 422, "nickname_invalid"),
        ({"nickname": "bad name!", "password": PASSWORD}, 422, "nickname_invalid"),
        ({"nickname": "borys", "password": "short"}, 422, "password_too_short"),
        ({"nickname": "borys"}, 422, "validation_error"),
        ({"nickname": 12, "password": None}, 422, "validation_error"),
    ]
    for body, status, code in cases:
        r = client.post("/api/v1/users", json=body)
        assert r.status_code == status, (body, r.text)
        assert error_code(r) == code and r.json()["error"]["message"]
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(User)).one() == 1


def test_r11_5_validation_details_name_every_problem(client):
    r = client.post("/api/v1/users", json={"nickname": 5})
    assert r.status_code == 422
    fields = {d["field"] for d in r.json()["error"]["details"]}
    assert {"nickname", "password"} <= fields


def test_r11_5_malformed_json_is_422_not_500(client):
    r = client.post("/api/v1/users", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and error_code(r) == "validation_error"


def test_r11_3_error_messages_in_the_users_language(client):
    headers = user(client, "polka", locale="pl")
    r = client.post("/api/v1/campaigns/999/phase", json={"phase": "orders"}, headers=headers)
    assert r.status_code == 404
    assert r.json()["error"]["message"] != "Not found, or not visible to you."
    anonymous = client.post("/api/v1/users", json={"nickname": "x"}, headers={"Accept-Language": "pl-PL"})
    assert anonymous.json()["error"]["message"] != "Some fields are not valid."


def test_tokens_are_stored_hashed_and_can_be_revoked(client, engine):
    headers = user(client, "anna")
    raw = headers["Authorization"].split()[1]
    with Session(engine) as s:
        stored = s.exec(select(ApiToken.token_hash)).all()
    assert raw not in stored
    assert client.delete("/api/v1/auth/tokens/current", headers=headers).status_code == 204
    r = client.get("/api/v1/me", headers=headers)
    assert r.status_code == 401 and error_code(r) == "not_logged_in"


def test_unauthenticated_and_bad_tokens_get_401(client):
    assert client.get("/api/v1/me").status_code == 401
    assert client.get("/api/v1/me", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_failed_logins_are_throttled_per_nickname(client, settings):
    register(client, "anna")
    for _ in range(settings.login_max_failures):
        r = client.post("/api/v1/auth/tokens", json={"nickname": "anna", "password": "wrong password"})
        assert r.status_code == 401 and error_code(r) == "login_failed"
    r = client.post("/api/v1/auth/tokens", json={"nickname": "anna", "password": PASSWORD})
    assert r.status_code == 429 and error_code(r) == "login_throttled"
    assert "30 seconds" in r.json()["error"]["message"] and r.headers["Retry-After"] == "30"
    # Another nickname from the same address is not locked out by anna's failures.
    register(client, "borys")
    assert client.post("/api/v1/auth/tokens", json={"nickname": "borys", "password": PASSWORD}).status_code == 201


def test_unknown_nickname_fails_like_a_wrong_password(client):
    r = client.post("/api/v1/auth/tokens", json={"nickname": "nobody", "password": PASSWORD})
    assert r.status_code == 401 and error_code(r) == "login_failed"


def test_me_language_can_be_changed(client):
    headers = user(client, "anna")
    assert client.patch("/api/v1/me", json={"locale": "pl"}, headers=headers).json()["locale"] == "pl"
    r = client.patch("/api/v1/me", json={"locale": "xx"}, headers=headers)
    assert r.status_code == 422 and error_code(r) == "locale_unknown"


def test_api_refuses_cookie_writes_without_csrf(client, make_client):
    register(client, "anna")
    browser = make_client()
    page = browser.get("/login")
    token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    r = browser.post("/login", data={"nickname": "anna", "password": PASSWORD, "csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303
    assert browser.get("/api/v1/me").status_code == 200  # reading with the cookie is fine
    r = browser.post("/api/v1/campaigns", json={"name": "X"})
    assert r.status_code == 403 and error_code(r) == "csrf_failed"
    r = browser.post("/api/v1/campaigns", json={"name": "X"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 201


def test_openapi_describes_the_routes_and_docs_are_served(client):
    spec = client.get("/api/v1/openapi.json").json()
    for path in (
        "/api/v1/users",
        "/api/v1/auth/tokens",
        "/api/v1/me",
        "/api/v1/campaigns/{cid}/phase",
        "/api/v1/campaigns/{cid}/end-round",
        "/api/v1/campaigns/{cid}/chronicle",
        "/api/v1/campaigns/{cid}/places/{pid}",
    ):
        assert path in spec["paths"], path
    # Issue 20: a lost database answers 503 with the error body, and the contract says so.
    answers = spec["paths"]["/api/v1/campaigns/{cid}/phase"]["post"]["responses"]
    assert {"401", "403", "404", "409", "422", "503"} <= set(answers)
    assert "database_unavailable" in answers["503"]["description"]
    assert client.get("/api/docs").status_code == 200

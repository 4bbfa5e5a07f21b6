"""R11.5: failed logins slow down guessing without locking the owner out.

Throttled per address and nickname together (5 free failures) and per address alone (100
free, a club behind one router); every failure over a limit makes the next attempt wait,
30 s doubling to 15 min at most. R11.2: a wait says nothing about whether the nickname exists.
"""

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, func, select

from app.accounts import service
from app.accounts.models import LoginFailure
from tests.builders.accounts import PASSWORD, register
from tests.builders.pages import csrf, shown
from tests.builders.responses import error_code

ATTACKER, OWNER_HOME, CLUB = "203.0.113.9", "198.51.100.7", "192.0.2.44"
WRONG = "not the password"


class Clock:
    def __init__(self):
        self.now = datetime.now(UTC)

    def advance(self, **delta):
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(service, "utcnow", lambda: c.now)
    return c


def attempt(client, nickname: str, password: str, **headers):
    return client.post("/api/v1/auth/tokens", json={"nickname": nickname, "password": password}, headers=headers)


def failures(engine) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(LoginFailure)).one()


def test_r11_5_the_owner_elsewhere_is_not_locked_out_by_an_attackers_failures(client, make_client):
    register(client, "anna")
    attacker, owner = make_client(ATTACKER), make_client(OWNER_HOME)
    codes = [error_code(attempt(attacker, "anna", WRONG)) for _ in range(12)]
    assert codes[:5] == ["login_failed"] * 5 and set(codes[5:]) == {"login_throttled"}
    r = attempt(owner, "anna", PASSWORD)
    assert r.status_code == 201, r.text
    # The attacker's own address still waits, and a wrong password there is not even tried.
    assert attempt(attacker, "anna", PASSWORD).status_code == 429


def test_r11_5_a_club_behind_one_router_is_not_blocked(client, make_client, engine):
    club = make_client(CLUB)
    members = [f"member{i}" for i in range(30)]
    for nickname in members:
        register(client, nickname)
    for i, nickname in enumerate(members):  # everybody mistypes once or twice at the start of the evening
        for _ in range(1 + i % 2):
            assert attempt(club, nickname, WRONG).status_code == 401
    assert failures(engine) == 45
    for nickname in members:
        r = attempt(club, nickname, PASSWORD)
        assert r.status_code == 201, (nickname, r.text)
    assert failures(engine) == 0  # each success forgives that member's failures


def test_r11_5_one_address_trying_many_nicknames_is_slowed_down_after_a_high_limit(client, make_client, settings):
    register(client, "anna")
    sprayer = make_client(ATTACKER)
    for i in range(settings.login_max_failures_per_address):
        assert attempt(sprayer, f"guess{i}", WRONG).status_code == 401
    r = attempt(sprayer, "anna", PASSWORD)
    assert r.status_code == 429 and error_code(r) == "login_throttled"
    assert attempt(make_client(OWNER_HOME), "anna", PASSWORD).status_code == 201


def test_r11_5_repeated_failures_wait_longer_each_time_up_to_the_cap(client, make_client, clock):
    register(client, "anna")
    guesser = make_client(ATTACKER)
    for _ in range(5):
        assert attempt(guesser, "anna", WRONG).status_code == 401
    waits = []
    for _ in range(7):
        r = attempt(guesser, "anna", WRONG)
        assert r.status_code == 429 and error_code(r) == "login_throttled"
        waits.append(int(r.headers["Retry-After"]))
        clock.advance(seconds=waits[-1] - 1)
        assert attempt(guesser, "anna", WRONG).status_code == 429  # one second early
        clock.advance(seconds=1)
        assert attempt(guesser, "anna", WRONG).status_code == 401  # the wait is over: one more guess
    assert waits == [30, 60, 120, 240, 480, 900, 900]
    r = attempt(guesser, "anna", WRONG)
    assert r.json()["error"]["message"] == "Too many failed logins. Try again in 15 minutes."


def test_r11_5_a_right_password_is_refused_while_waiting_and_says_so(client, make_client, clock, engine):
    register(client, "anna")
    browser = make_client(ATTACKER)
    for _ in range(5):
        assert attempt(browser, "anna", WRONG).status_code == 401
    r = attempt(browser, "anna", PASSWORD)
    assert r.status_code == 429 and r.json()["error"]["message"] == "Too many failed logins. Try again in 30 seconds."
    r = attempt(browser, "anna", PASSWORD, **{"Accept-Language": "pl"})
    assert r.json()["error"]["message"] == "Zbyt wiele nieudanych logowań. Spróbuj ponownie za 30 sekund."
    # The login page refuses too, the same way (on the login page its refusal redirects to).
    clock.advance(seconds=10)
    page = shown(
        browser,
        browser.post(
            "/login", data={"nickname": "anna", "password": PASSWORD, "csrf_token": csrf(browser)}, follow_redirects=False
        ),
    )
    assert page.status_code == 429 and "Try again in 20 seconds." in page.text
    clock.advance(seconds=20)
    assert attempt(browser, "anna", PASSWORD).status_code == 201
    assert failures(engine) == 0


def test_r11_2_r11_5_an_unknown_nickname_is_throttled_like_a_real_one(client, make_client):
    register(client, "anna")
    guesser = make_client(ATTACKER)
    for nickname in ("anna", "nobody"):
        replies = [attempt(guesser, nickname, WRONG) for _ in range(6)]
        assert [r.status_code for r in replies] == [401] * 5 + [429]
        assert replies[-1].json()["error"]["message"] == "Too many failed logins. Try again in 30 seconds."


def test_r11_5_failure_rows_older_than_the_window_are_pruned(client, make_client, engine, settings):
    register(client, "anna")
    old = datetime.now(UTC) - timedelta(minutes=settings.login_window_minutes + 1)
    with Session(engine) as s:
        for i in range(40):
            s.add(LoginFailure(nickname_key="anna", address=f"10.0.0.{i}", at=old))
        s.add(LoginFailure(nickname_key="anna", address="10.0.1.1", at=datetime.now(UTC)))
        s.commit()
    assert attempt(make_client(OWNER_HOME), "anna", WRONG).status_code == 401
    assert failures(engine) == 2  # the recent one and the new one
    with Session(engine) as s:
        s.add(LoginFailure(nickname_key="anna", address="10.0.0.1", at=old))
        s.commit()
    assert attempt(make_client(OWNER_HOME), "anna", PASSWORD).status_code == 201  # a success prunes too
    assert failures(engine) == 1

"""Drive the pages as a browser would: fetch the form's CSRF token, then post; log in; see
what a successful form says (post/redirect/get, R11.5)."""

from __future__ import annotations

import html
import re

from tests.builders.accounts import PASSWORD

TOKEN = re.compile(r'name="csrf_token" value="([0-9a-f]+)"')
FLASH = re.compile(r'<div class="flash" id="flash">\s*<p role="status">(.*?)</p>', re.S)


def csrf(client, path: str = "/login") -> str:
    return TOKEN.search(client.get(path).text).group(1)


def shown(client, r):
    """A refused page form answers 303 to the form's page, never an error page at its POST
    address (issue 29, R11.5/R11.6); follow it as a browser does: the GET of that page shows
    the refusal, with the refusal's status. Any other answer is given back as it is."""
    if r.status_code == 303 and "hideout_shown=" in r.headers.get("set-cookie", ""):
        page = client.get(r.headers["location"], follow_redirects=False)
        assert page.request.method == "GET" and page.status_code >= 400, page.status_code
        return page
    return r


def post(client, path: str, data: dict | None = None, token_from: str = "/", **kwargs):
    """Posts a page form; a refusal comes back as the page it redirects to (`shown`)."""
    body = {"csrf_token": csrf(client, token_from), **(data or {})}
    return shown(client, client.post(path, data=body, follow_redirects=False, **kwargs))


def login(client, nickname: str, password: str = PASSWORD):
    r = post(client, "/login", {"nickname": nickname, "password": password}, token_from="/login")
    assert r.status_code == 303, r.text
    return r


def register(client, nickname: str, password: str = PASSWORD):
    r = post(client, "/register", {"nickname": nickname, "password": password}, token_from="/register")
    assert r.status_code == 303, r.text
    return r


def browser(make_client, nickname: str, **cookies):
    """A browser of its own (from the `make_client` fixture), logged in as `nickname`."""
    b = make_client()
    for k, v in cookies.items():
        b.cookies.set(k, v)
    login(b, nickname)
    return b


def bench_player(engine, make_client, nickname: str):
    """A browser logged in as a player `bench.large_campaign` made (given the suite's password,
    which the bench's players do not have)."""
    from sqlmodel import Session, select

    from app.accounts.models import User
    from app.core.security import hash_password

    with Session(engine) as s:
        user = s.exec(select(User).where(User.nickname_key == nickname)).one()
        user.password_hash = hash_password(PASSWORD)
        s.add(user)
        s.commit()
    return browser(make_client, nickname)


def flash_of(page: str) -> str | None:
    found = FLASH.search(page)
    return html.unescape(found.group(1)).strip() if found else None


def prg(browser, path: str, data: dict | None = None, *, says: str, token_from: str = "/", **kwargs) -> str:
    """A successful page form: 303 See Other to a GET page that shows `says` once; the
    next view of it does not. Returns the redirect's target."""
    r = post(browser, path, data or {}, token_from=token_from, **kwargs)
    assert r.status_code == 303, (path, r.status_code, r.text[:600])
    target = r.headers["location"]
    assert target.startswith("/"), target
    first = browser.get(target)
    assert first.status_code == 200, (target, first.status_code)
    assert says in (flash_of(first.text) or ""), (path, flash_of(first.text))
    assert flash_of(browser.get(target).text) is None, "the flash is shown once"
    return target

"""R11.6 one tap acts once, on every page: each form a signed-in viewer can post carries the
one-time key (`once`, the `csrf()` macro of templates/partials/field.html), except the forms
listed by name in `KEYLESS_FORMS` (app/idempotency/middleware.py), which act once by nature.

The walk is the pages of the secrecy matrix (tests/secrecy/matrix.py, the list
tests/web/test_html_valid.py checks with vnu: a new page lands there first), fetched in the three
planted campaigns of tests/secrecy/world.py by the GM, the players, an invited user and an
anonymous visitor; partials (htmx) too. A visitor without a session has no key to carry: their
forms may only be the ones that change no campaign's data."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from sqlalchemy import func, select

from app.core.security import SESSION_COOKIE
from app.idempotency.middleware import FORM_FIELD, KEYLESS_FORMS
from app.idempotency.models import IdempotencyKey
from tests.builders.accounts import user
from tests.builders.pages import csrf, flash_of, login
from tests.secrecy.world import kept
from tests.web.test_html_valid import page_urls

# Whole documents and the partials htmx swaps in: both put forms in front of the viewer.
SURFACES = {"page", "partial", "map", "chronicle", "dashboard", "docs"}
SIGNED_IN = ("gm", "owner", "other", "invited")
# What a visitor without a session may be offered, and why it needs no key.
ANONYMOUS_FORMS = {
    "/login": "a credential: never kept (docs/api.md)",
    "/register": "a credential: never kept",
    "/language": KEYLESS_FORMS["/language"],
    "/digest/confirm": "a signed link from a mail: confirming an address twice confirms it once",
    "/digest/unsubscribe": KEYLESS_FORMS["/digest/unsubscribe"],
}


class Forms(HTMLParser):
    """Every form of a page: its method, its action and the names of its fields."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self._open: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._open = {"method": (a.get("method") or "get").lower(), "action": a.get("action") or "", "fields": {}}
        elif self._open is not None and tag in ("input", "button", "select", "textarea") and a.get("name"):
            self._open["fields"][a["name"]] = a.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form" and self._open is not None:
            self.forms.append(self._open)
            self._open = None


def route_of(action: str, page: str) -> str:
    """The form's address without its query and with its ids as {id}: a form without an
    action posts to its own page."""
    path = urlsplit(action or page).path
    return re.sub(r"/\d+(?=/|$)", "/{id}", path)


def posting_forms(browser, urls: list[str]):
    """(page, route, fields) of every POST form on the HTML pages this browser can open."""
    for url in urls:
        r = browser.get(url)
        assert r.status_code < 500, (url, r.status_code)
        if not r.headers.get("content-type", "").startswith("text/html"):
            continue
        parser = Forms()
        parser.feed(r.text)
        for form in parser.forms:
            if form["method"] == "post":
                yield url, route_of(form["action"], url), form["fields"]


@pytest.mark.load
@pytest.mark.markup
def test_r11_6_every_form_a_signed_in_viewer_can_post_carries_the_one_time_key(client, make_client, engine):
    cast = kept(client, make_client, engine)
    urls = page_urls(cast, SURFACES)
    keyed: set[str] = set()
    keyless: dict[str, str] = {}
    missing: list[tuple[str, str, str]] = []
    for role in SIGNED_IN:
        for url, route, fields in posting_forms(cast.pages[role], urls):
            if FORM_FIELD in fields:
                assert fields[FORM_FIELD].isdigit(), (role, url, route, fields[FORM_FIELD])
                keyed.add(route)
            elif route in KEYLESS_FORMS:
                keyless.setdefault(route, url)
            else:
                missing.append((role, url, route))
    assert not missing, "page forms without the one-time key (R11.6):\n" + "\n".join(map(str, missing))
    # The exceptions are exactly the forms drawn without a key: none is listed in vain.
    assert set(keyless) == set(KEYLESS_FORMS), keyless
    # The walk reached the forms the issue names (a guard against an empty or partial walk).
    for needed in (
        "/campaigns/{id}/shop/models",
        "/campaigns/{id}/warbands/{id}/send",
        "/campaigns/{id}/status",
        "/campaigns/{id}/phase",
        "/campaigns/{id}/events/{id}/end",
        "/campaigns/{id}/battles/{id}/settlements/{id}",
        "/campaigns/{id}/transfers",
    ):
        assert needed in keyed, needed
    assert len(keyed) > 50, sorted(keyed)
    # Without a session there is no key, and no form that changes a campaign.
    offered = {route for _url, route, _fields in posting_forms(cast.pages["anonymous"], urls)}
    assert offered and offered <= set(ANONYMOUS_FORMS), offered - set(ANONYMOUS_FORMS)


def _form_keys(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(IdempotencyKey)).scalar_one()


def test_r11_6_choosing_a_language_twice_is_choosing_it_once(client, make_client, engine):
    """The double tap of a keyless form: the same answer twice, the same state as after one."""
    headers = user(client, "anna")
    browser = make_client()
    login(browser, "anna")
    form = {"csrf_token": csrf(browser, "/account"), "locale": "pl", "next": "/account"}
    kept = _form_keys(engine)
    first = browser.post("/language", data=form, follow_redirects=False)
    again = browser.post("/language", data=form, follow_redirects=False)
    assert first.status_code == again.status_code == 303
    assert first.headers["location"] == again.headers["location"] == "/account"
    assert client.get("/api/v1/me", headers=headers).json()["locale"] == "pl"
    assert flash_of(browser.get("/account").text) == "Zmieniono język na: Polski."
    assert _form_keys(engine) == kept  # nothing kept for it: nothing to replay
    # An unknown language changes nothing, however often it is sent.
    bad = {**form, "locale": "xx"}
    assert browser.post("/language", data=bad, follow_redirects=False).status_code == 303
    assert client.get("/api/v1/me", headers=headers).json()["locale"] == "pl"


def test_r11_6_logging_out_twice_is_logging_out_once(client, make_client, engine):
    """Both taps leave with the session's cookie: the second finds the session ended and
    answers the same redirect; nobody is logged in afterwards."""
    user(client, "anna")
    browser = make_client()
    login(browser, "anna")
    session = browser.cookies.get(SESSION_COOKIE)
    form = {"csrf_token": csrf(browser, "/account"), "next": "/account"}
    first = browser.post("/logout", data=form, follow_redirects=False)
    browser.cookies.set(SESSION_COOKIE, session)  # the second tap left before the first answer
    again = browser.post("/logout", data=form, follow_redirects=False)
    assert first.status_code == again.status_code == 303
    assert first.headers["location"] == again.headers["location"]
    assert again.headers["location"].startswith("/login")
    browser.cookies.set(SESSION_COOKIE, session)
    assert browser.get("/account", follow_redirects=False).status_code in (303, 401)

"""SPEC R11.3, issue 34: the language picker on every page (logged out too) lists every
language Hideout speaks, each named in its own, and saves the choice on the account; the
reader's time zone (Account page) and language say the dates and times of every page."""

from __future__ import annotations

import html
import re
from datetime import datetime

import pytest
from sqlmodel import Session, select

from app.accounts.models import User
from app.chronicle.models import ChronicleEntry
from app.core import formats
from app.core.i18n import DEFAULT_LOCALE, LOCALE_NAMES, LOCALES
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.pages import browser, flash_of, post

LANGUAGES = [code for code in LOCALES if code != DEFAULT_LOCALE]
BUTTON = re.compile(r'<button class="link" type="submit" name="locale" value="(\w+)" lang="(\w+)">([^<]+)</button>')


def _header(page: str) -> str:
    return page.split('<header class="top">', 1)[1].split("</header>", 1)[0]


def _picked(header: str) -> dict[str, str]:
    return {value: html.unescape(name) for value, lang, name in BUTTON.findall(header) if value == lang}


def _plain(text: str) -> str:
    """Babel's narrow and no-break spaces as plain ones."""
    return text.replace("\u202f", " ").replace("\u00a0", " ")


def _account_row(engine, nickname: str) -> User:
    with Session(engine) as s:
        return s.exec(select(User).where(User.nickname == nickname)).one()


@pytest.mark.parametrize("path", ["/login", "/register", "/catalog"])
def test_r11_3_the_picker_lists_every_language_logged_out(make_client, path):
    b = make_client()
    header = _header(b.get(path).text)
    assert '<details class="language-menu">' in header and "<summary>EN" in header
    assert _picked(header) == {code: LOCALE_NAMES[code] for code in LOCALES if code != "en"}


@pytest.mark.parametrize("locale", LANGUAGES)
def test_r11_3_the_picker_in_the_account_menu_saves_the_language_on_the_account(client, make_client, engine, locale):
    user(client, "anna")
    b = browser(make_client, "anna")
    menu = _header(b.get("/").text).split('<details class="account-menu">', 1)[1]
    assert _picked(menu) == {code: LOCALE_NAMES[code] for code in LOCALES if code != "en"}
    r = post(b, "/language", {"locale": locale, "next": "/account"})
    assert r.status_code == 303 and _account_row(engine, "anna").locale == locale
    # Another browser without the cookie: the account's language, not the browser's.
    other = browser(make_client, "anna")
    page = other.get("/account", headers={"Accept-Language": "en-US"}).text
    assert f'<html lang="{locale}">' in page
    assert _picked(_header(page)) == {code: LOCALE_NAMES[code] for code in LOCALES if code != locale}


def test_r11_3_an_unknown_language_changes_nothing(client, make_client, engine):
    user(client, "anna", locale="pl")
    b = browser(make_client, "anna")
    unlisted = [code for code in ("it", "fr", "ru") if code not in LOCALES]  # a catalog not complete yet
    for code in ("xx", "de", "", *unlisted):
        post(b, "/language", {"locale": code, "next": "/account"})
        assert _account_row(engine, "anna").locale == "pl"


def test_r11_3_the_browsers_language_is_negotiated_for_a_stranger(make_client):
    b = make_client()
    polish = b.get("/login", headers={"Accept-Language": "de-CH, pl;q=0.8, en;q=0.5"}).text
    assert '<html lang="pl">' in polish and "<summary>PL" in polish
    assert '<html lang="en">' in b.get("/login", headers={"Accept-Language": "de"}).text


def test_r11_3_the_time_zone_is_saved_on_the_account_and_a_bad_one_changes_nothing(client, make_client, engine):
    user(client, "anna")
    b = browser(make_client, "anna")
    r = post(b, "/account/time-zone", {"time_zone": "Europe/Warsaw"}, token_from="/account")
    assert r.status_code == 303
    assert flash_of(b.get(r.headers["location"]).text) == "Time zone: Europe/Warsaw."
    assert _account_row(engine, "anna").time_zone == "Europe/Warsaw"
    for bad in ("Mars/Olympus", "../../etc/passwd", "x" * 65):
        refused = post(b, "/account/time-zone", {"time_zone": bad}, token_from="/account")
        assert refused.status_code == 422, bad
        assert 'id="e-time_zone"' in refused.text
        assert _account_row(engine, "anna").time_zone == "Europe/Warsaw"
    page = b.get("/account").text
    assert 'value="Europe/Warsaw"' in page
    # The browser's script says the deadline in the account's zone too (static/app.js).
    assert '<html lang="en" data-time-zone="Europe/Warsaw">' in page
    r = post(b, "/account/time-zone", {"time_zone": ""}, token_from="/account")
    assert flash_of(b.get(r.headers["location"]).text) == "Time zone: UTC."
    assert _account_row(engine, "anna").time_zone is None


@pytest.mark.parametrize(("locale", "month"), [("pl", "gru"), ("ru", "дек.")])
def test_r11_3_dates_in_the_readers_language_and_time_zone(locale, month):
    """The filters' functions: a December evening in UTC is the next morning in Tokyo."""
    moment = datetime(2026, 12, 2, 22, 30)
    assert _plain(formats.when(moment, locale, "Asia/Tokyo")) == f"3 {month} 2026{' г.' if locale == 'ru' else ''}, 07:30"
    assert formats.day(moment, locale, "Asia/Tokyo").startswith(f"3 {month}")
    assert _plain(formats.when(moment, "en", None)) == "Dec 2, 2026, 10:30 PM"
    assert _plain(formats.number(12500, locale)) == "12 500" and formats.number(12500, "en") == "12,500"


def test_r11_3_the_chronicle_says_its_times_in_the_readers_language_and_zone(client, make_client, engine):
    _gm, cid, players, _places = running_campaign(client, 2)
    b = browser(make_client, players[0]["nickname"])
    post(b, "/language", {"locale": "pl", "next": "/account"})
    post(b, "/account/time-zone", {"time_zone": "Asia/Tokyo"}, token_from="/account")
    with Session(engine) as s:
        entry = s.exec(select(ChronicleEntry).where(ChronicleEntry.campaign_id == cid)).first()
    page = b.get(f"/campaigns/{cid}/chronicle").text
    said = formats.when(entry.created_at, "pl", "Asia/Tokyo")
    assert said in html.unescape(page) and re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", page) is None
    # Another reader of the same page, in English and UTC.
    other = browser(make_client, players[1]["nickname"])
    assert formats.when(entry.created_at, "en", None) in html.unescape(other.get(f"/campaigns/{cid}/chronicle").text)

"""Installable on a phone (issue 19, item 5) at 390x844 in Chromium, in English and Polish: the
manifest is read without errors, the service worker registers for the whole site, a player
visits the campaign's battle, map and dashboard, and with the network gone a reload shows that
dashboard from the phone's copy under the offline banner, and so do the map and the battle
(a page never visited shows the offline page, which lists the saved ones). After logging out
(online), the dashboard is not there offline any more. Screenshots of the offline dashboard
go to test-artifacts/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from app.core.i18n import translations
from tests.e2e.campaign_setup import BRIDGE, api, login, no_horizontal_overflow, running_campaign, shot

PAGES_CACHE = "hideout-pages-v1"
COPY = "This is the copy of this page saved on this device, as you last saw it."
OFFLINE = "Offline"
NOT_SAVED = "This page is not saved on this device"
SAVED_HERE = "Saved on this device"
OVERVIEW = "Overview"


class Texts:
    """The page's words in its language; a msgid without a Polish translation is noted (the
    page then shows English, which the test follows) and fails the test at the end."""

    def __init__(self, locale: str) -> None:
        self.catalog = translations("pl") if locale.startswith("pl") else None
        self.missing: list[str] = []

    def __call__(self, msgid: str) -> str:
        if self.catalog is None:
            return msgid
        text = self.catalog.gettext(msgid)
        if text == msgid and msgid not in self.missing:
            self.missing.append(msgid)
        return text


def _saved(page: Page, path: str) -> bool:
    return page.evaluate(
        """async ([name, path]) => {
        const cache = await caches.open(name);
        return !!(await cache.match(new URL(path, location.href).href));
    }""",
        [PAGES_CACHE, path],
    )


def _worker_ready(page: Page) -> dict:
    """Waits for the worker to be active and to control this page; returns its registration.
    Installing stores the offline page first (a request to the server): with the other browser
    tests loading both CPUs, that once took over the default 10 s, so it gets 30."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=30_000)
    return page.evaluate("""navigator.serviceWorker.ready.then((r) => (
        {scope: r.scope, state: r.active && r.active.state, script: r.active && r.active.scriptURL}))""")


@pytest.mark.parametrize(
    ("locale", "prefix", "suffix"), [("en-GB", "pwe", ""), ("pl-PL", "pwp", "-pl")], ids=["english", "polish"]
)
def test_issue19_the_dashboard_opens_offline_after_a_visit_and_not_after_logout(
    new_page, screenshot, live_server, locale, prefix, suffix
):
    t = Texts(locale)
    page = new_page("player", locale=locale)
    context = page.context
    setup = running_campaign(page, prefix, phase="battles")
    ork = setup.players[0]
    bid = api(page, setup.tokens[ork], "GET", f"/campaigns/{setup.cid}/battles")["items"][0]["id"]
    others = {f"{setup.base}/map": "svg#map", f"{setup.base}/battles/{bid}": f"main h2:text-is('{BRIDGE}')"}

    login(page, ork)
    # The manifest as Chromium reads it: no errors, the app's name and where it starts.
    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"].startswith(f"{live_server}/static/manifest.webmanifest?v=")
    assert manifest["errors"] == [], manifest["errors"]
    assert '"name": "Hideout"' in manifest["data"]
    registration = _worker_ready(page)
    assert registration == {"scope": f"{live_server}/", "state": "activated", "script": f"{live_server}/sw.js"}

    heading = page.get_by_role("heading", level=1, name=f"Campaign {prefix}")
    banner = page.locator("#offline-banner")
    for address in (*others, setup.base):
        page.goto(address)
        expect(heading).to_be_visible()
        expect(banner).to_be_hidden()
        page.wait_for_function(f"""() => caches.open("{PAGES_CACHE}").then((c) => c.match(location.href)).then(Boolean)""")

    context.set_offline(True)
    page.reload()
    expect(heading).to_be_visible()
    expect(banner).to_be_visible()
    expect(banner).to_contain_text(t(OFFLINE))
    expect(banner).to_contain_text(t(COPY))
    expect(banner.locator(".offline-saved .offline-when")).to_have_text(re.compile(r"\d"))
    expect(page.locator("html")).to_have_attribute("lang", locale[:2])
    no_horizontal_overflow(page, "the offline dashboard")
    shot(screenshot, page, f"pwa-offline-dashboard{suffix}")
    for address, mark in others.items():
        page.goto(address)
        expect(page.locator(mark).first).to_be_visible()
        expect(banner).to_be_visible()
        expect(banner).to_contain_text(t(COPY))

    # A page never opened online: the offline page, pointing to what this phone has saved.
    page.goto(f"{setup.base}/rules")
    expect(page.get_by_role("heading", level=1, name=t(NOT_SAVED))).to_be_visible()
    saved = page.locator("#offline-saved")
    expect(saved.get_by_role("heading", name=t(SAVED_HERE))).to_be_visible()
    listed = saved.locator("li")
    expect(listed).to_have_count(3)
    # The newest first, each with what it is: the dashboard (the campaign's Overview tab).
    expect(listed.first.get_by_role("link")).to_have_attribute("href", f"{live_server}{setup.base}")
    expect(listed.first).to_contain_text(re.compile(rf"Campaign {prefix} · {re.escape(t(OVERVIEW))} · .*\d"))
    shot(screenshot, page, f"pwa-offline-page{suffix}")

    # Back online, log out: the next person on this phone finds nothing of this one offline.
    context.set_offline(False)
    page.goto(setup.base)
    expect(heading).to_be_visible()
    expect(banner).to_be_hidden()
    page.locator("header.top .account-menu > summary").click()  # Log out sits in the account menu (issue 29)
    page.locator("header.top form[action='/logout'] button").click()
    expect(page.locator("header.top a[href='/login']")).to_be_visible()
    assert not _saved(page, setup.base)
    context.set_offline(True)
    page.goto(setup.base)
    expect(page.get_by_role("heading", level=1, name=t(NOT_SAVED))).to_be_visible()
    expect(page.get_by_text(f"Campaign {prefix}")).to_have_count(0)
    expect(page.locator("#offline-saved")).to_be_hidden()
    context.set_offline(False)
    assert not t.missing, "no Polish translation in app/translations/pl/LC_MESSAGES/messages.po for:\n" + "\n".join(t.missing)

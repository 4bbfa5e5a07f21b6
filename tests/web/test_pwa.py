"""Installable on a phone (issue 19, item 5): the manifest and its icons, the service worker
served from the root, the layout linking them, the offline page, and a logout that clears
what the browser kept. The worker's own behaviour runs in Chromium
(tests/e2e/test_pwa_flow.py); here the markup it relies on is checked against the pages."""

from __future__ import annotations

import json
import re
from pathlib import Path

from PIL import Image

from app.core.settings import PACKAGE
from tests.builders.accounts import register
from tests.builders.campaigns import campaign_with_players
from tests.builders.pages import login, post
from tests.secrecy.test_matrix import app_routes

STATIC = PACKAGE / "static"
WORKER = (STATIC / "sw.js").read_text()
PAGE_PATHS = {
    "/campaigns/{cid}": "/campaigns/7",
    "/campaigns/{cid}/map": "/campaigns/7/map",
    "/campaigns/{cid}/battles/{bid}": "/campaigns/7/battles/12",
}


def _link(page: str, rel: str) -> str:
    return re.search(rf'<link rel="{rel}" href="([^"]+)"', page).group(1)


def _viewer(page: str) -> str:
    return re.search(r'<meta name="hideout-viewer" content="([^"]*)">', page).group(1)


def _worker_constant(name: str) -> str:
    return re.search(rf"const {name} = (.+);", WORKER).group(1)


def _worker_regexes(name: str) -> list[re.Pattern]:
    """The worker's JS regex literals of a constant, read as Python patterns."""
    return [re.compile(body.replace("\\/", "/")) for body in re.findall(r"/(\^.*?\$)/", _worker_constant(name))]


def test_issue19_manifest_names_the_app_and_its_icons_exist_at_their_stated_sizes(client):
    page = client.get("/login").text
    href = _link(page, "manifest")
    assert href.startswith("/static/manifest.webmanifest?v=")
    response = client.get(href)
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/manifest+json")
    manifest = json.loads(response.text)
    assert manifest["name"] == "Hideout" and manifest["short_name"] and len(manifest["short_name"]) <= 12
    assert manifest["start_url"] == "/" and manifest["scope"] == "/" and manifest["display"] == "standalone"
    css = (STATIC / "style.css").read_text()
    for colour in (manifest["theme_color"], manifest["background_color"]):
        assert re.fullmatch(r"#[0-9a-f]{6}", colour) and colour in css, colour
    sizes = {}
    for icon in manifest["icons"]:
        served = client.get(icon["src"])
        assert served.status_code == 200 and served.headers["content-type"] == icon["type"] == "image/png", icon
        path = STATIC / Path(icon["src"]).relative_to("/static")
        with Image.open(path) as image:
            assert image.format == "PNG" and f"{image.width}x{image.height}" == icon["sizes"], icon
        sizes.setdefault(icon["purpose"], set()).add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes["any"] and "512x512" in sizes["maskable"]
    with Image.open(STATIC / "icons" / "maskable-512.png") as maskable:
        # A maskable icon fills its square: the corners a mask cuts away are not transparent.
        assert maskable.mode == "RGB" or maskable.getpixel((0, 0))[3] == 255


def test_issue19_the_service_worker_is_served_from_the_root_uncached_as_javascript(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == "application/javascript"
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["service-worker-allowed"] == "/"
    assert response.text == WORKER
    # Scope "/": the script sits at the root, and the page registers it so.
    pwa = (STATIC / "pwa.js").read_text()
    assert 'navigator.serviceWorker.register("/sw.js", { scope: "/" })' in pwa


def test_issue19_every_page_links_the_manifest_icon_theme_worker_script_and_a_hidden_banner(client):
    page = client.get("/login").text
    assert _link(page, "apple-touch-icon").startswith("/static/icons/apple-touch-icon.png?v=")
    assert '<meta name="theme-color" content="#8a3b12">' in page
    assert re.search(r'<script src="/static/pwa\.js\?v=[0-9a-f]+" defer></script>', page)
    # The worker unhides the banner of a saved copy by this exact text (static/sw.js BANNER).
    banner = _worker_constant("BANNER").strip("'")
    assert page.count(banner) == 1
    assert "Offline" in page and "This is the copy of this page saved on this device" in page
    assert _viewer(page) == ""  # nobody's page: the worker keeps nothing for it


def test_issue19_the_worker_keeps_exactly_the_dashboard_map_and_battle_pages(app):
    patterns = _worker_regexes("SAVED")
    routes = {path for method, path in app_routes(app) if method == "GET"}
    for route, example in PAGE_PATHS.items():
        assert route in routes
        assert any(p.fullmatch(example) for p in patterns), example
    for other in (
        "/",
        "/account",
        "/campaigns/7/company",
        "/campaigns/7/letters",
        "/api/v1/campaigns/7",
        "/campaigns/7/map/places",
        "/campaigns/7/battles",
        "/login",
        "/offline",
    ):
        assert not any(p.fullmatch(other) for p in patterns), other
    # Never a form's answer, an API answer or an htmx partial: only GET navigations are saved.
    assert 'request.mode === "navigate"' in WORKER and 'request.method !== "GET"' in WORKER


def test_issue19_pages_name_their_viewer_for_the_worker_and_a_flash_marks_a_page_it_skips(client, make_client):
    gm_headers, cid, players, _ = campaign_with_players(client, 2)
    a, b = make_client(), make_client()
    login(a, "player0")
    login(b, "player1")
    dashboard_a, dashboard_b = a.get(f"/campaigns/{cid}").text, b.get(f"/campaigns/{cid}").text
    key_a, key_b = _viewer(dashboard_a), _viewer(dashboard_b)
    assert key_a and key_b and key_a != key_b
    assert re.fullmatch(r"[0-9a-f]{20}", key_a)  # opaque: neither the nickname nor the id
    # The same person logged in again keeps the key: a page revalidated (304) is the same page.
    again = make_client()
    login(again, "player0")
    assert _viewer(again.get(f"/campaigns/{cid}").text) == key_a
    # A page drawn without looking at the login (an unknown address) names no viewer at all:
    # the worker then keeps the saved pages rather than take it for a logout.
    lost = a.get("/no-such-page")
    assert lost.status_code == 404 and 'name="hideout-viewer"' not in lost.text
    # A page carrying a flash message is never saved; the worker knows it by this markup.
    flash = re.compile(re.search(r"const FLASH = /(.+)/;", WORKER).group(1))
    shown = post(a, "/language", {"locale": "pl", "next": f"/campaigns/{cid}"}, token_from=f"/campaigns/{cid}")
    assert shown.status_code == 303
    assert flash.search(a.get(f"/campaigns/{cid}").text)
    assert not flash.search(a.get(f"/campaigns/{cid}").text)


def test_issue19_logout_clears_what_the_browser_kept(client):
    register(client, "leaver")
    login(client, "leaver")
    response = post(client, "/logout")
    assert response.status_code == 303
    assert response.headers["clear-site-data"] == '"cache"'
    # The next page belongs to nobody: the worker drops the saved pages on seeing it.
    assert _viewer(client.get("/").text) == ""


def test_issue19_the_offline_page_names_nobody_and_follows_the_language(client):
    register(client, "nomad")
    login(client, "nomad")
    page = client.get("/offline")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "nomad" not in page.text and "csrf_token" not in page.text and "<form" not in page.text
    assert "This page is not saved on this device" in page.text
    assert 'id="offline-saved-list"' in page.text and "/static/pwa.js?v=" in page.text
    assert '<html lang="pl">' in client.get("/offline?lang=pl").text
    assert '<html lang="en">' in client.get("/offline?lang=xx", headers={"Accept-Language": "en"}).text

"""/api/docs works offline: with every request outside the server blocked, Swagger UI
still draws the API (its files come from static/vendor/swagger-ui)."""
from __future__ import annotations

from playwright.sync_api import expect


def test_e2e_api_docs_render_without_the_internet(new_page, live_server):
    page = new_page("docs")
    outside = []

    def guard(route):
        if route.request.url.startswith(live_server):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", guard)
    page.goto("/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Hideout API")
    expect(page.locator(".swagger-ui .opblock").first).to_be_visible()
    assert not outside, outside

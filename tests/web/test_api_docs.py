"""/api/docs (issue 30): a light reference drawn by the server from the OpenAPI document, with
Swagger UI on demand (static/swagger-init.js) from static/vendor/swagger-ui, never a CDN."""

import re

from app.core.api_docs import operations


def test_api_docs_reference_only_local_static_assets(client):
    page = client.get("/api/docs")
    assert page.status_code == 200
    assert not re.search(r"https?://", page.text), re.findall(r"https?://[^\s'\"]+", page.text)
    # What the page loads at once: the site's stylesheet, its icon and one small script.
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text)
    assert len(assets) == 3 and not any("swagger-ui" in a for a in assets), assets
    # What the button loads on demand, named in the page so the script needs no URL of its own.
    console = re.findall(r'data-(?:css|js)="([^"]+)"', page.text)
    assert [a.split("?")[0] for a in console] == [
        "/static/vendor/swagger-ui/swagger-ui.css",
        "/static/vendor/swagger-ui/swagger-ui-bundle.js",
    ], console
    for asset in assets + console:
        r = client.get(asset)
        assert r.status_code == 200 and len(r.content) > 200, (asset, r.status_code)
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable", asset
    # R11.5, issue 10: no inline script, so the page keeps script-src 'self'.
    assert "<script>" not in page.text and "script-src 'self'" in page.headers["content-security-policy"]
    assert 'data-openapi-url="/api/v1/openapi.json"' in page.text
    assert client.get("/api/v1/openapi.json").status_code == 200
    assert client.get("/static/vendor/swagger-ui/LICENSE").status_code == 200


def test_api_docs_lists_every_operation_by_tag(client):
    document = client.get("/api/v1/openapi.json").json()
    page = client.get("/api/docs").text
    assert "<main" in page and "<h1>" in page and 'name="description"' in page
    groups = operations(document)
    served = [
        (m.upper(), p) for p, item in document["paths"].items() for m in item if m in ("get", "put", "post", "patch", "delete")
    ]
    listed = [(op.method, op.path) for g in groups for op in g.operations]
    assert sorted(listed) == sorted(served) and len(listed) == len(set(listed))
    for group in groups:
        assert f'<h2 id="tag-{group.tag}">{group.tag}</h2>' in page
        for op in group.operations:
            assert all(op.tag == group.tag for op in group.operations)
            # Each operation opens the console at itself (Swagger UI's deep link).
            assert f'href="/api/docs?try=1#/{group.tag}/{op.operation_id}">{op.path}</a>' in page, op
            assert f"<code>{op.operation_id}</code>" in page and op.summary in page
    # The conventions of docs/api.md, in a sentence each.
    for convention in ("Idempotency-Key", "Errors", "Pagination", "Live stream", "Bearer"):
        assert convention in page, convention
    # The console is a button of a form that, without JavaScript, comes back with ?try=1.
    assert re.search(r'<form[^>]*id="try-api"[^>]*method="get" action="/api/docs"', page)
    assert '<input type="hidden" name="try" value="1">' in page and "Try the API in the browser" in page


def test_api_docs_with_try_is_the_same_page(client):
    """?try=1 is read by the script; the server answers the same page, so a link can go there."""
    assert client.get("/api/docs?try=1").text == client.get("/api/docs").text

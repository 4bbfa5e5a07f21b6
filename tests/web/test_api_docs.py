"""/api/docs works offline: Swagger UI comes from static/vendor/swagger-ui, never a CDN."""
import re


def test_api_docs_reference_only_local_static_assets(client):
    page = client.get("/api/docs")
    assert page.status_code == 200 and "swagger-ui-bundle.js" in page.text
    assert not re.search(r"https?://", page.text), re.findall(r"https?://[^\s'\"]+", page.text)
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert len(assets) == 4 and all(a.startswith("/static/") for a in assets), assets
    for asset in assets:
        r = client.get(asset)
        assert r.status_code == 200 and len(r.content) > 300, (asset, r.status_code)
    # R11.5, issue 10: no inline script, so the page keeps script-src 'self'.
    assert "<script>" not in page.text and "script-src 'self'" in page.headers["content-security-policy"]
    assert 'data-openapi-url="/api/v1/openapi.json"' in page.text
    assert client.get("/api/v1/openapi.json").status_code == 200
    assert client.get("/static/vendor/swagger-ui/LICENSE").status_code == 200

"""Issue 37: a first load carries what a browser runs, not the notes beside it. Our own CSS and
scripts are served without their comments and indentation (app/core/static.py `lean`), every
line of code kept in order; vendored files as they are; and a script, a stylesheet or an image
without the headers that only a document reads (an SVG keeps them)."""

from __future__ import annotations

import re

from app.core.static import STATIC_DIR, file_hash, lean

OWN = sorted(p for p in STATIC_DIR.rglob("*") if p.suffix in (".css", ".js") and "vendor" not in p.parts)


def _code_lines(path, text: str) -> list[str]:
    if path.suffix == ".css":
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = [line.strip() for line in text.split("\n")]
    return [line for line in lines if line and not (path.suffix == ".js" and line.startswith("//"))]


def test_every_line_of_code_is_kept_in_order_and_only_notes_go():
    assert len(OWN) >= 10
    for path in OWN:
        source = path.read_text()
        served = lean(path.name, source)
        assert served.split("\n")[:-1] == _code_lines(path, source), path.name
        assert len(served) < len(source), path.name  # every file of ours has notes to leave out
        if path.suffix == ".css":
            assert "/*" not in served, path.name


def test_a_script_with_a_string_over_several_lines_is_served_as_it_is():
    for text in ("const a = `one\n// not a comment\n`;\n", "const b = 'one \\\n// not a comment';\n"):
        assert lean("x.js", text) == text
    assert lean("x.js", "// note\n  go();\n\n") == "go();\n"


def test_served_files_and_their_headers(client):
    for name in ("app.js", "style.css"):
        url = f"/static/{name}?v={file_hash(name)}"
        r = client.get(url)
        assert r.status_code == 200 and r.text == lean(name, (STATIC_DIR / name).read_text())
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert "last-modified" not in r.headers and "content-security-policy" not in r.headers
        assert "x-frame-options" not in r.headers and r.headers["x-content-type-options"] == "nosniff"
        again = client.get(url, headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
    # Unhashed, a file revalidates, with its date.
    plain = client.get("/static/app.js")
    assert plain.headers["cache-control"] == "no-cache" and "last-modified" in plain.headers
    # Vendored code as published; an SVG, a document when opened alone, keeps the policy.
    vendor = "vendor/htmx-2.0.11.min.js"
    assert client.get(f"/static/{vendor}").content == (STATIC_DIR / vendor).read_bytes()
    svg = client.get(f"/static/favicon.svg?v={file_hash('favicon.svg')}")
    assert "content-security-policy" in svg.headers and "x-frame-options" in svg.headers
    page = client.get("/login")
    assert "content-security-policy" in page.headers and "x-frame-options" in page.headers


def test_small_text_files_go_out_compressed_once_and_as_they_are_when_asked(client):
    """Issue 37: htmx compressed anew for every first load cost more than the page; a text file
    is kept compressed (zlib's best level) once per version, and its own ETag says which form."""
    url = f"/static/vendor/htmx-2.0.11.min.js?v={file_hash('vendor/htmx-2.0.11.min.js')}"
    raw = (STATIC_DIR / "vendor/htmx-2.0.11.min.js").read_bytes()
    packed = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip" and packed.content == raw
    assert int(packed.headers["content-length"]) < len(raw) / 2 and packed.headers["vary"] == "Accept-Encoding"
    plain = client.get(url, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == raw
    assert plain.headers["etag"] != packed.headers["etag"] and packed.headers["etag"].endswith('-gz"')
    for response, encoding in ((packed, "gzip"), (plain, "identity")):
        again = client.get(url, headers={"Accept-Encoding": encoding, "If-None-Match": response.headers["etag"]})
        assert again.status_code == 304
    # The other form's validator does not match: the client gets the bytes it can read.
    crossed = client.get(url, headers={"Accept-Encoding": "identity", "If-None-Match": packed.headers["etag"]})
    assert crossed.status_code == 200 and crossed.content == raw

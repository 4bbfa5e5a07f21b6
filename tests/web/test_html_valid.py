"""Issue 30 item 4: every page passes the Nu Html Checker with no error.

The pages are those the secrecy matrix lists as readable HTML (tests/secrecy/matrix.py: a new
page lands there first, so it is checked here too), fetched in the three planted campaigns of
tests/secrecy/world.py (setup, orders, settlement: battles, letters, guilds, ransoms…) by the
GM, a player and an anonymous visitor, plus the error pages. vnu runs once over them all."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.secrecy.matrix import MATRIX, Read
from tests.secrecy.test_matrix import url_for
from tests.secrecy.world import kept
from tests.web import vnu

pytestmark = pytest.mark.markup

# Surfaces that answer a whole HTML document (partials are fragments, the rest not HTML).
DOCUMENTS = {"page", "map", "dashboard", "chronicle", "docs"}
VIEWERS = ("gm", "owner", "anonymous")


def page_urls(cast, surfaces=DOCUMENTS) -> list[str]:
    """Every (world, variant) URL of every readable route of these surfaces (HTML documents)."""
    urls: list[str] = []
    for (method, path), entry in sorted(MATRIX.items()):
        if method != "GET" or not isinstance(entry, Read) or entry.surface not in surfaces:
            continue
        for world in cast.worlds.values():
            for variant in entry.variants:
                url = url_for(path, world, variant.params, variant.query)
                if url is not None and url not in urls:
                    urls.append(url)
    return urls


def save_documents(cast, urls: list[str], out: Path) -> dict[str, str]:
    """Each distinct HTML document the viewers get, written to out/; file path -> "role URL"."""
    names: dict[str, str] = {}
    seen: set[str] = set()
    for role in VIEWERS:
        for url in [*urls, "/campaigns/999999", "/no-such-page"]:
            r = cast.pages[role].get(url, follow_redirects=True)
            assert r.status_code < 500, (role, url, r.status_code)
            if not r.headers.get("content-type", "").startswith("text/html"):
                continue
            digest = hashlib.sha256(r.content).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            path = out / f"{len(names):04d}.html"
            path.write_bytes(r.content)
            names[str(path)] = f"{role} {url} ({r.status_code})"
    return names


@pytest.fixture
def checker():
    try:
        return vnu.vnu_jar()
    except vnu.CheckerMissing as exc:
        pytest.fail(str(exc))


@pytest.mark.load
def test_issue30_every_page_passes_the_nu_html_checker(client, make_client, engine, tmp_path, checker):
    """GM, player and anonymous pages of every planted campaign: no vnu error at all."""
    cast = kept(client, make_client, engine)
    urls = page_urls(cast)
    # The walk reaches the pages the issue names: a guard against an empty or partial walk.
    for needed in (
        "/map",
        "/company",
        "/shop",
        "/warbands",
        "/orders",
        "/battles",
        "/settlements/",
        "/chronicle",
        "/letters",
        "/guilds",
        "/account",
        "/login",
        "/api/docs",
        "/ransoms",
    ):
        assert any(needed in u.split("?")[0] for u in urls), needed
    names = save_documents(cast, urls, tmp_path)
    assert len(names) > 40, names
    errors = vnu.check(sorted(map(Path, names)))
    assert not errors, f"{len(errors)} vnu errors:\n" + "\n".join(vnu.describe(m, names) for m in errors[:80])


def test_issue30_the_checker_reports_what_the_issue_forbids(tmp_path, checker):
    """The check can fail: an empty <time>, aria-label on a plain <span>, a bare hx-post and an
    article without a heading are each reported; a clean page is not."""
    head = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>'
    bad = {
        "time": "<p>Saved: <time></time></p>",
        "aria": '<p><span aria-label="x">y</span></p>',
        "hx": '<div hx-post="/x">y</div>',
        "article": "<article><p>y</p></article>",
    }
    files = []
    for name, body in bad.items():
        files.append(tmp_path / f"{name}.html")
        files[-1].write_text(head + body + "</body></html>")
    clean = tmp_path / "clean.html"
    clean.write_text(
        head + '<article><h2>a</h2><div data-hx-post="/x"><time datetime="2026-01-01">1 Jan</time></div></article></body></html>'
    )
    errors = vnu.check([*files, clean])
    flagged = {Path(m["url"].removeprefix("file:")).stem for m in errors}
    assert flagged == set(bad), errors

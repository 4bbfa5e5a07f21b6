"""Issue 30 item 4: each page has a meta description, and every settlement input has a label.

The pages are those of the Nu Html Checker's walk (tests/web/test_html_valid.py: the secrecy
matrix's readable HTML routes in the three planted campaigns, as the GM, a player and an
anonymous visitor); here without vnu, so it runs with the fast tests. Lighthouse checks the
same on the demo (tools/lighthouse.py, docs/lighthouse.md)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from tests.secrecy.world import kept
from tests.web.test_html_valid import VIEWERS, page_urls

pytestmark = pytest.mark.markup

# Inputs a label is not asked of (Lighthouse's `label` audit and WCAG alike): not shown, or
# buttons named by their own value.
UNLABELLED_TYPES = {"hidden", "submit", "button", "reset", "image"}


class Page(HTMLParser):
    """The meta description and the form fields of one document, with how each is labelled."""

    def __init__(self) -> None:
        super().__init__()
        self.description: str | None = None
        self.label_for: set[str] = set()
        self.open_labels = 0
        self.fields: list[tuple[str, dict[str, str], bool]] = []  # tag, attributes, inside a <label>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "meta" and a.get("name") == "description":
            self.description = a.get("content", "")
        elif tag == "label":
            self.open_labels += 1
            if a.get("for"):
                self.label_for.add(a["for"])
        elif tag in ("input", "select", "textarea") and a.get("type", "").lower() not in UNLABELLED_TYPES:
            self.fields.append((tag, a, self.open_labels > 0))

    def handle_endtag(self, tag: str) -> None:
        if tag == "label" and self.open_labels:
            self.open_labels -= 1

    def unlabelled(self) -> list[str]:
        """The fields with no label: no <label for>, no wrapping <label>, no aria-label(ledby)."""
        return [
            f"<{tag} name={a.get('name')!r} id={a.get('id')!r}>"
            for tag, a, wrapped in self.fields
            if not wrapped
            and a.get("id", "") not in self.label_for
            and not a.get("aria-label", "").strip()
            and not a.get("aria-labelledby", "").strip()
        ]


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


@pytest.mark.load  # a walk over every page of two planted campaigns
def test_issue30_every_page_of_the_walk_has_a_meta_description(client, make_client, engine):
    """Every HTML document the GM, a player and an anonymous visitor get, error pages too."""
    cast = kept(client, make_client, engine)
    urls = page_urls(cast)
    assert len(urls) > 40, urls
    missing, documents = [], 0
    for role in VIEWERS:
        for url in [*urls, "/campaigns/999999", "/no-such-page"]:
            r = cast.pages[role].get(url, follow_redirects=True)
            if not r.headers.get("content-type", "").startswith("text/html"):
                continue
            documents += 1
            description = parse(r.text).description
            if not (description or "").strip():
                missing.append(f"{role} {url} ({r.status_code})")
    assert documents > 100, documents
    assert not missing, missing


def test_issue30_every_settlement_input_has_a_label(client, make_client, engine):
    """Both settlements of the planted Settlement campaign, as their owners and the GM: one
    closed, one under way (every step's fields shown)."""
    cast = kept(client, make_client, engine)
    world = cast.worlds["settlement"]
    base = f"/campaigns/{world.cid}/battles/{world.ids['battle']}/settlements"
    fields, unlabelled = 0, []
    for role, warband in (("owner", "warband"), ("other", "other_warband"), ("gm", "warband"), ("gm", "other_warband")):
        r = cast.pages[role].get(f"{base}/{world.ids[warband]}")
        assert r.status_code == 200, (role, warband, r.status_code)
        page = parse(r.text)
        fields += len(page.fields)
        unlabelled += [f"{role} {warband}: {field}" for field in page.unlabelled()]
    assert fields > 10, fields  # the walk reached forms: not a check of empty pages
    assert not unlabelled, unlabelled


def test_issue30_the_checks_report_a_missing_description_and_label():
    """The parser can fail: an empty description and each kind of unlabelled field are found;
    each way of labelling is accepted."""
    bad = parse(
        '<meta name="description" content=" "><form><input name="a"><select name="b"></select>'
        '<textarea id="c"></textarea><label for="other">x</label><input id="d" name="d"></form>'
    )
    assert not bad.description.strip()
    assert bad.unlabelled() == [
        "<input name='a' id=None>",
        "<select name='b' id=None>",
        "<textarea name=None id='c'>",
        "<input name='d' id='d'>",
    ]
    good = parse(
        '<meta name="description" content="Map · Hideout"><form><label>A <input name="a"></label>'
        '<label for="b">B</label><select id="b"></select><textarea aria-label="C"></textarea>'
        '<span id="dl">D</span><input aria-labelledby="dl"><input type="hidden" name="t"><input type="submit"></form>'
    )
    assert good.description == "Map · Hideout"
    assert good.unlabelled() == [] and len(good.fields) == 4

"""Markdown written by GMs and players, rendered to HTML that cannot run scripts."""

from __future__ import annotations

from functools import lru_cache

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup

_md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")


# The same texts are drawn on every page view (a campaign's story on its dashboard, a place's
# description): parsing and cleaning one cost a fifth of a millisecond (issue 37). The HTML
# depends on the text alone; a hundred texts of at most 20,000 characters are kept.
KEPT_TEXTS = 128


def render_markdown(text: str | None) -> Markup:
    return _rendered(text) if text else Markup("")


@lru_cache(maxsize=KEPT_TEXTS)
def _rendered(text: str) -> Markup:
    return Markup(nh3.clean(_md.render(text), link_rel="noopener noreferrer nofollow"))


# --- letters (R8.12): stricter still --------------------------------------------------------
# A letter is written by one participant for another: nothing in it may load, run or call out
# on its own. Raw HTML is not parsed (it shows as text), no image is ever shown — `![alt](url)`
# renders its alt text, so opening a letter never fetches anything — links keep to http(s) and
# mailto, and every attribute but a link's address and title is dropped (no event handlers,
# no style, no class).
LETTER_TAGS = {
    "p",
    "br",
    "hr",
    "em",
    "strong",
    "del",
    "s",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}
LETTER_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
LETTER_SCHEMES = {"http", "https", "mailto"}


def _letter_md() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")

    def image_as_text(self, tokens, idx, options, env):
        # The alt text only, escaped by the inline text renderer: never an <img>.
        return escapeHtml(self.renderInlineAsText(tokens[idx].children or [], options, env))

    md.add_render_rule("image", image_as_text)
    return md


_letter = _letter_md()


def render_letter(text: str | None) -> Markup:
    """A letter's Markdown body as HTML that cannot run, load or style anything."""
    if not text:
        return Markup("")
    html = _letter.render(text)
    return Markup(
        nh3.clean(
            html,
            tags=LETTER_TAGS,
            attributes=LETTER_ATTRIBUTES,
            url_schemes=LETTER_SCHEMES,
            clean_content_tags={"script", "style"},
            link_rel="noopener noreferrer nofollow",
        )
    )

"""Markdown written by GMs and players, rendered to HTML that cannot run scripts."""
from __future__ import annotations

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

_md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")


def render_markdown(text: str | None) -> Markup:
    if not text:
        return Markup("")
    html = _md.render(text)
    return Markup(nh3.clean(html, link_rel="noopener noreferrer nofollow"))

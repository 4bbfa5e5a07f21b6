"""A letter's Markdown body rendered safely (R8.12, R11.2): no script, no event handler, no raw
HTML, no `javascript:`/`data:` address, and no image at all (an image's alt text is shown
instead, so opening a letter never fetches anything). The pure rules of letters too."""

from __future__ import annotations

import time
from html.parser import HTMLParser

import pytest

from app.core.errors import DomainError
from app.core.markdown import LETTER_TAGS, render_letter, render_markdown
from app.letters import rules

HOSTILE = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<scr<script>ipt>alert(1)</script>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](  javascript:alert(1))",
    "[click](java\tscript:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](javascript&colon;alert(1))",
    "<javascript:alert(1)>",
    "[ref]\n\n[ref]: javascript:alert(1)",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](vbscript:msgbox(1))",
    "[click](file:///etc/passwd)",
    "<img src=x onerror=alert(1)>",
    '<a href="#" onclick="alert(1)">x</a>',
    "<div onmouseover=alert(1)>hover</div>",
    "<iframe src=https://evil.example></iframe>",
    "<style>body{display:none}</style>",
    "<link rel=stylesheet href=https://evil.example/x.css>",
    "<meta http-equiv=refresh content='0;url=https://evil.example'>",
    "![pixel](https://evil.example/track.png)",
    "![pixel](//evil.example/track.png)",
    "![pixel](data:image/png;base64,iVBORw0KGgo=)",
    '![x" onerror="alert(1)](https://evil.example/a.png)',
    "[![img](https://evil.example/a.png)](https://evil.example)",
    "![ref]\n\n[ref]: https://evil.example/a.png",
    "<svg/onload=alert(1)>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<object data=x></object><embed src=x>",
    '<form action="https://evil.example"><input name=csrf_token></form>',
    "<details open ontoggle=alert(1)>",
    "```html\n<script>alert(1)</script>\n```",
    "`<img src=x onerror=alert(1)>`",
    "| a |\n|---|\n| <img src=x onerror=alert(1)> |",
    "<!-- <script>alert(1)</script> -->",
    "<![CDATA[<script>alert(1)</script>]]>",
]
SCHEMES = ("http://", "https://", "mailto:")


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, attrs))

    handle_startendtag = handle_starttag


def assert_harmless(html: str) -> None:
    """Only the letter's tags; only a link's address (http, https, mailto or this site) and
    title, and an ordered list's start; no image, no handler."""
    parser = _Tags()
    parser.feed(html)
    for tag, attrs in parser.found:
        assert tag in LETTER_TAGS and tag != "img", (tag, html)
        for name, value in attrs:
            assert not name.startswith("on"), (name, html)
            assert (tag, name) in {("a", "href"), ("a", "title"), ("a", "rel"), ("ol", "start")}, (tag, name, html)
            if name == "href":
                assert (
                    value.lower().startswith(SCHEMES)
                    or (value.startswith("/") and not value.startswith("//"))
                    or ":" not in value.split("/")[0]
                ), (value, html)


@pytest.mark.parametrize("body", HOSTILE)
def test_r8_12_r11_2_hostile_letter_bodies_render_harmless(body):
    html = str(render_letter(body))
    assert_harmless(html)
    lowered = html.lower()
    assert "<script" not in lowered and "<img" not in lowered and "<iframe" not in lowered and "<style" not in lowered


def test_r8_12_images_show_their_alt_text_and_nothing_is_fetched():
    html = str(render_letter("Look: ![the <b>old</b> map & key](https://evil.example/map.png) here"))
    assert html == "<p>Look: the &lt;b&gt;old&lt;/b&gt; map &amp; key here</p>\n"
    assert "evil.example" not in str(render_letter("![a](https://evil.example/a.png)"))


def test_r8_12_ordinary_markdown_still_reads_well():
    html = str(
        render_letter(
            '# Dear *Anna*\n\n**Meet** me at [the ford](https://example.org/ford "ford").\n\n'
            "- one\n- two\n\n3. three\n\n> quoted\n\n`code` ~~no~~\n\n| a | b |\n|--:|---|\n| 1 | 2 |"
        )
    )
    for part in (
        "<h1>Dear <em>Anna</em></h1>",
        "<strong>Meet</strong>",
        '<a href="https://example.org/ford" title="ford" rel="noopener noreferrer nofollow">the ford</a>',
        "<li>one</li>",
        '<ol start="3">',
        "<blockquote>",
        "<code>code</code>",
        "<s>no</s>",
        "<td>1</td>",
    ):
        assert part in html, (part, html)
    assert "style=" not in html  # the table's alignment style is dropped
    assert str(render_letter("[mail](mailto:gm@example.org)")).count('href="mailto:gm@example.org"') == 1
    assert render_letter("") == "" and render_letter(None) == ""


def test_r8_12_the_campaign_story_renderer_is_unchanged():
    """render_markdown (stories, events) still shows images; only letters refuse them."""
    assert "<img" in str(render_markdown("![map](/media/map.png)"))


@pytest.mark.parametrize("pattern", ["[", "![", "*a ", "_a", "> ", "- ", "[a](", "<", "`", "&#x"])
def test_r8_12_a_huge_pathological_body_renders_in_bounded_time(pattern):
    body = (pattern * rules.BODY_MAX)[: rules.BODY_MAX]
    start = time.perf_counter()
    html = str(render_letter(body))
    assert time.perf_counter() - start < 5
    assert_harmless(html)


def test_r8_12_recipient_is_a_player_or_the_gm_never_both_or_neither():
    assert rules.recipient(to_player_id=5, to_gm=False) == 5
    assert rules.recipient(to_player_id=None, to_gm=True) is None
    for to_player_id, to_gm in ((None, False), (5, True)):
        with pytest.raises(DomainError) as exc:
            rules.recipient(to_player_id=to_player_id, to_gm=to_gm)
        assert exc.value.code == "letter_recipient"


def test_r8_12_nobody_writes_to_themselves():
    for me in (3, None):
        with pytest.raises(DomainError) as exc:
            rules.check_not_self(me, me)
        assert exc.value.code == "letter_to_self"
    rules.check_not_self(3, None)
    rules.check_not_self(None, 3)
    rules.check_not_self(3, 4)


def test_r8_12_the_other_party_and_the_reply_subject():
    assert rules.other_party(3, 3, 4) == 4 and rules.other_party(4, 3, 4) == 3
    assert rules.other_party(None, None, 4) == 4 and rules.other_party(4, None, 4) is None
    assert rules.is_party(None, 3, None) and not rules.is_party(5, 3, None)
    assert rules.reply_subject("Truce") == "Re: Truce"
    assert rules.reply_subject("Re: Truce") == "Re: Truce"
    assert rules.reply_subject("RE:Truce") == "RE:Truce"
    assert len(rules.reply_subject("x" * rules.SUBJECT_MAX)) == rules.SUBJECT_MAX

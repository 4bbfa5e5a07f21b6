"""Issue 37: `{{ value }}` writes through `written` (app/core/template_output.py), which must write
exactly what Jinja's own `escape` wrote, for every kind of value, in every place a written value
ends up (the page, a macro, a `{% set %}` block, a filter block, a call block), whether the
template was compiled now or read back from the bytecode cache."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jinja2 import DictLoader, Environment, FileSystemBytecodeCache, FileSystemLoader, Template, Undefined
from markupsafe import Markup, escape

from app.core.template_output import OutputTemplate, written


class _Html:
    def __repr__(self) -> str:  # the same test id in every xdist worker
        return "_Html()"

    def __html__(self) -> str:
        return "<b>kept</b>"


class _Text(str):
    pass


VALUES = [
    "",
    "plain",
    "<script>alert('x') & \"y\"</script>",
    "zażółć <gęślą>",
    0,
    -12,
    10**30,
    True,
    None,
    2.5,
    Markup("<em>safe</em> &amp;"),
    _Html(),
    _Text("<sub>"),
    Undefined(),
    ["<a>", 1],
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_issue37_written_is_the_text_escape_gives(value):
    assert written(value) == str(escape(value))


@given(st.one_of(st.text(), st.integers()))
def test_issue37_written_is_the_text_escape_gives_for_any_text_or_number(value):
    assert written(value) == str(escape(value))


SOURCE = (
    "{{ v }}|{% macro m(x) %}[{{ x }}]{% endmacro %}{{ m(v) }}|{% set s %}{{ v }}{% endset %}{{ s }}{{ s|length }}"
    "|{% filter upper %}{{ v }}{% endfilter %}|{% macro c(x) %}<{{ caller() }}{{ x }}>{% endmacro %}"
    "{% call c(v) %}{{ v }}{% endcall %}|{{ m(v) ~ v }}"
)


def _env(template_class, **options) -> Environment:
    env = Environment(autoescape=True, **options)
    env.template_class = template_class
    return env


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_issue37_a_template_writes_what_it_wrote_with_jinjas_escape(value):
    expected = _env(Template).from_string(SOURCE).render(v=value)
    template = _env(OutputTemplate).from_string(SOURCE)
    assert template.render(v=value) == expected
    assert template.module.__dict__ is not None  # a module of the template works as before


def test_issue37_templates_read_from_the_bytecode_cache_write_through_it_too(tmp_path):
    (tmp_path / "t.html").write_text(SOURCE)
    cache = tmp_path / "cache"
    cache.mkdir()

    def loaded():
        env = _env(OutputTemplate, loader=FileSystemLoader(tmp_path), bytecode_cache=FileSystemBytecodeCache(str(cache)))
        return env.get_template("t.html")

    first = loaded()
    assert any(cache.iterdir())  # compiled, then kept
    again = loaded()  # read back from the cache
    for template in (first, again):
        assert inspect.unwrap(template.root_render_func).__globals__["escape"] is written
        assert template.render(v="<x>") == _env(Template).from_string(SOURCE).render(v="<x>")


def test_issue37_a_context_holds_the_globals_jinja_gives_it_the_templates_own_over_the_environments():
    env = _env(OutputTemplate)
    env.globals.update(shared="env", only_env=1)
    template = env.from_string("{{ shared }} {{ only_env }} {{ own }} {{ v }}", globals={"shared": "own", "own": 2})
    for args in (({"v": 3},), ({"v": 3, "shared": "var"},), (None, True), ({"v": 3}, False, {"l_0_x": 4})):
        made, jinjas = template.new_context(*args), Template.new_context(template, *args)
        assert made.parent == jinjas.parent and list(made.parent) == list(jinjas.parent)
        assert made.globals_keys == jinjas.globals_keys
    assert template.render(v=3) == "own 1 2 3"
    assert template.render(v=3, shared="var") == "var 1 2 3"
    env.globals["only_env"] = 5  # a change to the environment's globals reaches a loaded template, as in Jinja
    assert template.render(v=3) == "own 5 2 3"


# A page's layout chain as the app's pages have it: a base, a layout extending it, a page
# extending the layout, with blocks in blocks, super(), self.block(), an include in a loop,
# a macro imported with context, and statements at the top of the page that set values.
_CHAIN = {
    "base.html": "<h>{% block head %}base head{% endblock %}</h>[{% block main %}{% endblock %}]"
    "{{ self.head() }}{% for i in range(2) %}{% include 'inc.html' %}{% endfor %}",
    "layout.html": "{% extends 'base.html' %}{% block head %}{{ super() }}+layout{% endblock %}"
    "{% block main %}<nav>{{ kinds }}</nav>{% block page %}{% endblock %}<f>{{ v }}</f>{% endblock %}",
    "page.html": "{% extends 'layout.html' %}{% set kinds = 'phase battles' %}{% import 'm.html' as m with context %}"
    "{% block page %}{% for x in xs %}<li>{{ x }}{{ m.say(x) }}</li>{% else %}none{% endfor %}{% endblock %}",
    "inc.html": "({{ i }}{{ v }})",
    "m.html": "{% macro say(x) %}[{{ v }}:{{ x }}]{% endmacro %}",
}


@pytest.mark.parametrize("values", [{"v": "<v>", "xs": ["a", "<b>", 3]}, {"v": 1, "xs": []}], ids=["rows", "empty"])
def test_issue37_a_page_yields_its_text_in_one_piece_the_same_text_as_jinjas(values):
    """Each template and block yields one piece (passed up once, not through every template
    the page extends), and the page is the text Jinja's own templates write."""
    expected = _env(Template, loader=DictLoader(_CHAIN)).get_template("page.html").render(**values)
    env = _env(OutputTemplate, loader=DictLoader(_CHAIN))
    page = env.get_template("page.html")
    assert page.render(**values) == expected
    assert "base head+layout" in expected and "phase battles" in expected  # the chain is exercised
    context = page.new_context(dict(values))
    assert len(list(page.root_render_func(context))) == 1
    # The drawing put every template's blocks in the context, each name's from the page's up.
    assert {name: len(stack) for name, stack in context.blocks.items()} == {"head": 2, "main": 2, "page": 2}
    for stack in context.blocks.values():
        for block in stack:
            assert len(list(block(context))) == 1

"""Issue 37: a fixed message in a template (`_("Save")`) is said through the `said` filter, which
Jinja calls directly, and says exactly what `_` said: the reader's language, trusted markup,
`%%` as `%`; a literal message with named variables is said through it too, escaping them as
Markup's `%` does; `ngettext` and any other call stay calls."""

from __future__ import annotations

import pytest
from markupsafe import Markup

from app.core.i18n import translations
from app.core.templating import _formatted, _make_env


@pytest.fixture(scope="module")
def env():
    return _make_env()


def _draw(env, source: str, locale: str, **context) -> str:
    return env.from_string(source).render(translations=translations(locale), **context)


def test_issue37_a_literal_message_compiles_to_the_said_filter_and_others_stay_calls(env):
    code = env.compile(
        '{{ _("Save") }}|{{ gettext("Save") }}|{{ _("Hi %(n)s", n=1) }}|{{ ngettext("a", "b", 2) }}|{{ _(m) }}', raw=True
    )
    assert code.count("context.call(") == 2  # the plural, and the message that is not a literal
    assert "'Save'" in code and "filters['said']" in code and "n=1" in code


@pytest.mark.parametrize(("locale", "said"), [("en", "Save"), ("pl", "Zapisz")])
def test_issue37_the_filter_says_what_the_call_said_in_the_readers_language(env, locale, said):
    assert _draw(env, '{{ _("Save") }}', locale) == said
    assert _draw(env, '{{ _("Position x (%%)") }}', locale) == ("Position x (%)" if locale == "en" else "Pozycja x (%)")


def test_issue37_a_fixed_message_stays_trusted_markup_and_a_variable_stays_escaped(env):
    # The catalog's text is the project's own (it may hold an entity); what a user typed is not.
    assert _draw(env, '{{ _("a &amp; b") }}', "en") == "a &amp; b"
    assert _draw(env, '{{ _("Hi %(n)s", n=name) }}', "en", name="<b>") == "Hi &lt;b&gt;"
    assert _draw(env, '{% set x = _("Save") %}{{ x ~ "<" }}', "pl") == "Zapisz&lt;"


@pytest.mark.parametrize(
    ("message", "variables"),
    [
        ("Hi %(n)s", {"n": "<b>&'\""}),
        ("Hi %(n)s", {"n": Markup("<i>x</i>")}),
        ("round %(n)d of %(m)s", {"n": 3, "m": 12}),
        ("%(x).1f%% and %(y)s", {"x": 2.25, "y": True}),
        ("%(a)s, %(b)s", {"a": None, "b": -7}),
    ],
)
def test_issue37_a_message_with_variables_says_what_markups_percent_said(env, message, variables):
    expected = str(Markup(message) % variables)
    assert _draw(env, "{{ _(message, **variables) }}", "en", message=message, variables=variables) == expected
    source = "{{ _(%r, %s) }}" % (message, ", ".join(f"{k}={k}" for k in variables))
    assert "filters['said']" in env.compile(source, raw=True)
    assert _draw(env, source, "en", **variables) == expected
    assert isinstance(_formatted(message, True, variables), Markup)
    assert _formatted(message, False, variables) == message % variables

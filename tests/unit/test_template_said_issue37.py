"""Issue 37: a fixed message in a template (`_("Save")`) is said through the `said` filter, which
Jinja calls directly, and says exactly what `_` said: the reader's language, trusted markup,
`%%` as `%`; messages with variables, `ngettext` and any other call stay calls."""

from __future__ import annotations

import pytest

from app.core.i18n import translations
from app.core.templating import _make_env


@pytest.fixture(scope="module")
def env():
    return _make_env()


def _draw(env, source: str, locale: str, **context) -> str:
    return env.from_string(source).render(translations=translations(locale), **context)


def test_issue37_a_fixed_message_compiles_to_the_said_filter_and_others_stay_calls(env):
    code = env.compile('{{ _("Save") }}|{{ gettext("Save") }}|{{ _("Hi %(n)s", n=1) }}|{{ ngettext("a", "b", 2) }}', raw=True)
    assert code.count("context.call(") == 2  # the message with a variable, and the plural
    assert "'Save'" in code and "filters['said']" in code


@pytest.mark.parametrize(("locale", "said"), [("en", "Save"), ("pl", "Zapisz")])
def test_issue37_the_filter_says_what_the_call_said_in_the_readers_language(env, locale, said):
    assert _draw(env, '{{ _("Save") }}', locale) == said
    assert _draw(env, '{{ _("Position x (%%)") }}', locale) == ("Position x (%)" if locale == "en" else "Pozycja x (%)")


def test_issue37_a_fixed_message_stays_trusted_markup_and_a_variable_stays_escaped(env):
    # The catalog's text is the project's own (it may hold an entity); what a user typed is not.
    assert _draw(env, '{{ _("a &amp; b") }}', "en") == "a &amp; b"
    assert _draw(env, '{{ _("Hi %(n)s", n=name) }}', "en", name="<b>") == "Hi &lt;b&gt;"
    assert _draw(env, '{% set x = _("Save") %}{{ x ~ "<" }}', "pl") == "Zapisz&lt;"

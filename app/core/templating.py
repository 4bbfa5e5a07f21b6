"""Jinja2 environment with new-style gettext bound to each request's language."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import BytecodeCache, Environment, FileSystemBytecodeCache, FileSystemLoader, pass_context, select_autoescape
from markupsafe import Markup, escape

from app.core import formats, spliced, template_said
from app.core.flash import take
from app.core.i18n import LOCALE_NAMES, LOCALES, translations
from app.core.markdown import render_markdown
from app.core.ports import Port
from app.core.settings import PACKAGE
from app.core.static import static_url
from app.core.template_output import OutputTemplate
from app.core.template_said import SaidEnvironment

# A message said without variables is the same text every time in one language: kept, it is
# one dictionary step instead of a catalog lookup, a Markup and a formatting (a page says some
# forty of them: issue 37). A message with variables keeps its catalog text. Keyed by the
# catalog object itself, never by a reusable id(); the messages are the templates' own.
_SAID: dict[tuple[Any, str, bool], str] = {}
_TEXTS: dict[tuple[Any, str], str] = {}
# Values a message writes as they are: nothing in them to escape, and `%d` needs the number.
_AS_IS = frozenset({int, float, bool, Markup})


# What jinja2.ext's new-style gettext does (markup-safe where autoescaping, always a format
# string, `num` for plurals), in one call instead of three: a page says a few hundred strings,
# and the layers between `_()` and the catalog were a tenth of drawing it (issue 37). Messages
# written with a literal reach it as the `said` filter (app/core/template_said.py).
@pass_context
def _say(ctx, message: str, /, **variables: Any) -> str:
    catalog, autoescape = ctx["translations"], ctx.eval_ctx.autoescape
    if not variables:
        key = (catalog, message, autoescape)
        said = _SAID.get(key)
        if said is None:
            said = _SAID[key] = _formatted(catalog.gettext(message), autoescape, {})
        return said
    text = _TEXTS.get((catalog, message))
    if text is None:
        text = _TEXTS[(catalog, message)] = catalog.gettext(message)
    return _formatted(text, autoescape, variables)


def _formatted(text: str, autoescape: bool, variables: dict[str, Any]) -> str:
    """`Markup(text) % variables` where autoescaping, with each variable escaped as Markup's `%`
    escapes it, but without its wrapper object per variable (a third of saying a message)."""
    if not autoescape:
        return text % variables
    return Markup(text % {k: v if type(v) in _AS_IS else escape(v) for k, v in variables.items()})


@pass_context
def _say_n(ctx, singular: str, plural: str, n: int, /, **variables: Any) -> str:
    variables.setdefault("num", n)
    return _formatted(ctx["translations"].ngettext(singular, plural, n), ctx.eval_ctx.autoescape, variables)


@pass_context
def _datetime(ctx, moment) -> str:
    """`moment|datetime`: date and time in the reader's language and time zone (core/formats.py)."""
    return formats.when(moment, ctx.get("locale", "en"), ctx.get("time_zone"))


@pass_context
def _date(ctx, moment) -> str:
    """`moment|date`: the day in the reader's language (a moment's day in the reader's zone)."""
    return formats.day(moment, ctx.get("locale", "en"), ctx.get("time_zone"))


@pass_context
def _number(ctx, value) -> str:
    """`n|number`: a number with the reader's separators."""
    return formats.number(value, ctx.get("locale", "en"))


@pass_context
def _take_flash(ctx) -> dict | None:
    """The message a form post left for this page (app/core/flash.py), shown once."""
    request = ctx.get("request")
    return take(request, ctx["translations"]) if request is not None else None


def add_globals(**names: Any) -> None:
    """Names a domain lends every template (phase names, catalog names…), registered by the
    domain's pages module, so that core imports no domain."""
    env.globals.update(names)


# Domains add to every page's context (the campaign's words of R8.2, the tabs' badges, the live
# stream), so that core imports no domain: a port, wired in app/wiring.py.
ContextHook = Callable[[dict], dict]
context_hooks = Port[ContextHook]("page context hooks")


def bytecode_cache(directory: str | None = None) -> BytecodeCache | None:
    """Compiled templates kept on disk for the next process (issue 37): compiling the hundred
    templates took each server worker, command and test worker about a second. Jinja's own
    directory is this user's private one under the temporary directory (it checks its owner
    and mode); a template's entry is looked up by its file and checked against its source.
    The environment's options are not in that key, so the file names carry a digest of this
    module, where they are set, and of the one that rewrites the fixed messages. No usable
    directory: templates are compiled as before."""
    options = Path(__file__).read_bytes() + Path(template_said.__file__).read_bytes()
    digest = hashlib.sha256(options).hexdigest()[:12]
    try:
        return _KeptTemplates(directory, pattern=f"hideout-{digest}-%s.cache")
    except (OSError, RuntimeError):
        return None


class _KeptTemplates(FileSystemBytecodeCache):
    def dump_bytecode(self, bucket) -> None:
        # A full disk, a size limit or a temporary directory cleaned away must not turn a
        # page into an error: the template was compiled and is used all the same.
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _make_env() -> Environment:
    env = SaidEnvironment(
        loader=FileSystemLoader(PACKAGE / "templates"),
        autoescape=select_autoescape(["html"]),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        # Compiled once per process, as static URLs are (app/core/static.py): an upgrade restarts
        # the server. Checking each template's file for changes cost a `stat` per template and
        # per include, 90 a page with a list of players (issue 37).
        auto_reload=False,
        bytecode_cache=bytecode_cache(),
    )
    env.template_class = OutputTemplate
    # What install_gettext_callables(newstyle=True) sets, with callables that format themselves.
    env.newstyle_gettext = True  # type: ignore[attr-defined]  # added by jinja2.ext.i18n: {% trans %} lets gettext format
    env.globals.update(_=_say, gettext=_say, ngettext=_say_n)
    env.filters[template_said.FILTER] = _say
    env.filters["markdown"] = render_markdown
    env.filters["pick"] = lambda keys, mapping: [mapping.get(k, "") for k in keys]
    env.filters["datetime"] = _datetime
    env.filters["date"] = _date
    env.filters["number"] = _number
    env.globals["take_flash"] = _take_flash
    env.globals["static"] = static_url
    env.globals["LOCALES"] = LOCALES
    env.globals["LOCALE_NAMES"] = LOCALE_NAMES
    env.globals["time_zone_names"] = formats.time_zone_names
    return env


env = _make_env()


def request_gettext(request: Request):
    return translations(getattr(request.state, "locale", "en")).gettext


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    state = request.state
    base = {
        "request": request,
        "translations": translations(getattr(state, "locale", "en")),
        "locale": getattr(state, "locale", "en"),
        "time_zone": getattr(getattr(state, "user", None), "time_zone", None),
        "user": getattr(state, "user", None),
        "csrf_token": getattr(state, "csrf_token", ""),
        "form_once": getattr(state, "form_once", ""),
    }
    base.update(context)
    for hook in context_hooks():
        base.update(hook(base))
    with spliced.drawing() as kept:
        html = env.get_template(template).render(base)
    parts = spliced.cut(html, kept)
    if parts:  # sent gzipped from its parts (app/core/spliced.py)
        setattr(state, spliced.STATE_KEY, parts)
        html = "".join(parts)
    return HTMLResponse(html, status_code=status_code)

"""Jinja2 environment with new-style gettext bound to each request's language."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape

from app.core.flash import take
from app.core.i18n import LOCALE_NAMES, LOCALES, translations
from app.core.markdown import render_markdown
from app.core.settings import ROOT
from app.core.static import static_url


@pass_context
def _gettext(ctx, message: str) -> str:
    return ctx["translations"].gettext(message)


@pass_context
def _ngettext(ctx, singular: str, plural: str, n: int) -> str:
    return ctx["translations"].ngettext(singular, plural, n)


@pass_context
def _take_flash(ctx) -> dict | None:
    """The message a form post left for this page (app/core/flash.py), shown once."""
    request = ctx.get("request")
    return take(request, ctx["translations"]) if request is not None else None


def add_globals(**names: Any) -> None:
    """Names a domain lends every template (phase names, catalog names…), registered by the
    domain's pages module, so that core imports no domain."""
    env.globals.update(names)


# Domains add to every page's context through hooks, so that core imports no domain
# (the campaigns domain registers the guild words of R8.2).
CONTEXT_HOOKS: list[Callable[[dict], dict]] = []


def add_context_hook(hook: Callable[[dict], dict]) -> None:
    if hook not in CONTEXT_HOOKS:
        CONTEXT_HOOKS.append(hook)


def _make_env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(ROOT / "templates"),
        autoescape=select_autoescape(["html"]),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_callables(_gettext, _ngettext, newstyle=True)
    env.filters["markdown"] = render_markdown
    env.filters["pick"] = lambda keys, mapping: [mapping.get(k, "") for k in keys]
    env.globals["take_flash"] = _take_flash
    env.globals["static"] = static_url
    env.globals["LOCALES"] = LOCALES
    env.globals["LOCALE_NAMES"] = LOCALE_NAMES
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
        "user": getattr(state, "user", None),
        "csrf_token": getattr(state, "csrf_token", ""),
    }
    base.update(context)
    for hook in CONTEXT_HOOKS:
        base.update(hook(base))
    html = env.get_template(template).render(base)
    return HTMLResponse(html, status_code=status_code)

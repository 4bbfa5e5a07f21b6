"""Jinja2 environment with new-style gettext bound to each request's language."""
from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape

from app.core.errors import message_for
from app.core.i18n import LOCALE_NAMES, LOCALES, translations
from app.core.markdown import render_markdown
from app.core.settings import ROOT


@pass_context
def _gettext(ctx, message: str) -> str:
    return ctx["translations"].gettext(message)


@pass_context
def _ngettext(ctx, singular: str, plural: str, n: int) -> str:
    return ctx["translations"].ngettext(singular, plural, n)


@pass_context
def _guild_word(ctx, term: str, plural: bool = False, capital: bool = False) -> str:
    from app.campaigns.terms import guild_word

    return guild_word(term, ctx["translations"].gettext, plural=plural, capital=capital)


@pass_context
def _mission_alliance_word(ctx, term: str, plural: bool = False) -> str:
    from app.campaigns.terms import mission_alliance_word

    return mission_alliance_word(term, ctx["translations"].gettext, plural=plural)


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
    from app.campaigns import rules, terms

    env.globals["PHASES"] = rules.PHASES
    env.globals["PHASE_NAMES"] = rules.PHASE_NAMES
    env.globals["STATUS_NAMES"] = rules.STATUS_NAMES
    env.globals["ADVICE_TEXTS"] = rules.ADVICE_TEXTS
    env.globals["MODULE_NAMES"] = terms.MODULE_NAMES
    env.globals["guild_word"] = _guild_word
    env.globals["mission_alliance_word"] = _mission_alliance_word
    from app.catalog import names
    from app.catalog.catalog import STATS

    env.globals.update(TYPE_NAMES=names.TYPE_NAMES, SLOT_NAMES=names.SLOT_NAMES, RARITY_NAMES=names.RARITY_NAMES,
                       ALIGNMENT_NAMES=names.ALIGNMENT_NAMES, STAT_KEYS=STATS, MODEL_STATUS_NAMES=names.MODEL_STATUS_NAMES)
    env.globals["LOCALES"] = LOCALES
    env.globals["LOCALE_NAMES"] = LOCALE_NAMES
    return env


env = _make_env()


def request_gettext(request: Request):
    return translations(getattr(request.state, "locale", "en")).gettext


def error_message(request: Request, code: str, params: dict | None = None) -> str:
    return message_for(code, params or {}, request_gettext(request))


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
    html = env.get_template(template).render(base)
    return HTMLResponse(html, status_code=status_code)

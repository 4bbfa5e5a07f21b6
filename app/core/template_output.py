"""What a template writes for `{{ value }}` (issue 37): the same text as Jinja's own escaping, for
less. Jinja sends every value a template writes through markupsafe's `escape`, which wraps its
answer in a new Markup each time (another Python constructor); a list of forty players writes
some fifteen hundred values, a tenth of drawing the page. A written value is only ever joined
into the page, or into a macro's, a block's or a `{% set %}` block's text, which Jinja itself
marks safe when it ends, so it needs the escaped text, not a Markup: a string is escaped by
markupsafe's own escaping function, a whole number is its digits, a Markup is already safe,
anything else goes through `escape` as before. Only the name a compiled template writes with is
changed (`escape` in its module, which `{{ }}` and nothing else uses: jinja2/compiler.py);
filters, `|e`, Markup's `%` and every other use of escaping keep markupsafe's.
"""

from __future__ import annotations

import functools
from collections import ChainMap
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from jinja2 import Template
from jinja2.runtime import Context, new_context

# `_escape_inner`: markupsafe's escaping of a plain string without the Markup around it, the C
# function behind `escape`, under the name markupsafe itself imports it by (pinned in
# pyproject.toml; a test compares `written` with `escape`, so an upgrade that changes it fails there).
from markupsafe import Markup, _escape_inner, escape


def written(value: Any, /) -> str:
    """The text `{{ value }}` writes: `str(escape(value))`, without building a Markup."""
    kind = type(value)
    if kind is str:
        return _escape_inner(value)
    if kind is int:
        return str(value)  # digits and a sign: nothing to escape
    if kind is Markup:
        return value
    return escape(value)


def _flat(globals: Mapping[str, Any]) -> Mapping[str, Any]:
    """A template's globals as one dict, as Jinja's ChainMap of them reads (the template's own
    over the environment's). Jinja copies the globals into every context it makes, twice (the
    context's values, then their names), and a ChainMap copies a name at a time in Python: 27
    globals took 26 us a context, and a page makes four to seven (the page, each module imported
    with context, each include), issue 37. The copy is made at each context, as Jinja makes it."""
    if type(globals) is ChainMap and len(globals.maps) == 2:
        own, shared = globals.maps
        return {**shared, **own}
    return globals


# The contexts made while a page is drawn, emptied once it is drawn: a macro imported with
# context closes over its module's context, which holds the page's values (the request, the
# viewer, its rows), so the page's whole drawing was a reference cycle that only the garbage
# collector's passes freed, after walking it (some 200 objects a page, issue 37).
_MADE: ContextVar[list[Context] | None] = ContextVar("hideout_template_contexts", default=None)


class OutputTemplate(Template):
    """A template whose `{{ }}` writes through `written`, whose render function and blocks
    yield their text in one piece (`_joined`), and whose drawing leaves no cycle holding the
    page's values."""

    def new_context(self, vars=None, shared=False, locals=None):  # type: ignore[no-untyped-def]
        context = new_context(self.environment, self.name, self.blocks, vars, shared, _flat(self.globals), locals)
        made = _MADE.get()
        if made is not None and vars is not None:  # without vars: a module Jinja keeps, no page values
            made.append(context)
        return context

    def render(self, *args: Any, **kwargs: Any) -> str:
        if _MADE.get() is not None:
            return super().render(*args, **kwargs)
        made: list[Context] = []
        token = _MADE.set(made)
        try:
            return super().render(*args, **kwargs)
        finally:
            _MADE.reset(token)
            for context in made:
                context.vars.clear()
                context.parent.clear()

    @classmethod
    def _from_namespace(cls, environment, namespace, globals):  # type: ignore[no-untyped-def]
        # The compiled module has bound `escape` from jinja2.runtime; its render functions look
        # the name up in this namespace at each call, whether compiled now or read from the
        # bytecode cache.
        namespace["escape"] = written
        namespace["root"] = _joined(namespace["root"])
        blocks = namespace["blocks"] = {name: _joined(block) for name, block in namespace["blocks"].items()}
        # `super()` finds a block by its function as the module names it (`block_<name>`).
        namespace.update({f"block_{name}": block for name, block in blocks.items()})
        return super()._from_namespace(environment, namespace, globals)


def _joined(render: Callable[..., Iterator[str]]) -> Callable[[Context], Iterator[str]]:
    """A template's or a block's render function that yields its text as one piece. Jinja yields
    each piece a template writes, and a piece of a block four templates deep (a page's block in
    the campaign layout's, in the base's, with the page's template extending them) is passed
    up through every one of their generators: a list of forty players writes some eleven
    hundred pieces, and passing them up was a tenth of drawing the page (issue 37). Joined
    where it is written, each piece is resumed once; the text and the order in which the
    template's statements run are the same."""

    @functools.wraps(render)
    def joined(context: Context) -> Iterator[str]:
        yield "".join(render(context))

    return joined

"""Fixed messages said as filters (issue 37): `{{ _("Save") }}` compiles to `{{ "Save"|said }}`.

Jinja sends every call written in a template through `Context.call`, which inspects the callee
each time (a few microseconds): a list of forty players said some four hundred fixed messages, a
third of drawing the page. A filter is called directly. The rewrite touches only `_` and
`gettext` called with one literal string and, at most, named variables
(`_("round %(n)s", n=r)` becomes `"round %(n)s"|said(n=r)`); the filter says it as `_` would
(app/core/templating.py), in the reader's language, a fixed message kept per catalog. Plurals,
`{% trans %}` blocks and calls with anything else are left as they are, and so is the template
source that Babel's extraction reads.
"""

from __future__ import annotations

from jinja2 import Environment, nodes
from jinja2.visitor import NodeTransformer

SAY_NAMES = ("_", "gettext")
FILTER = "said"


class _FixedMessages(NodeTransformer):
    def visit_Call(self, node: nodes.Call) -> nodes.Node:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if (
            isinstance(node.node, nodes.Name)
            and node.node.name in SAY_NAMES
            and len(node.args) == 1
            and isinstance(node.args[0], nodes.Const)
            and isinstance(node.args[0].value, str)
            and node.dyn_args is None
            and node.dyn_kwargs is None
        ):
            return nodes.Filter(node.args[0], FILTER, [], node.kwargs, None, None, lineno=node.lineno)
        return node


class SaidEnvironment(Environment):
    """An environment whose templates say their fixed messages through the `said` filter."""

    def _parse(self, source, name, filename):  # type: ignore[no-untyped-def]
        return _FixedMessages().visit(super()._parse(source, name, filename))

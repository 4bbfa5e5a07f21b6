"""Which included routers a request's path can reach, found in a few dictionary steps (issue 37).

FastAPI tries the app's included routers in turn, and each tries its routes in turn with its
own bookkeeping: about 300 routes, so a page near the end of the list (every page, since the
API routers come first) paid for some 200 regular-expression matches before its own, about a
millisecond a request. The index is a trie over path segments (a literal segment, or `*` for
a parameter) built once from every router's routes. A router none of whose routes has the
request's shape answers "no match" without looking; every other router is asked as before, in
the same order, so what matches, what is a 405 and what is redirected stay FastAPI's answer.
A router with a route whose parameter spans segments (`{name:path}`) is always asked.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.routing import _IncludedRouter
from starlette._utils import get_route_path
from starlette.routing import BaseRoute, Match, Mount

_SCOPE_KEY = "hideout.route_index"


class _Node:
    __slots__ = ("literal", "parameter", "routers")

    def __init__(self) -> None:
        self.literal: dict[str, _Node] = {}
        self.parameter: _Node | None = None
        self.routers: set[int] = set()


class RouteIndex:
    def __init__(self) -> None:
        self.root = _Node()

    def add(self, path_format: str, router: int) -> None:
        node = self.root
        for segment in path_format.split("/"):
            if "{" in segment:  # "{id}", "{id:int}" or "x{id}": one segment, any text (a superset)
                node.parameter = node.parameter or _Node()
                node = node.parameter
            else:
                node = node.literal.setdefault(segment, _Node())
        node.routers.add(router)

    def routers_for(self, path: str) -> frozenset[int]:
        nodes = [self.root]
        for segment in path.split("/"):
            following = []
            for node in nodes:
                if (child := node.literal.get(segment)) is not None:
                    following.append(child)
                if node.parameter is not None:
                    following.append(node.parameter)
            if not following:
                return frozenset()
            nodes = following
        return frozenset().union(*(node.routers for node in nodes))


def included_paths(router: _IncludedRouter) -> list[tuple[BaseRoute, str]] | None:
    """Each of an included router's routes with its full path (the include's prefix and the
    route's own, convertors and all); None when a route is itself an included router or a mount.

    Read off the router's own routes, not FastAPI's per-app copies of them
    (`effective_candidates`): building those analyses every endpoint's signature again, 1.4 s
    for the whole app. Asked for here, every app paid it at its creation, and every server and
    test app that answers a few requests only paid it for routers it never used; asked for
    lazily, FastAPI builds a router's copies when a request first reaches that router."""
    context = router.include_context
    found = []
    for route in router.original_router.routes:
        if isinstance(route, _IncludedRouter | Mount) or not hasattr(route, "path"):
            return None
        found.append((route, context.path_for(route)))  # type: ignore[arg-type]
    return found


def _path_formats(router: _IncludedRouter) -> list[str] | None:
    """Every route's full path; None when one has a parameter that may span segments."""
    paths = included_paths(router)
    if paths is None or any(":path}" in path for _, path in paths):
        return None
    return [path for _, path in paths]


def install(app: FastAPI) -> RouteIndex:
    """Guard each of the app's included routers with the index (after every route is added)."""
    index = RouteIndex()
    for position, route in enumerate(app.router.routes):
        if not isinstance(route, _IncludedRouter) or (formats := _path_formats(route)) is None:
            continue
        for path_format in formats:
            index.add(path_format, position)
        route.matches = _guarded(route.matches, position, index)  # type: ignore[method-assign]
    return index


# A router the request cannot reach answers this: the same (constant) answer for every request,
# since the router tries no route and nobody changes a NONE match's scope.
_NO_MATCH: tuple[Match, dict] = (Match.NONE, {})


def _guarded(matches, position: int, index: RouteIndex):
    def guarded_matches(scope):
        # The routers reached are worked out once for a path and kept on the scope for that
        # path only (the slash redirect asks again with another path): most of the fifty routers
        # a page passes on its way to its own only look here (issue 37).
        path = scope["path"] if not scope.get("root_path") else get_route_path(scope)
        known = scope.get(_SCOPE_KEY)
        if known is None or known[0] != path:
            known = scope[_SCOPE_KEY] = (path, index.routers_for(path))
        if position in known[1]:
            return matches(scope)
        return _NO_MATCH

    guarded_matches.unguarded = matches  # type: ignore[attr-defined]
    return guarded_matches

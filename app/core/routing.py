"""A literal path segment names a resource, never an id (issue 32's fuzzing): `PATCH
/places/bulk` is a method the bulk route does not take — 405 with its Allow header — not the
place "bulk" of `PATCH /places/{pid}` (a 404), nor a refusal of an Idempotency-Key that was
meant for the bulk route. The routes of the OpenAPI document are read once per app."""

from __future__ import annotations

import re
from collections.abc import Iterator

from fastapi import Request
from fastapi.routing import APIRoute, _IncludedRouter
from starlette.routing import BaseRoute, compile_path

from app.core.route_index import included_paths


def _schema_routes(app) -> Iterator[tuple[BaseRoute, str]]:
    """Every route the OpenAPI document may show, with its full path."""
    for entry in app.router.routes:
        if not isinstance(entry, _IncludedRouter):
            yield entry, getattr(entry, "path", "")
            continue
        paths = included_paths(entry)
        if paths is None:  # no router of the app holds another; were one to, this would say so
            raise TypeError(f"api_operations cannot read the routes under {entry.include_context.prefix!r}")
        if entry.include_context.include_in_schema:
            yield from paths


def api_operations(app) -> dict[str, set[str]]:
    """Every path of the OpenAPI document with its methods, read off the routes themselves:
    generating the document costs a worker 10 MB it then keeps (issue 37), and a write asks
    this (app/archive/deps.py). The same paths and methods as `app.openapi()` (tested)."""
    found: dict[str, set[str]] = {}
    for route, path in _schema_routes(app):
        if isinstance(route, APIRoute) and route.include_in_schema:
            found.setdefault(compile_path(path)[1], set()).update(m for m in route.methods or () if m != "HEAD")
    return found


def _templates(app) -> list[tuple[re.Pattern, int, frozenset[str]]]:
    cached = getattr(app.state, "literal_templates", None)
    if cached is None:
        cached = []
        for path, operations in api_operations(app).items():
            parts = path.split("/")
            pattern = "/".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts)
            params = sum(part.startswith("{") for part in parts)
            cached.append((re.compile(f"^{pattern}$"), params, frozenset(m.upper() for m in operations)))
        app.state.literal_templates = cached
    return cached


def allowed_methods(request: Request) -> frozenset[str] | None:
    """Every documented method of the most literal API route of this path (None: no route)."""
    found = [(params, methods) for pattern, params, methods in _templates(request.app) if pattern.match(request.url.path)]
    if not found:
        return None
    fewest = min(params for params, _ in found)
    return frozenset().union(*(methods for params, methods in found if params == fewest))


def refused_method(request: Request) -> frozenset[str] | None:
    """The methods to name in a 405 when the most literal route of this path does not take this
    request's method; None otherwise."""
    methods = allowed_methods(request)
    return methods if methods and request.method not in methods else None

"""A literal path segment names a resource, never an id (issue 32's fuzzing): `PATCH
/places/bulk` is a method the bulk route does not take — 405 with its Allow header — not the
place "bulk" of `PATCH /places/{pid}` (a 404), nor a refusal of an Idempotency-Key that was
meant for the bulk route. The routes of the OpenAPI document are read once per app."""

from __future__ import annotations

import re

from fastapi import Request


def _templates(app) -> list[tuple[re.Pattern, int, frozenset[str]]]:
    cached = getattr(app.state, "literal_templates", None)
    if cached is None:
        cached = []
        for path, operations in app.openapi()["paths"].items():
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

"""A page's route whose parameters are its ids in the path and optional query parameters,
answered without FastAPI's solving of them when the request names none of those (issue 37).

FastAPI answers each request through its request handler: it solves the route's dependencies
and validates its parameters with pydantic, whatever the route takes. A campaign page takes the
request, the ids in its path and at most a few optional query parameters (its context is made
by the route itself: app/campaigns/deps.py), and the handler's work on those cost every page
more than reading them: measured in one process, a campaign page that answers at once cost
10-15 % less through a bare Starlette route than through FastAPI's.

Such a route's handler here reads each id as FastAPI would when it is plain digits within an
id's bounds (`PathId`), gives each query parameter the request does not name its default (as
FastAPI does, without validating it), runs the checks FastAPI would have run before the route
(the app's own dependencies, named by the caller, app/main.py) in the same order, and calls the
route. Any other request (an id with a sign, a space or out of bounds, a query parameter named)
goes to FastAPI's own handler, so that every value is FastAPI's reading, and every refusal its
answer, word for word.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, get_origin

from fastapi import Request, params
from fastapi.routing import APIRoute
from starlette.responses import Response

from app.core.types import MAX_ID, PathId

Check = Callable[[Request], Awaitable[None]]
_DIGITS = len(str(MAX_ID))
_LEAN = "hideout_lean_ids"
_UNCHANGING = (type(None), bool, int, float, str)
_PLAIN = (bool, int, float, str, bool | None, int | None, float | None, str | None)


def install(route: APIRoute, checks: tuple[Check, ...]) -> bool:
    """Answer `route` by the lean handler where it takes only the request, ids in its path and
    optional query parameters, and no dependency of its own; `checks` must be every dependency
    the app and its include add to the route. Whether it is answered so. Decided once per
    route, lean or not: the routers are the modules' own, and every app made includes them again."""
    if hasattr(route, _LEAN):
        return getattr(route, _LEAN) is not None
    plan = _plan(route)
    setattr(route, _LEAN, plan)
    if plan is None:
        return False
    ids, defaults = plan
    endpoint, full_handler = route.endpoint, route.get_route_handler

    def get_route_handler() -> Callable[[Request], Awaitable[Response]]:
        # FastAPI asks once for each app that includes the route, with that app's view of it.
        full = full_handler()

        async def lean(request: Request) -> Response:
            if defaults and any(key in request.query_params for key, _ in defaults.values()):
                return await full(request)
            found = request.path_params
            values = {name: _id(found.get(name)) for name in ids}
            if None in values.values():
                return await full(request)
            values.update({name: default for name, (_key, default) in defaults.items()})
            for check in checks:
                await check(request)
            answer = await endpoint(request, **values)
            if not isinstance(answer, Response):
                raise TypeError(f"{route.path}: a page's route answers with a Response")
            return answer

        return lean

    route.get_route_handler = get_route_handler  # type: ignore[method-assign,assignment]
    return True


def _plan(route: APIRoute) -> tuple[tuple[str, ...], dict[str, tuple[str, Any]]] | None:
    """The names of the route's ids in its path, and of its query parameters with the key each
    is named by in a query and its default; None unless those and the request are all it takes."""
    if route.dependencies:
        return None
    try:  # annotations written as text are read as the route's module reads them
        parameters = list(inspect.signature(route.endpoint, eval_str=True).parameters.values())
    except NameError:
        return None
    if not parameters or parameters[0].name != "request" or parameters[0].annotation is not Request:
        return None
    ids, defaults = [], {}
    for parameter in parameters[1:]:
        if parameter.annotation == PathId and "{" + parameter.name + "}" in route.path:
            ids.append(parameter.name)
        elif (query := _optional_query(parameter)) is not None:
            defaults[parameter.name] = query
        else:
            return None
    return (tuple(ids), defaults) if ids else None


def _optional_query(parameter: inspect.Parameter) -> tuple[str, Any] | None:
    """A query parameter with a default that nothing can change (FastAPI hands out a copy of
    each default; these need none): declared `= Query(default, ...)`, or a plain default of a
    plain type (`box: str = "in"`). Its key in a query and its default."""
    declared = parameter.default
    if type(declared) in _UNCHANGING:  # FastAPI reads a plain type's parameter from the query
        return (parameter.name, declared) if parameter.annotation in _PLAIN else None
    if not isinstance(declared, params.Query) or declared.default_factory is not None:
        return None
    key = declared.alias or parameter.name
    if declared.validation_alias not in (None, key):  # pydantic gives an alias as both
        return None
    if type(declared.default) not in _UNCHANGING or get_origin(parameter.annotation) is Annotated:
        return None
    return key, declared.default


def _id(value: object) -> int | None:
    """An id from its text in the path, as `PathId` reads it; None for any text that is not
    plain digits within its bounds (FastAPI's handler answers those)."""
    if type(value) is not str or not (0 < len(value) <= _DIGITS) or not value.isascii() or not value.isdigit():
        return None
    number = int(value)
    return number if 1 <= number <= MAX_ID else None

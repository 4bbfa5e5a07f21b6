"""The route index (app/core/route_index.py, issue 37) only skips routers that could not match:
for every route of the app, with its parameters filled in and with junk paths beside, each
included router answers exactly as FastAPI's own matching does."""

from __future__ import annotations

import re

import pytest
from fastapi.routing import _IncludedRouter
from fastapi.testclient import TestClient
from starlette.routing import Match

from app.core.route_index import RouteIndex
from app.core.routing import api_operations
from app.main import create_app

pytestmark = pytest.mark.markup


def _sample_paths(app) -> list[str]:
    paths = set()
    for route in app.router.routes:
        if isinstance(route, _IncludedRouter):
            for candidate in route.effective_candidates():
                path = re.sub(r"\{[^}]+\}", "7", candidate.path_format)
                paths.update({path, path + "/", path.rstrip("/") + "/extra", path.replace("7", "x", 1)})
    paths.update({"/", "", "/nowhere", "/campaigns", "/campaigns/", "/api/v1", "/api/v1/", "//campaigns/7", "/static/x.css"})
    return sorted(paths)


def _scope(path: str, method: str) -> dict:
    return {"type": "http", "method": method, "path": path, "root_path": "", "headers": [], "query_string": b""}


def test_every_router_answers_as_fastapi_does(app):
    guarded = [route for route in app.router.routes if hasattr(getattr(route, "matches", None), "unguarded")]
    assert len(guarded) > 40, "the index guards the app's included routers"
    for path in _sample_paths(app):
        for method in ("GET", "POST", "PATCH"):
            for route in guarded:
                fast, slow = route.matches(_scope(path, method)), route.matches.unguarded(_scope(path, method))
                assert fast[0] == slow[0], (path, method)


def test_the_index_never_leaves_out_the_router_that_matches(app):
    routers = {id(route): position for position, route in enumerate(app.router.routes)}
    found = 0
    for path in _sample_paths(app):
        scope = _scope(path, "GET")
        for route in app.router.routes:
            unguarded = getattr(route.matches, "unguarded", route.matches)
            if unguarded(dict(scope))[0] is Match.FULL:
                assert route.matches(dict(scope))[0] is Match.FULL, (path, routers[id(route)])
                found += 1
                break
    assert found > 100


@pytest.mark.parametrize(
    "path, expected",
    [
        ("/campaigns/7/map", {1}),
        ("/campaigns/new", {0, 2}),
        ("/campaigns/7", {2}),
        ("/campaigns/7/map/extra", {3}),
        ("/campaigns/7/map/extra/more", set()),
        ("", set()),
    ],
)
def test_a_literal_segment_or_a_parameter(path, expected):
    index = RouteIndex()
    index.add("/campaigns/new", 0)
    index.add("/campaigns/{cid}/map", 1)
    index.add("/campaigns/{name:str}", 2)
    index.add("/campaigns/{cid}/map/{pid}", 3)
    assert index.routers_for(path) == expected


def test_the_api_operations_are_the_openapi_documents(app):
    """app/core/routing.py reads the API's paths and methods off the routes (generating the
    OpenAPI document costs a worker 10 MB it keeps, issue 37): the same as the document's."""
    document = {path: {m.upper() for m in operations} for path, operations in app.openapi()["paths"].items()}
    assert api_operations(app) == document and len(document) > 100


def test_a_new_app_builds_a_routers_copies_only_when_a_request_reaches_it(settings):
    """FastAPI copies an included router's routes for each app, analysing every endpoint again
    (1.4 s for the whole app). The index and the API's operations read the routers' own routes,
    so creating an app builds none of them, and a page builds only its own router's."""

    def built(app) -> list[str]:
        return [
            route.include_context.prefix + str(route.original_router.routes[0].path)
            for route in app.router.routes
            if isinstance(route, _IncludedRouter) and route._effective_candidates_version is not None
        ]

    fresh = create_app(settings)
    assert built(fresh) == []
    assert len(api_operations(fresh)) > 100 and built(fresh) == []
    with TestClient(fresh) as client:
        assert client.get("/login").status_code == 200
    assert 1 <= len(built(fresh)) <= 3, built(fresh)

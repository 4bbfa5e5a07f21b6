"""Issue 37: a page's route that takes only the request, ids in its path and optional query
parameters is answered without FastAPI's solving of them when the request names no query
parameter of it (app/core/lean_routes.py): the same page, the same refusals before the route
(R11.5, R11.6), and every other request FastAPI's own answer, word for word."""

from __future__ import annotations

import inspect
import re

import pytest
from fastapi import APIRouter, Depends, Query, Request
from fastapi.routing import APIRoute

from app.core import lean_routes
from app.core.types import PathId
from app.main import PAGE_MODULES, create_app
from tests.builders.campaigns import running_campaign, running_trio
from tests.builders.pages import browser, post
from tests.web.test_transfer_pages import transfers_in_db


@pytest.fixture
def answered_by(monkeypatch) -> list[str]:
    """Which handler answered each request: "lean", or "fastapi" where the lean one handed over."""
    seen: list[str] = []
    real = lean_routes._id

    def read(value):
        found = real(value)
        seen.append("lean" if found is not None else "fastapi")
        return found

    monkeypatch.setattr(lean_routes, "_id", read)
    return seen


def _player(client, make_client):
    _gm, cid, _players, _places = running_campaign(client, 2)
    anna = browser(make_client, "player0")
    anna.get("/")  # the login's flash message, shown once
    return anna, cid


TABS = ("", "/players", "/orders", "/battles", "/chronicle", "/map", "/company", "/shop", "/rules", "/events", "/ledger")


def _pages(browser, cid) -> dict[str, tuple[int, str]]:
    return {tab: (r.status_code, r.text) for tab in TABS for r in [browser.get(f"/campaigns/{cid}{tab}")]}


def test_issue37_a_campaign_page_is_the_same_page_by_either_handler(client, make_client, monkeypatch):
    anna, cid = _player(client, make_client)
    lean = _pages(anna, cid)
    monkeypatch.setattr(lean_routes, "_id", lambda value: None)
    assert _pages(anna, cid) == lean
    assert all(status == 200 for status, _ in lean.values())


def test_issue37_the_round_s_pages_are_answered_by_the_lean_handler(client, make_client, answered_by):
    anna, cid = _player(client, make_client)
    for tab in TABS:
        answered_by.clear()
        assert anna.get(f"/campaigns/{cid}{tab}?unrelated=1").status_code == 200
        assert answered_by == ["lean"], tab  # a query parameter the page does not take is ignored, as by FastAPI


@pytest.mark.parametrize("path", ["+1", "%201", "0", "2147483648", "99999999999999999999999", "1.0", "x", "١"])
def test_issue37_an_id_fastapi_reads_otherwise_is_fastapi_s_answer(client, make_client, answered_by, path, monkeypatch):
    anna, _cid = _player(client, make_client)
    lean = anna.get(f"/campaigns/{path}/players")
    assert answered_by == ["fastapi"]
    monkeypatch.setattr(lean_routes, "_id", lambda value: None)
    full = anna.get(f"/campaigns/{path}/players")
    assert (lean.status_code, lean.text) == (full.status_code, full.text)  # FastAPI's reading ("+1" is 1), or its refusal


def test_issue37_a_query_parameter_named_is_fastapi_s_to_read(client, make_client, answered_by):
    anna, cid = _player(client, make_client)
    refused = anna.get(f"/campaigns/{cid}/battles?round=x")
    assert answered_by == []  # handed over before any id was read
    assert refused.status_code in (400, 422)
    for named in ("battles?round=1", "chronicle?page=1", "ledger?page=1"):  # the ledger's `number`, by its alias
        assert anna.get(f"/campaigns/{cid}/{named}").status_code == 200, named
    assert answered_by == []
    assert anna.get(f"/campaigns/{cid}/ledger?number=1").status_code == 200  # not its key: ignored, as by FastAPI
    assert answered_by == ["lean"]


def test_r11_5_a_nul_in_the_query_of_a_lean_page_is_refused_before_the_route(client, make_client, answered_by, monkeypatch):
    anna, cid = _player(client, make_client)
    refused = anna.get(f"/campaigns/{cid}/players?x=%00")
    assert answered_by == ["lean"]
    monkeypatch.setattr(lean_routes, "_id", lambda value: None)
    by_fastapi = anna.get(f"/campaigns/{cid}/players?x=%00")
    assert refused.status_code == 422 and (refused.status_code, refused.text) == (by_fastapi.status_code, by_fastapi.text)
    assert "Text may not contain NUL characters." in refused.text and "player1" not in refused.text  # not the list


def test_r11_6_a_form_tapped_twice_on_a_lean_page_acts_once(client, make_client, engine, answered_by):
    """The transfer form's one-time key (R11.6) through a lean route: the same form posted
    twice sends once, the second tap answered with the first answer."""
    _gm, cid, (_anna, borys, _c) = running_trio(client)
    anna = browser(make_client, "anna")
    form = anna.get(f"/campaigns/{cid}/transfers/new").text
    once = re.search(r'name="once" value="(\d+)"', form).group(1)
    body = {"to_player_id": str(borys["player_id"]), "amount": "5", "note": "lean", "confirm": "1", "once": once}
    answered_by.clear()
    first = post(anna, f"/campaigns/{cid}/transfers", body, token_from=f"/campaigns/{cid}/transfers/new")
    again = post(anna, f"/campaigns/{cid}/transfers", body, token_from=f"/campaigns/{cid}/transfers/new")
    assert answered_by[0] == "lean"  # the first tap reached the route through the lean handler
    assert (
        (first.status_code, first.headers["location"])
        == (again.status_code, again.headers["location"])
        == (
            303,
            f"/campaigns/{cid}/ledger",
        )
    )
    assert again.headers.get("idempotent-replayed") == "true" and "idempotent-replayed" not in first.headers
    assert transfers_in_db(engine) == 1


def _route(path: str, endpoint, dependencies=()) -> APIRoute:
    router = APIRouter()
    router.add_api_route(path, endpoint, dependencies=list(dependencies))
    return router.routes[0]  # type: ignore[return-value]


async def _nothing(request: Request) -> None:
    return None


def test_issue37_only_routes_of_the_request_ids_and_optional_queries_are_lean():
    async def ids(request: Request, cid: PathId, wid: PathId):
        return None

    async def optional(request: Request, cid: PathId, page: int = Query(1), of: int | None = Query(None)):
        return None

    async def required(request: Request, cid: PathId, page: int = Query()):
        return None

    async def plain(request: Request, cid: int):
        return None

    async def aliased(request: Request, cid: PathId, number: int = Query(1, ge=1, alias="page"), box: str = "in"):
        return None

    async def other_alias(request: Request, cid: PathId, number: int = Query(1, validation_alias="p")):
        return None

    async def odd_plain(request: Request, cid: PathId, when: tuple = ()):
        return None

    async def listed(request: Request, cid: PathId, tags: list[str] = Query([])):
        return None

    async def no_request(cid: PathId):
        return None

    async def depends(request: Request, cid: PathId, x: int = Depends(lambda: 1)):
        return None

    assert lean_routes._plan(_route("/c/{cid}/w/{wid}", ids)) == (("cid", "wid"), {})
    assert lean_routes._plan(_route("/c/{cid}", optional)) == (("cid",), {"page": ("page", 1), "of": ("of", None)})
    # An alias is the key a query names; a plain default of a plain type is a query parameter too.
    assert lean_routes._plan(_route("/c/{cid}", aliased)) == (("cid",), {"number": ("page", 1), "box": ("box", "in")})
    for path, endpoint in (
        ("/c/{cid}", required),
        ("/c/{cid}", plain),
        ("/c/{cid}", listed),
        ("/c/{cid}", no_request),
        ("/c/{cid}", depends),
    ):
        assert lean_routes._plan(_route(path, endpoint)) is None, endpoint.__name__
    assert lean_routes._plan(_route("/c", ids)) is None  # ids that are not in the path are queries
    assert lean_routes._plan(_route("/c/{cid}/w/{wid}", ids, [Depends(_nothing)])) is None


def test_issue37_most_campaign_pages_are_lean():
    """The campaign's tabs are answered so; the count keeps a refactoring from losing them unseen."""
    lean = [
        route
        for module in PAGE_MODULES
        for route in module.router.routes
        if isinstance(route, APIRoute) and getattr(route, "hideout_lean_ids", None)
    ]
    paths = {route.path for route in lean}
    for tab in TABS:
        assert f"/campaigns/{{cid}}{tab}" in paths, tab
    assert len(lean) >= 100
    for route in lean:
        assert next(iter(inspect.signature(route.endpoint).parameters)) == "request"


def test_issue37_each_route_is_planned_once_whatever_the_apps_made(monkeypatch):
    """The routers are the modules' own: an app made again plans none of their routes again,
    those left to FastAPI included."""
    create_app()
    planned: list[str] = []
    real = lean_routes._plan
    monkeypatch.setattr(lean_routes, "_plan", lambda route: planned.append(route.path) or real(route))
    create_app()
    assert planned == []

"""Issue 37: a page's unit of work is committed and closed in the route's own worker thread once
the route has answered (`app.core.db.ended_in_route`): one thread hop fewer a request, with
the same answers — a commit that fails there still answers 503, rolls back and frees its
connection, and a route answering with table rows FastAPI serialises afterwards keeps its
session open until then. An API route's answer of plain models is ended there too, and
validated where FastAPI runs the route, which its wrapper makes asynchronous to FastAPI."""

from __future__ import annotations

import inspect
import re
from datetime import UTC, datetime

import anyio
import anyio.to_thread
import pytest
from fastapi import Request
from fastapi.dependencies.utils import get_dependant
from fastapi.routing import APIRoute
from sqlalchemy import exc as sa_exc
from sqlalchemy import text
from sqlmodel import Session

from app.accounts.deps import page_login_required, page_user
from app.accounts.models import User
from app.campaigns import pages as dashboard_pages
from app.campaigns.deps import campaign_page
from app.campaigns.schemas import PlayerOut
from app.core import db
from app.core.types import PathId
from app.main import API_MODULES, PAGE_MODULES, create_app
from tests.builders.campaigns import running_campaign
from tests.builders.pages import login, register


@pytest.fixture
def hops(monkeypatch):
    """Counts the request's crossings into the worker threads."""
    crossings = []
    real = anyio.to_thread.run_sync

    async def counted(func, *args, **kwargs):
        crossings.append(func)
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    return crossings


def _player(client, make_client):
    _gm, cid, _players, _places = running_campaign(client, 2)
    anna = make_client()
    login(anna, "player0")
    anna.get("/")  # the login's flash message
    return anna, cid


def test_issue37_a_campaign_page_crosses_into_a_worker_thread_once(client, make_client, hops):
    anna, cid = _player(client, make_client)
    hops.clear()
    page = anna.get(f"/campaigns/{cid}")
    assert page.status_code == 200 and "<h1" in page.text
    # The route itself: its login is read in the route's thread before it (it was a synchronous
    # dependency's crossing of its own), and the unit of work ended there (once a third).
    assert len(hops) == 1, hops


def test_issue37_a_commit_failing_in_the_routes_thread_answers_503_and_frees_its_connection(
    client, make_client, engine, monkeypatch
):
    anna, cid = _player(client, make_client)
    real_commit = Session.commit
    failures = []

    def refused(self):
        failures.append(self)
        raise sa_exc.OperationalError("COMMIT", {}, Exception("disk I/O error"))

    monkeypatch.setattr(Session, "commit", refused)
    answer = anna.get(f"/campaigns/{cid}")
    monkeypatch.setattr(Session, "commit", real_commit)
    # database_unavailable's answer (app/error_handlers.py), not a 500 from ending the unit of
    # work a second time.
    assert answer.status_code == 503, answer.text[:300]
    assert len(failures) == 1
    assert engine.pool.checkedout() == 0
    assert anna.get(f"/campaigns/{cid}").status_code == 200


def test_issue37_an_api_answer_of_plain_models_is_ended_and_validated_without_crossings_of_its_own(client, hops):
    gm, cid, _players, _places = running_campaign(client, 2)
    hops.clear()
    r = client.get(f"/api/v1/campaigns/{cid}", headers=gm)
    assert r.status_code == 200 and r.json()["id"] == cid and r.json()["players"]
    # Who asks (a synchronous dependency) and the route; its unit of work ended in the route's
    # thread, and FastAPI validated the answer where it ran (the route is asynchronous to it).
    names = [getattr(getattr(f, "func", f), "__name__", "") for f in hops]
    assert len(hops) == 2 and "__exit__" not in names and "validate" not in names, hops


def test_issue37_only_an_answer_serialised_without_the_session_ends_it_in_the_route():
    """Table rows may still load attributes through the session while FastAPI serialises them:
    their unit of work is left to get_session, as before."""
    plain = PlayerOut(player_id=1, nickname="anna", hideouts=[], places=[], joined_at=datetime.now(UTC))
    assert db._detached(None) and db._detached(plain) and db._detached([plain, plain]) and db._detached([])
    row = User(nickname="anna", nickname_key="anna", password_hash="x")
    assert not db._detached(row) and not db._detached([plain, row]) and not db._detached({"a": plain})


def test_issue37_a_second_app_wraps_each_route_once(settings):
    """The routers belong to their modules: every app built in one process (the suite builds
    many) wraps the same route objects, and must not wrap them again."""
    create_app(settings)
    create_app(settings)
    wrapped = [route.endpoint for route in dashboard_pages.router.routes if isinstance(route, APIRoute)]
    assert any(getattr(e, "ends_in_route", False) for e in wrapped)
    for endpoint in wrapped:
        if getattr(endpoint, "ends_in_route", False):  # a synchronous route, run in a thread by its wrapper
            assert not inspect.iscoroutinefunction(endpoint.__wrapped__)
            assert not getattr(endpoint.__wrapped__, "ends_in_route", False)
        else:
            assert inspect.iscoroutinefunction(endpoint)  # an asynchronous route of its own


def _calls(dependant):
    yield dependant.call
    for sub in dependant.dependencies:
        yield from _calls(sub)


def test_issue37_every_route_taking_a_page_login_reads_it_in_its_own_thread(app):
    """The pages' login is left to the route's thread (app.core.db.in_route): only a synchronous
    route wrapped by `ended_in_route` works it out there, so no other may take it."""
    routes = [r for m in (*API_MODULES, *PAGE_MODULES) for r in m.router.routes if isinstance(r, APIRoute)]
    logins = {page_user, page_login_required, campaign_page}  # the last reads the campaign with it
    taking = [r for r in routes if logins & set(_calls(r.dependant))]
    assert len([r for r in taking if campaign_page in set(_calls(r.dependant))]) > 100
    assert len(taking) > 130
    assert all(getattr(r.endpoint, "ends_in_route", False) for r in taking), [
        r.path for r in taking if not getattr(r.endpoint, "ends_in_route", False)
    ]


def test_issue37_a_campaign_pages_context_is_made_without_fastapis_solving_of_it(app):
    """`campaign_route`: FastAPI sees the request and the campaign's id (still validated as a
    path id) where the route took `CampaignPage`, and the route's wrapper makes the context
    with the request's session; a route with another dependency (an uploaded file) is left to
    FastAPI, which solves its dependencies in their order (the CSRF check before the file)."""
    routes = [r for m in PAGE_MODULES for r in m.router.routes if isinstance(r, APIRoute)]
    taking = [r for r in routes if campaign_page in set(_calls(r.dependant))]
    prepared = [r for r in taking if "cid" in inspect.signature(r.endpoint).parameters]
    assert len(prepared) > 100
    for route in prepared:
        solved = set(_calls(get_dependant(path=route.path, call=route.endpoint)))
        assert campaign_page not in solved and db.get_session not in solved, route.path
        assert inspect.signature(route.endpoint).parameters["cid"].annotation is PathId
    uploads = {r.path for r in taking if r not in prepared}
    assert {"/campaigns/{cid}/map/image", "/campaigns/{cid}/company/import"} <= uploads, uploads
    assert all(campaign_page in set(_calls(get_dependant(path=r.path, call=r.endpoint))) for r in taking if r not in prepared)


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_issue37_a_cancelled_request_still_ends_its_unit_of_work(app, engine, method, monkeypatch):
    """`request_session` ends the unit of work (rolled back and closed, its connection given
    back at once, not when the garbage collector finds the session) shielded from the
    request's cancellation, as FastAPI shields a dependency's ending: a prepared route has no
    dependency to end it."""
    closed = []
    real_close = Session.close
    monkeypatch.setattr(Session, "close", lambda self: closed.append(self) or real_close(self))

    async def cancelled() -> None:
        scope = {"type": "http", "method": method, "path": "/", "headers": [], "query_string": b"", "app": app, "state": {}}
        with anyio.move_on_after(0.05) as waited:
            async with db.request_session(Request(scope)) as session:
                session.execute(text("SELECT 1"))  # holds a connection from here on
                await anyio.sleep(5)
        assert waited.cancelled_caught
        assert closed == [session] and engine.pool.checkedout() == 0

    anyio.run(cancelled)


def test_issue37_only_the_pages_with_no_other_dependency_are_prepared():
    """An API route, or a route behind dependencies of its own or its include's (the API's
    `refuse_finished` takes a session first), is left to FastAPI: prepared, it would wait for
    a second write slot behind its own."""
    for module in API_MODULES:
        for route in module.router.routes:
            if isinstance(route, APIRoute):
                assert "cid" not in getattr(route.endpoint, "__signature__", inspect.signature(print)).parameters, route.path
    for module in PAGE_MODULES:
        for route in module.router.routes:
            if isinstance(route, APIRoute) and route.dependencies:
                assert not hasattr(route.endpoint, "__signature__"), route.path


def test_issue37_a_prepared_campaign_page_answers_a_bad_id_as_before(client, make_client):
    anna, cid = _player(client, make_client)
    for bad in ("0", "abc", "99999999999999999999"):
        answer = anna.get(f"/campaigns/{bad}", follow_redirects=False)
        assert answer.status_code in (404, 422) and "<h1" in answer.text, (bad, answer.status_code)
    assert anna.get(f"/campaigns/{cid + 1000}").status_code == 404
    assert anna.get(f"/campaigns/{cid}/battles?round=x").status_code == 422


def test_issue37_a_page_outside_the_campaigns_crosses_into_a_worker_thread_once(client, make_client, hops):
    anna, _cid = _player(client, make_client)
    hops.clear()
    assert anna.get("/account").status_code == 200  # PageLogin
    assert anna.get("/").status_code == 200  # PageUser
    assert len(hops) == 2, hops


def test_issue37_a_campaign_page_refuses_a_logged_out_request_before_its_route_runs(client, make_client, monkeypatch):
    _gm, cid, _players, _places = running_campaign(client, 2)
    ran = []
    real = dashboard_pages.dashboard_page
    monkeypatch.setattr(dashboard_pages, "dashboard_page", lambda *a, **k: ran.append(1) or real(*a, **k))
    stranger = make_client()
    answer = stranger.get(f"/campaigns/{cid}", follow_redirects=False)
    assert answer.status_code in (303, 401) and not ran
    assert answer.status_code == 401 or "/login" in answer.headers["location"]


def test_issue37_a_campaign_page_reads_its_login_and_campaign_in_one_statement(client, make_client, count_statements):
    anna, cid = _player(client, make_client)
    # The pages whose use case took the viewer again by itself (orders, twilight, company, shop,
    # warbands, messages, ledger) now take the page's.
    tabs = ("", "/map", "/chronicle", "/orders", "/twilight", "/company", "/shop", "/warbands", "/letters", "/ledger")
    for path in (f"/campaigns/{cid}{tab}" for tab in tabs):
        anna.get(path)
        with count_statements() as counted:
            assert anna.get(path).status_code == 200
        reading = [s for s in counted.statements if "user_session" in s or re.search(r"FROM campaign\b", s)]
        assert len(reading) == 1 and "campaign.gm_user_id" in reading[0], (path, reading)


def test_issue37_the_campaign_read_with_the_login_still_tells_nobody_it_exists(client, make_client):
    """R11.2: a logged-in outsider gets the same 404 for another club's campaign as for none."""
    _gm, cid, _players, _places = running_campaign(client, 2)
    outsider = make_client()
    register(outsider, "outsider")
    there, missing = outsider.get(f"/campaigns/{cid}/map"), outsider.get(f"/campaigns/{cid + 1000}/map")
    assert there.status_code == missing.status_code == 404

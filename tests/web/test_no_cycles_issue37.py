"""Issue 37: drawing a page leaves no reference cycle behind. A template hook closed over the
page's whole context and was kept in it: every page's request, unit of work, viewer and rows
(some 330 objects a page) were freed only by the garbage collector's passes, which walked them
first. Now they are freed as the request ends."""

from __future__ import annotations

import gc

from sqlmodel import Session
from starlette.requests import Request

from app.visibility import Viewer
from tests.builders.campaigns import running_campaign
from tests.builders.pages import browser


def test_issue37_a_campaign_page_leaves_no_reference_cycle(client, make_client):
    gm, cid, players, _ = running_campaign(client, 2, modules={"letters": True})
    anna = browser(make_client, players[0]["nickname"])
    anna.get("/")  # the login's flash message
    paths = ("", "/players", "/map", "/events", "/chronicle", "/orders", "/rules")
    for path in paths:  # first draws fill the caches a process keeps
        assert anna.get(f"/campaigns/{cid}{path}").status_code == 200
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for path in paths:
            assert anna.get(f"/campaigns/{cid}{path}").status_code == 200
        gc.collect()
        left = sorted({type(o).__name__ for o in gc.garbage if isinstance(o, (Request, Session, Viewer))})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []

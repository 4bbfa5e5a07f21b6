"""A row read FOR UPDATE is a fresh read (app/core/db.py): a request that looked at the campaign
before taking its lock — every campaign page reads it with the login (issue 37) — decides by
what is there once it holds the lock, not by what it saw first. On PostgreSQL (READ COMMITTED)
another request may commit in between: the GM ending Orders while a player sends them."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.core.db import unit_of_work
from app.visibility import viewer_for
from tests.builders.campaigns import running_campaign
from tests.conftest import TEST_DB


@pytest.mark.skipif(
    not TEST_DB.startswith("postgresql"),
    reason="SQLite: a write request holds the database's write lock from its first statement (BEGIN IMMEDIATE)",
)
def test_a_locked_viewer_sees_what_another_request_committed_after_this_one_looked(client, engine):
    _gm, cid, _players, _places = running_campaign(client, 2)
    with Session(engine) as setup:
        gm_user = setup.get(User, setup.get(Campaign, cid).gm_user_id)
        setup.expunge(gm_user)
    with unit_of_work(engine, write=True) as request:
        looked = viewer_for(request, gm_user, cid)  # kept, as a page's context keeps it
        seen = looked.campaign.phase
        with unit_of_work(engine, write=True) as other:
            other.get(Campaign, cid).phase = "battles" if seen != "battles" else "orders"
        locked = viewer_for(request, gm_user, cid, lock=True)
        assert locked.campaign is looked.campaign  # the same object, read again
        assert locked.campaign.phase != seen
        request.rollback()

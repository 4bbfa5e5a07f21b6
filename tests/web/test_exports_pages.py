"""Export and import pages (issue 19): the GM downloads the campaign from the Rules tab; any
user imports a file from the import page (post/redirect/get to the new campaign)."""

from __future__ import annotations

import json

from sqlalchemy import func
from sqlmodel import Session, select

from app.campaigns.models import Campaign
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join
from tests.builders.pages import flash_of, login, post, prg


def _campaign(client, make_client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, name="Winter of the Lost Crown")["id"]
    anna = join(client, gm, cid, "anna")
    browsers = {}
    for nickname in ("gamemaster", "anna"):
        browsers[nickname] = make_client()
        login(browsers[nickname], nickname)
    return gm, cid, anna, browsers


def _campaigns(engine) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Campaign)).one()


def test_issue19_the_gm_downloads_the_campaign_from_the_rules_tab(client, make_client):
    gm, cid, anna, browsers = _campaign(client, make_client)
    rules = browsers["gamemaster"].get(f"/campaigns/{cid}/rules").text
    assert f'href="/campaigns/{cid}/export"' in rules and "Download the campaign" in rules
    assert f"/campaigns/{cid}/export" not in browsers["anna"].get(f"/campaigns/{cid}/rules").text
    r = browsers["gamemaster"].get(f"/campaigns/{cid}/export")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.headers["content-disposition"].startswith('attachment; filename="hideout-winter-of-the-lost-crown-')
    doc = json.loads(r.content)
    assert (doc["format"], doc["version"], doc["campaign"]["name"]) == ("hideout-campaign", 1, "Winter of the Lost Crown")
    assert [p["nickname"] for p in doc["players"]] == ["anna"]
    assert browsers["anna"].get(f"/campaigns/{cid}/export").status_code == 403
    outsider = make_client()
    user(client, "outsider")
    login(outsider, "outsider")
    assert outsider.get(f"/campaigns/{cid}/export").status_code == 404


def test_issue19_import_page_makes_a_new_campaign_and_says_so(client, make_client, engine):
    gm, cid, anna, browsers = _campaign(client, make_client)
    doc = browsers["gamemaster"].get(f"/campaigns/{cid}/export").content
    home = browsers["anna"].get("/").text
    assert 'href="/campaigns/new/import"' in home
    page = browsers["anna"].get("/campaigns/new/import")
    assert page.status_code == 200 and 'enctype="multipart/form-data"' in page.text
    target = prg(
        browsers["anna"],
        "/campaigns/new/import",
        files={"file": ("campaign.json", doc, "application/json")},
        says="Campaign Winter of the Lost Crown imported. Players invited to take their seats: 0.",
        token_from="/campaigns/new/import",
    )
    new_cid = int(target.rstrip("/").split("/")[-1])
    assert new_cid != cid
    assert "Winter of the Lost Crown" in browsers["anna"].get("/").text
    r = client.get(f"/api/v1/campaigns/{new_cid}", headers=anna["headers"])
    assert r.status_code == 200 and r.json()["gm_nickname"] == "anna"


def test_issue19_the_invited_player_takes_their_seat_from_the_home_page(client, make_client):
    gm, cid, anna, browsers = _campaign(client, make_client)
    r = client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": "orcs"}, headers=anna["headers"])
    assert r.status_code == 200
    doc = browsers["gamemaster"].get(f"/campaigns/{cid}/export").content
    user(client, "newgm")
    newgm = make_client()
    login(newgm, "newgm")
    target = prg(
        newgm,
        "/campaigns/new/import",
        files={"file": ("campaign.json", doc, "application/json")},
        says="Players invited to take their seats: 1.",
        token_from="/campaigns/new/import",
    )
    new_cid = int(target.rstrip("/").split("/")[-1])
    assert "Winter of the Lost Crown" in browsers["anna"].get("/").text  # the invitation
    r = post(browsers["anna"], f"/campaigns/{new_cid}/invitation/accept")
    assert r.status_code == 303
    company = client.get(f"/api/v1/campaigns/{new_cid}/company", headers=anna["headers"]).json()
    assert company["faction"] == "orcs"


def test_r11_5_a_refused_import_stays_on_the_form_says_why_and_creates_nothing(client, make_client, engine):
    user(client, "anna")
    browser = make_client()
    login(browser, "anna")
    before = _campaigns(engine)
    cases = [
        ({"file": ("notes.txt", b"just some notes", "text/plain")}, "not a JSON document"),
        ({"file": ("other.json", b'{"format": "other"}', "application/json")}, "not a Hideout campaign export"),
        (
            {"file": ("future.json", b'{"format": "hideout-campaign", "version": 9, "campaign": {}}', "application/json")},
            "version 9",
        ),
        ({}, "Choose a campaign export file"),
    ]
    for files, says in cases:
        r = post(browser, "/campaigns/new/import", token_from="/campaigns/new/import", files=files or None)
        assert r.status_code == 422, (says, r.status_code)
        assert says in r.text and 'role="alert"' in r.text, says
        assert flash_of(r.text) is None
    assert _campaigns(engine) == before

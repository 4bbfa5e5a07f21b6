"""R12.13 on the pages: the GM's "Copy this campaign" on the Rules tab asks first, then opens
the new draft with a flash; the wizard's map step offers the ready maps on an empty draft's
map. Players and strangers are refused and nothing changes."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, select

from app.campaigns.models import Campaign
from app.maps.models import Place
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, running_campaign
from tests.builders.pages import browser, post, prg


def campaigns(engine) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Campaign)).one()


def places_of(engine, cid) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Place).where(Place.campaign_id == cid)).one()


def test_r12_13_copy_this_campaign_asks_then_opens_the_new_draft(client, make_client, engine):
    gm, cid, players, _places = running_campaign(client, 2, name="Winter")
    gm_page = browser(make_client, "gamemaster")
    rules = gm_page.get(f"/campaigns/{cid}/rules").text
    assert "Copy this campaign" in rules and f'action="/campaigns/{cid}/copy"' in rules
    before = campaigns(engine)
    ask = post(gm_page, f"/campaigns/{cid}/copy", {})
    assert ask.status_code == 200 and "Copy Winter into a new campaign?" in ask.text
    assert campaigns(engine) == before  # asked, nothing made yet
    target = prg(gm_page, f"/campaigns/{cid}/copy", {"confirm": "1"}, says="Winter copied into the new campaign Winter (copy)")
    assert campaigns(engine) == before + 1
    new = int(target.rstrip("/").split("/")[-1])
    assert new != cid and places_of(engine, new) == places_of(engine, cid)


def test_r12_13_a_player_sees_no_copy_button_and_may_not_copy(client, make_client, engine):
    gm, cid, players, _places = running_campaign(client, 2)
    player_page = browser(make_client, "player0")
    assert "Copy this campaign" not in player_page.get(f"/campaigns/{cid}/rules").text
    before = campaigns(engine)
    assert post(player_page, f"/campaigns/{cid}/copy", {"confirm": "1"}).status_code == 403
    user(client, "stranger")
    assert post(browser(make_client, "stranger"), f"/campaigns/{cid}/copy", {"confirm": "1"}).status_code == 404
    assert campaigns(engine) == before


def test_r12_13_the_map_step_offers_ready_maps_and_fills_the_map(client, make_client, engine):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    page = browser(make_client, "gamemaster")
    step = page.get(f"/campaigns/{cid}/setup/3").text
    assert "Start from a ready map" in step and "A city with districts" in step
    prg(page, f"/campaigns/{cid}/map-template", {"template": "region"}, says="The map A region of ten places with paths is ready")
    assert places_of(engine, cid) == 10
    assert "Start from a ready map" not in page.get(f"/campaigns/{cid}/setup/3").text
    # A map with places is not filled again: the step says why, nothing changes.
    refused = post(page, f"/campaigns/{cid}/map-template", {"template": "city"})
    assert refused.status_code == 409 and "a ready map fills an empty map only" in refused.text
    assert places_of(engine, cid) == 10


def test_r12_13_ready_map_names_follow_the_gms_language(client, make_client, engine):
    gm = user(client, "gamemaster", locale="pl")
    cid = create_campaign(client, gm)["id"]
    page = browser(make_client, "gamemaster", hideout_lang="pl")
    assert "Miasto z dzielnicami" in page.get(f"/campaigns/{cid}/setup/3").text
    post(page, f"/campaigns/{cid}/map-template", {"template": "city"})
    with Session(engine) as s:
        names = set(s.exec(select(Place.name).where(Place.campaign_id == cid)).all())
    assert {"Zamek", "Stare Miasto", "Katakumby"} <= names


def test_r12_13_a_player_may_not_fill_the_map(client, make_client, engine):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    user(client, "stranger")
    assert post(browser(make_client, "stranger"), f"/campaigns/{cid}/map-template", {"template": "region"}).status_code == 404
    assert places_of(engine, cid) == 0


def test_r12_13_the_copy_has_its_own_cover_and_map_files(client, make_client, engine, settings):
    import io

    from PIL import Image

    from tests.builders.pages import csrf

    gm = user(client, "gamemaster")
    page = browser(make_client, "gamemaster")
    buf = io.BytesIO()
    Image.new("RGB", (40, 20), "navy").save(buf, "PNG")
    r = page.post(
        "/campaigns/new",
        data={"name": "Covered", "csrf_token": csrf(page, "/campaigns/new")},
        files={"cover": ("cover.png", buf.getvalue(), "image/png")},
        follow_redirects=False,
    )
    assert r.status_code == 303
    with Session(engine) as s:
        cid = s.exec(select(Campaign.id).where(Campaign.name == "Covered")).one()
    assert client.post(f"/api/v1/campaigns/{cid}/map-template", json={"template": "region"}, headers=gm).status_code == 201
    r = client.post(f"/api/v1/campaigns/{cid}/copy", headers=gm)
    assert r.status_code == 201, r.text
    with Session(engine) as s:
        old, new = s.get(Campaign, cid), s.get(Campaign, r.json()["id"])
        media = settings.var_dir / "media"
        for name in ("cover_image", "map_image", "map_original"):
            assert getattr(new, name) and getattr(new, name) != getattr(old, name), name
            assert (media / getattr(new, name)).is_file()
        assert new.modules["paths"] is True and new.name == "Covered (copy)"

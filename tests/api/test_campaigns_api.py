"""Campaign creation, settings and the Rules data over the API (R1.1, R1.6, R9.1)."""

from sqlmodel import Session, select

from app.campaigns.models import Campaign
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join, running_campaign
from tests.builders.responses import error_code


def test_r1_1_create_with_every_field_and_sensible_defaults(client):
    gm = user(client, "gamemaster")
    minimal = create_campaign(client, gm, name="Minimal")
    assert minimal["status"] == "setup" and minimal["round"] == 0 and minimal["phase"] is None
    assert minimal["settings"]["starting_gold"] == 400 and minimal["modules"]["paths"] is False
    assert minimal["guild"]["term"] == "guild"
    body = {
        "name": "Winter of the Lost Crown",
        "story": "**Snow**",
        "max_players": 6,
        "starting_gold": 300,
        "round_income": 40,
        "gold_per_point": 2,
        "sale_loss_percent": 25,
        "warband_points": 250,
        "underdog_points_per_die": 20,
        "modules": {
            "guilds": False,
            "mission_alliances": True,
            "letters": True,
            "gold_transfers": False,
            "multi_band_battles": True,
            "battle_size_limit": 4,
            "paths": True,
            "movement": False,
        },
        "guild": {"term": "cartel", "level_cost": 60, "level_income": 12, "max_level": 4, "request_fee": 6, "entry_fee": 11},
        "alliance_fee": 15,
    }
    full = create_campaign(client, gm, **body)
    assert full["settings"] == {k: body[k] for k in full["settings"]}
    assert full["modules"] == body["modules"] and full["guild"] == body["guild"]
    assert full["gm_nickname"] == "gamemaster"


def test_r11_5_create_refuses_bad_settings_with_every_problem(client, engine):
    gm = user(client, "gamemaster")
    r = client.post(
        "/api/v1/campaigns",
        json={
            "name": "",
            "max_players": 1,
            "sale_loss_percent": 101,
            "modules": {"battle_size_limit": 2},
            "guild": {"term": "mafia"},
        },
        headers=gm,
    )
    assert r.status_code == 422
    fields = {d["field"] for d in r.json()["error"]["details"]}
    assert {"name", "max_players", "sale_loss_percent", "modules.battle_size_limit", "guild.term"} <= fields
    with Session(engine) as s:
        assert s.exec(select(Campaign)).all() == []


def test_r1_1_patch_saves_a_draft_step_by_step(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    r = client.patch(f"/api/v1/campaigns/{cid}", json={"round_income": 70}, headers=gm)
    assert r.status_code == 200 and r.json()["settings"]["round_income"] == 70
    r = client.patch(f"/api/v1/campaigns/{cid}", json={"modules": {"paths": True}}, headers=gm)
    assert r.json()["modules"]["paths"] is True and r.json()["modules"]["guilds"] is True
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["settings"]["round_income"] == 70


def test_r9_1_modules_guild_amounts_and_battle_limit_are_fixed_once_running(client):
    gm, cid, _players, _places = running_campaign(client)
    for body in ({"modules": {"guilds": False}}, {"modules": {"battle_size_limit": 5}}, {"guild": {"level_cost": 99}}):
        r = client.patch(f"/api/v1/campaigns/{cid}", json=body, headers=gm)
        assert r.status_code == 409 and error_code(r) == "settings_locked", body
    after = client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()
    assert after["modules"]["guilds"] is True and after["guild"]["level_cost"] == 50 and after["settings"]["alliance_fee"] == 10
    # Manual ch. 9 fixes modules, guild amounts and the battle limit only: the alliance fee may change.
    r = client.patch(f"/api/v1/campaigns/{cid}", json={"alliance_fee": 15}, headers=gm)
    assert r.status_code == 200 and r.json()["settings"]["alliance_fee"] == 15
    # Other settings stay editable, and sending the unchanged modules is not a change.
    r = client.patch(f"/api/v1/campaigns/{cid}", json={"story": "New chapter", "modules": {"guilds": True}}, headers=gm)
    assert r.status_code == 200 and r.json()["story"] == "New chapter"


def test_r1_6_starting_gold_cannot_change_once_a_player_has_joined(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    assert client.patch(f"/api/v1/campaigns/{cid}", json={"starting_gold": 500}, headers=gm).status_code == 200
    join(client, gm, cid, "anna")
    r = client.patch(f"/api/v1/campaigns/{cid}", json={"starting_gold": 900}, headers=gm)
    assert r.status_code == 409 and error_code(r) == "starting_gold_locked"
    assert client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()["settings"]["starting_gold"] == 500


def test_only_the_gm_changes_settings_and_outsiders_see_nothing(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    anna = join(client, gm, cid, "anna")
    r = client.patch(f"/api/v1/campaigns/{cid}", json={"name": "Mine"}, headers=anna["headers"])
    assert r.status_code == 403 and error_code(r) == "gm_only"
    outsider = user(client, "outsider")
    for method, path in (("GET", ""), ("GET", "/players"), ("GET", "/chronicle"), ("GET", "/places"), ("PATCH", "")):
        r = client.request(method, f"/api/v1/campaigns/{cid}{path}", headers=outsider, json={} if method == "PATCH" else None)
        assert r.status_code == 404, (method, path)
    assert client.get("/api/v1/campaigns/999", headers=gm).status_code == 404


def test_r1_6_a_finished_campaign_is_read_only(client):
    gm, cid, players, places = running_campaign(client)
    r = client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=gm)
    assert r.status_code == 200 and r.json()["status"] == "finished"
    for path, body in (("", {"name": "x"}), ("/phase", {"phase": "orders"}), ("/places", {"name": "New"})):
        method = "PATCH" if path == "" else "POST"
        r = client.request(method, f"/api/v1/campaigns/{cid}{path}", json=body, headers=gm)
        assert r.status_code == 409 and error_code(r) == "campaign_read_only", path
    r = client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "running"}, headers=gm)
    assert r.status_code == 409 and error_code(r) == "campaign_read_only"

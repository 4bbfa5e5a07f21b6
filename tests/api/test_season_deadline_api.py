"""Deadlines over the API and the scheduler's auto-advance (issue 19): who may set one and
what is refused (and that a refusal changes nothing), a new phase clearing it, the chronicle's
news, the auto-advance at the deadline as the GM's switch would (Orders → Battles announces
battles, Twilight ends the round), a gate that refuses (it waits and the GM is told why), the
"deadline near" note once, and `hideout tick`. The clock is injected: nothing sleeps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, select

from app.chronicle.models import ChronicleEntry
from app.season import scheduler
from app.season.models import PhaseDeadline
from tests.builders.accounts import user
from tests.builders.battles import battles, campaign_with_warbands
from tests.builders.campaigns import create_campaign, running_campaign
from tests.builders.responses import error_code
from tests.builders.rounds import send, to_phase
from tests.builders.settlements import play_round


def soon(**delta) -> datetime:
    return (datetime.now(UTC) + timedelta(**delta)).replace(microsecond=0)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def url(cid: int) -> str:
    return f"/api/v1/campaigns/{cid}/deadline"


def put(client, cid, headers, ends_at, auto=False, expect=200) -> dict:
    r = client.put(
        url(cid), json={"ends_at": ends_at if isinstance(ends_at, str) else iso(ends_at), "auto_advance": auto}, headers=headers
    )
    assert r.status_code == expect, r.text
    return r.json()


def campaign(client, cid, gm) -> dict:
    return client.get(f"/api/v1/campaigns/{cid}", headers=gm).json()


def kinds(engine, cid) -> list[str]:
    with Session(engine) as s:
        return list(
            s.exec(select(ChronicleEntry.kind).where(ChronicleEntry.campaign_id == cid).order_by(ChronicleEntry.id)).all()
        )


def entries(engine, cid, kind) -> list[ChronicleEntry]:
    with Session(engine) as s:
        return list(s.exec(select(ChronicleEntry).where(ChronicleEntry.campaign_id == cid, ChronicleEntry.kind == kind)).all())


@pytest.fixture
def tick(app):
    """One scheduler pass at an injected moment."""
    return lambda now: scheduler.tick(app.state.engine, app.state.settings, app.state.catalog.get, now=now)


# --- setting, reading, clearing ----------------------------------------------------------------


def test_issue19_the_gm_sets_the_deadline_every_member_reads_it_and_the_chronicle_says_it(client, engine):
    gm, cid, players, _ = running_campaign(client)
    empty = client.get(url(cid), headers=players[0]["headers"]).json()
    assert empty == {"round": 1, "phase": "preparation", "ends_at": None, "auto_advance": False, "waiting": None}
    ends = soon(days=2)
    body = put(client, cid, gm, ends.isoformat(), auto=True)  # any offset; answered in UTC
    assert body == {"round": 1, "phase": "preparation", "ends_at": iso(ends), "auto_advance": True, "waiting": None}
    assert client.get(url(cid), headers=players[1]["headers"]).json() == body
    [entry] = entries(engine, cid, "deadline_set")
    assert entry.params["ends_at"] == iso(ends) and entry.params["deadline_phase"] == "preparation"
    chronicle = client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=players[0]["headers"]).json()["items"]
    assert f"Preparation ends at {ends.strftime('%Y-%m-%d %H:%M')} UTC." in [e["text"] for e in chronicle]
    # The same again (a double tap) says nothing twice; a change does.
    put(client, cid, gm, ends, auto=True)
    assert len(entries(engine, cid, "deadline_set")) == 1
    put(client, cid, gm, ends + timedelta(hours=1))
    assert len(entries(engine, cid, "deadline_set")) == 2


def test_issue19_deadline_refusals_change_nothing(client, engine):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(days=1)
    put(client, cid, gm, ends)
    before = client.get(url(cid), headers=gm).json()
    cases = [
        (players[0]["headers"], {"ends_at": iso(soon(days=3))}, 403, "gm_only"),
        (gm, {"ends_at": iso(soon(minutes=-5))}, 422, "deadline_past"),
        (gm, {"ends_at": iso(soon(days=400))}, 422, "deadline_too_far"),
        (gm, {"ends_at": "tomorrow at noon"}, 422, "validation_error"),
        (gm, {"ends_at": 1234567890123456789}, 422, "validation_error"),
        (gm, {"ends_at": "0001-01-01T00:00:00+14:00"}, 422, "validation_error"),
        (gm, {"ends_at": "9999-12-31T23:59:59-14:00"}, 422, "validation_error"),
        (gm, {"ends_at": iso(soon(days=3)), "auto_advance": "yes"}, 422, "validation_error"),
        (gm, {"ends_at": iso(soon(days=3)), "phase": "orders"}, 422, "validation_error"),
        (gm, {}, 422, "validation_error"),
        (gm, {"ends_at": None}, 422, "validation_error"),
    ]
    for headers, body, status, code in cases:
        r = client.put(url(cid), json=body, headers=headers)
        assert (r.status_code, error_code(r)) == (status, code), (body, r.text)
    r = client.delete(url(cid), headers=players[0]["headers"])
    assert (r.status_code, error_code(r)) == (403, "gm_only")
    outsider = user(client, "outsider")
    assert client.get(url(cid), headers=outsider).status_code == 404
    assert client.put(url(cid), json={"ends_at": iso(soon(days=3))}, headers=outsider).status_code == 404
    assert client.get(url(cid)).status_code == 401
    assert client.get(url(cid), headers=gm).json() == before
    assert len(entries(engine, cid, "deadline_set")) == 1


def test_issue19_a_deadline_needs_a_running_campaign(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    r = client.put(url(cid), json={"ends_at": iso(soon(days=1))}, headers=gm)
    assert (r.status_code, error_code(r)) == (409, "not_running")
    assert client.get(url(cid), headers=gm).json()["ends_at"] is None


def test_issue19_delete_clears_it_and_a_new_phase_clears_it(client, engine):
    gm, cid, players, _ = running_campaign(client)
    put(client, cid, gm, soon(days=1))
    assert client.delete(url(cid), headers=gm).status_code == 204
    assert client.get(url(cid), headers=gm).json()["ends_at"] is None
    assert client.delete(url(cid), headers=gm).status_code == 204  # nothing left: still fine
    assert kinds(engine, cid).count("deadline_cleared") == 1
    put(client, cid, gm, soon(days=1), auto=True)
    to_phase(client, gm, cid, "orders")
    assert client.get(url(cid), headers=gm).json() == {
        "round": 1,
        "phase": "orders",
        "ends_at": None,
        "auto_advance": False,
        "waiting": None,
    }
    with Session(engine) as s:
        assert s.exec(select(PhaseDeadline)).all() == []
    # Back to Preparation is a new phase too.
    put(client, cid, gm, soon(days=1))
    to_phase_back = client.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": "preparation"}, headers=gm)
    assert to_phase_back.status_code == 200
    assert client.get(url(cid), headers=gm).json()["ends_at"] is None


# --- the auto-advance --------------------------------------------------------------------------


def test_issue19_at_the_deadline_the_phase_moves_on_and_only_then(client, engine, tick):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(hours=3)
    put(client, cid, gm, ends, auto=True)
    report = tick(ends - timedelta(seconds=1))
    assert report.advanced == [] and campaign(client, cid, gm)["phase"] == "preparation"
    report = tick(ends)
    assert report.advanced == [cid] and campaign(client, cid, gm)["phase"] == "orders"
    assert client.get(url(cid), headers=gm).json()["ends_at"] is None  # the new phase has none
    [moved] = entries(engine, cid, "phase_changed")
    assert (moved.params["from_phase"], moved.params["to_phase"]) == ("preparation", "orders")
    assert tick(ends + timedelta(hours=1)).advanced == []  # nothing more to do


def test_issue19_without_auto_advance_the_deadline_only_passes(client, tick):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(hours=3)
    put(client, cid, gm, ends, auto=False)
    assert tick(ends + timedelta(days=1)).advanced == []
    assert campaign(client, cid, gm)["phase"] == "preparation"
    assert client.get(url(cid), headers=gm).json()["ends_at"] == iso(ends)


def test_issue19_orders_to_battles_announces_the_battles_as_the_gms_switch(client, engine, tick):
    gm, cid, players, places = campaign_with_warbands(client, 2)
    to_phase(client, gm, cid, "orders")
    for p in players:
        send(client, cid, p, place_id=places[-1]["id"])
    ends = soon(hours=1)
    put(client, cid, gm, ends, auto=True)
    assert tick(ends + timedelta(seconds=30)).advanced == [cid]
    assert campaign(client, cid, gm)["phase"] == "battles"
    [battle] = battles(client, cid, players[0]["headers"])
    assert {w["name"] for side in battle["sides"] for w in side["warbands"]} == {"orcs band", "basileans band"}
    assert "battle_announced" in kinds(engine, cid)


def test_issue19_a_refusing_gate_makes_it_wait_and_the_gm_is_told_why_until_it_opens(client, engine, tick):
    """R7.2: Twilight waits for every settlement; the auto-advance waits with it."""
    rnd = play_round(client)
    cid, gm = rnd.cid, rnd.gm
    ends = soon(hours=1)
    put(client, cid, gm, ends, auto=True)
    report = tick(ends)
    assert report.waiting == [cid] and report.advanced == []
    assert campaign(client, cid, gm)["phase"] == "settlement"
    said = client.get(url(cid), headers=gm).json()
    assert said["ends_at"] == iso(ends) and "player0 (orcs band, Place 2)" in said["waiting"]
    assert client.get(url(cid), headers=rnd.h(0)).json()["waiting"] is None  # the GM's to know
    assert kinds(engine, cid)[-1] == "deadline_set"  # the refused attempt left nothing behind
    with Session(engine) as s:
        version = s.exec(select(PhaseDeadline.version)).one()
    tick(ends + timedelta(seconds=5))  # the same reason: nothing is written again
    with Session(engine) as s:
        assert s.exec(select(PhaseDeadline.version)).one() == version
    rnd.close(0)
    assert tick(ends + timedelta(seconds=10)).waiting == [cid]
    assert "player0" not in client.get(url(cid), headers=gm).json()["waiting"]
    rnd.close(1)
    assert tick(ends + timedelta(seconds=15)).advanced == [cid]
    assert campaign(client, cid, gm)["phase"] == "twilight"


def test_issue19_at_twilights_deadline_the_round_ends(client, engine, tick):
    gm, cid, players, _ = running_campaign(client)
    to_phase(client, gm, cid, "twilight")
    ends = soon(hours=1)
    put(client, cid, gm, ends, auto=True)
    assert tick(ends).advanced == [cid]
    after = campaign(client, cid, gm)
    assert (after["round"], after["phase"]) == (2, "preparation")
    assert "round_ended" in kinds(engine, cid)


def test_issue19_a_stale_claim_misses_the_gm_changed_the_deadline_meanwhile(client, app, tick):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(hours=1)
    put(client, cid, gm, ends, auto=True)
    [due] = scheduler.due(app.state.engine, ends, 60)
    put(client, cid, gm, ends + timedelta(hours=5), auto=True)
    assert scheduler.advance(app.state.engine, due, ends, app.state.catalog.get) == "taken"
    assert campaign(client, cid, gm)["phase"] == "preparation"


def test_issue19_a_finished_campaign_is_not_advanced(client, engine, tick):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(hours=1)
    put(client, cid, gm, ends, auto=True)
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=gm).status_code == 200
    assert tick(ends).advanced == []
    assert campaign(client, cid, gm)["status"] == "finished"


# --- the "deadline near" note ------------------------------------------------------------------


def test_issue19_the_chronicle_says_once_an_hour_before_that_the_deadline_is_near(client, engine, tick):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(hours=5)
    put(client, cid, gm, ends)
    assert tick(ends - timedelta(minutes=61)).near == []
    assert tick(ends - timedelta(minutes=59)).near == [cid]
    assert tick(ends - timedelta(minutes=30)).near == []
    [note] = entries(engine, cid, "deadline_near")
    assert note.params["ends_at"] == iso(ends) and note.params["deadline_phase"] == "preparation"
    texts = [e["text"] for e in client.get(f"/api/v1/campaigns/{cid}/chronicle", headers=players[0]["headers"]).json()["items"]]
    assert f"Preparation ends soon, at {ends.strftime('%Y-%m-%d %H:%M')} UTC." in texts
    # A new deadline is news again, and near again in its turn.
    later = ends + timedelta(hours=3)
    put(client, cid, gm, later)
    assert tick(later - timedelta(minutes=10)).near == [cid]


def test_issue19_a_deadline_set_inside_the_last_hour_is_not_said_near_twice(client, engine, tick):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(minutes=30)
    put(client, cid, gm, ends)
    assert tick(ends - timedelta(minutes=10)).near == []
    assert entries(engine, cid, "deadline_near") == []


# --- `hideout tick` ----------------------------------------------------------------------------


def test_issue19_hideout_tick_does_one_pass_from_cron(client, app, monkeypatch, capsys):
    from app import cli
    from app.core import settings as settings_module

    gm, cid, players, _ = running_campaign(client)
    ends = soon(hours=1)
    put(client, cid, gm, ends, auto=True)
    monkeypatch.setattr(settings_module, "get_settings", lambda: app.state.settings)
    monkeypatch.setattr(scheduler, "utcnow", lambda: ends + timedelta(seconds=1))
    assert cli.main(["tick"]) == 0
    assert "Advanced: 1; waiting: 0; deadlines near: 0; digests sent: 0." in capsys.readouterr().out
    assert campaign(client, cid, gm)["phase"] == "orders"
    assert cli.main(["tick"]) == 0
    assert "Advanced: 0;" in capsys.readouterr().out


# --- the scheduler inside the server -----------------------------------------------------------


def test_issue19_the_server_runs_the_scheduler_as_a_background_job(client, app, monkeypatch):
    """Registered with app.core.background (started in the lifespan unless tests turn it off):
    each turn of its loop is one pass, then a pause of `season_tick_seconds`."""
    import asyncio
    from types import SimpleNamespace

    from app.core import background

    assert scheduler.run in background.jobs()
    gm, cid, players, _ = running_campaign(client)
    ends = soon(hours=1)
    put(client, cid, gm, ends, auto=True)
    monkeypatch.setattr(scheduler, "utcnow", lambda: ends)
    pauses = []

    class Stop(Exception):
        pass

    real_sleep = asyncio.sleep

    async def pause(seconds):
        if seconds != app.state.settings.season_tick_seconds:
            return await real_sleep(seconds)  # someone else's short wait (a driver's poll), not the loop's pause
        pauses.append(seconds)
        raise Stop

    monkeypatch.setattr(scheduler.asyncio, "sleep", pause)
    with pytest.raises(Stop):
        asyncio.run(scheduler.run(SimpleNamespace(state=app.state)))
    assert pauses == [app.state.settings.season_tick_seconds]
    assert campaign(client, cid, gm)["phase"] == "orders"

"""R12.9 (and R12.8's "every GM action records who did it") over the API: every GM action is
one row of the audit trail — who, when, what, on what, before and after; the GMs read it,
paginated, filtered by action and by who; the last change of a thing is undone where that is
safe (a gold adjustment by a reversing ledger entry, a place or event edit by restoring it),
never past a later change of the same thing nor twice, and every other kind says why not
(409, translated). Refusals change nothing."""

from __future__ import annotations

from sqlmodel import Session, select

from app.audit.models import AuditEntry
from app.gold.models import LedgerEntry
from tests.builders.accounts import user
from tests.builders.campaigns import running_campaign
from tests.builders.responses import error_code


def _api(cid: int, path: str = "") -> str:
    return f"/api/v1/campaigns/{cid}{path}"


def _trail(client, cid, headers, **query) -> dict:
    r = client.get(_api(cid, "/audit"), params=query, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def _rows(engine, cid) -> list[tuple]:
    with Session(engine) as s:
        return [
            (e.id, e.action, e.target, e.before, e.after, e.undone_at)
            for e in s.exec(select(AuditEntry).where(AuditEntry.campaign_id == cid).order_by(AuditEntry.id)).all()
        ]


def _ledger(engine, pid) -> list[tuple]:
    with Session(engine) as s:
        return [
            (e.amount, e.kind) for e in s.exec(select(LedgerEntry).where(LedgerEntry.player_id == pid).order_by(LedgerEntry.id))
        ]


def _world(client):
    gm, cid, players, places = running_campaign(client, 2, 4)
    co = user(client, "cogm")
    assert client.post(_api(cid, "/game-masters"), json={"nickname": "cogm"}, headers=gm).status_code == 201
    return gm, co, cid, players, places


def _adjust(client, cid, headers, pid, amount, reason="Fix"):
    r = client.post(
        _api(cid, "/ledger/adjustments"), json={"player_id": pid, "amount": amount, "reason": reason}, headers=headers
    )
    assert r.status_code == 201, r.text


def test_r12_9_r12_8_every_gm_action_is_one_row_with_who_and_what(client):
    gm, co, cid, players, places = _world(client)
    pid = players[0]["player_id"]
    _adjust(client, cid, gm, pid, 25, "Painted well")
    r = client.patch(_api(cid, f"/places/{places[3]['id']}"), json={"name": "Old Mill", "income": 9}, headers=co)
    assert r.status_code == 200, r.text
    r = client.post(_api(cid, "/events"), json={"place_id": places[3]["id"], "title": "Fog"}, headers=co)
    assert r.status_code == 201, r.text
    eid = r.json()["id"]
    assert client.patch(_api(cid, f"/events/{eid}"), json={"title": "Thick fog"}, headers=gm).status_code == 200
    assert client.post(_api(cid, "/phase"), json={"phase": "orders"}, headers=co).status_code == 200
    items = _trail(client, cid, gm)["items"]
    got = [(i["action"], i["actor_nickname"], i["target"]) for i in items]
    assert got == [
        ("phase_changed", "cogm", "round:1"),
        ("event_edited", "gamemaster", f"event:{eid}"),
        ("event_added", "cogm", f"event:{eid}"),
        ("place_edited", "cogm", f"place:{places[3]['id']}"),
        ("gold_adjusted", "gamemaster", f"player:{pid}"),
        ("game_master_added", "gamemaster", items[5]["target"]),
        *(("place_added", "gamemaster", f"place:{p['id']}") for p in reversed(places)),
    ]
    phase, event_edit, _added, place_edit, gold = items[:5]
    assert (phase["before"], phase["after"]) == ({"phase": "preparation"}, {"phase": "orders"})
    assert (event_edit["before"]["title"], event_edit["after"]["title"]) == ("Fog", "Thick fog")
    assert (place_edit["before"]["name"], place_edit["after"]["name"], place_edit["after"]["income"]) == (
        "Place 3",
        "Old Mill",
        9,
    )
    assert gold["after"] == {"amount": 25, "reason": "Painted well"}
    assert [i["undoable"] for i in items[:5]] == [False, True, False, True, True]
    # The co-GM reads the same trail; filters and pages.
    assert _trail(client, cid, co) == _trail(client, cid, gm)
    assert [i["action"] for i in _trail(client, cid, gm, action="place_edited")["items"]] == ["place_edited"]
    co_id = client.get(_api(cid, "/game-masters"), headers=gm).json()[1]["user_id"]
    assert {i["actor_nickname"] for i in _trail(client, cid, gm, actor=co_id)["items"]} == {"cogm"}
    page = _trail(client, cid, gm, per_page=2, page=2)
    assert (page["page"], page["pages"], page["total"], len(page["items"])) == (2, 5, 10, 2)
    # Players and outsiders read nothing of it.
    assert client.get(_api(cid, "/audit"), headers=players[0]["headers"]).status_code == 403
    assert client.get(_api(cid, "/audit"), headers=user(client, "outsider")).status_code == 404


def test_r12_9_a_gold_adjustment_is_undone_by_a_reversing_entry_once(client, engine):
    gm, co, cid, players, places = _world(client)
    pid = players[0]["player_id"]
    _adjust(client, cid, gm, pid, 25, "Painted well")
    [row] = _trail(client, cid, gm, action="gold_adjusted")["items"]
    r = client.post(_api(cid, f"/audit/{row['id']}/undo"), headers=co)
    assert r.status_code == 200, r.text
    assert (r.json()["undone"], r.json()["undoable"]) == (True, False)
    assert _ledger(engine, pid)[-2:] == [(25, "gm_adjustment"), (-25, "gm_adjustment")]
    gold = [p["gold"] for p in client.get(_api(cid, "/players"), headers=players[0]["headers"]).json() if p["player_id"] == pid]
    assert gold == [400]
    before, ledger = _rows(engine, cid), _ledger(engine, pid)
    r = client.post(_api(cid, f"/audit/{row['id']}/undo"), headers=gm)
    assert (r.status_code, error_code(r)) == (409, "undo_done")
    # The reversal's own row is marked as undoing it: nothing to redo by accident.
    reversal = _trail(client, cid, gm, action="gold_adjusted")["items"][0]
    assert (reversal["after"]["amount"], reversal["undone"], reversal["undoable"]) == (-25, True, False)
    r = client.post(_api(cid, f"/audit/{row['id']}/undo"), headers=players[0]["headers"])
    assert r.status_code == 403
    assert client.post(_api(cid, "/audit/999999/undo"), headers=gm).status_code == 404
    assert (_rows(engine, cid), _ledger(engine, pid)) == (before, ledger)


def test_r12_9_a_place_edit_is_restored_but_never_past_a_later_change(client, engine):
    gm, co, cid, players, places = _world(client)
    url = _api(cid, f"/places/{places[3]['id']}")
    assert client.patch(url, json={"name": "Old Mill"}, headers=gm).status_code == 200
    assert client.patch(url, json={"income": 12}, headers=co).status_code == 200
    later, first = _trail(client, cid, gm, action="place_edited")["items"]
    assert (first["undoable"], later["undoable"]) == (False, True)
    before = _rows(engine, cid)
    r = client.post(_api(cid, f"/audit/{first['id']}/undo"), headers=gm)
    assert (r.status_code, error_code(r)) == (409, "undo_later_change")
    assert _rows(engine, cid) == before
    assert client.post(_api(cid, f"/audit/{later['id']}/undo"), headers=gm).status_code == 200
    place = next(p for p in client.get(_api(cid, "/places"), headers=gm).json() if p["id"] == places[3]["id"])
    assert (place["name"], place["income"]) == ("Old Mill", 5)
    assert client.post(_api(cid, f"/audit/{first['id']}/undo"), headers=gm).status_code == 200
    place = next(p for p in client.get(_api(cid, "/places"), headers=gm).json() if p["id"] == places[3]["id"])
    assert (place["name"], place["income"]) == ("Place 3", 5)


def test_r12_9_an_event_edit_is_restored(client):
    gm, co, cid, players, places = _world(client)
    eid = client.post(_api(cid, "/events"), json={"place_id": places[3]["id"], "title": "Fog"}, headers=gm).json()["id"]
    assert client.patch(_api(cid, f"/events/{eid}"), json={"title": "Thick fog", "duration": 3}, headers=gm).status_code == 200
    [row] = _trail(client, cid, gm, action="event_edited")["items"]
    assert client.post(_api(cid, f"/audit/{row['id']}/undo"), headers=co).status_code == 200
    event = next(e for e in client.get(_api(cid, "/events"), headers=gm).json() if e["id"] == eid)
    assert (event["title"], event["duration"]) == ("Fog", 1)


def test_r12_9_r11_3_what_is_not_safe_says_why_in_the_readers_language(client, engine):
    gm, co, cid, players, places = _world(client)
    assert client.post(_api(cid, "/phase"), json={"phase": "orders"}, headers=gm).status_code == 200
    [row] = _trail(client, cid, gm, action="phase_changed")["items"]
    assert row["undoable"] is False and "round" in row["why_not"]
    before = _rows(engine, cid)
    r = client.post(_api(cid, f"/audit/{row['id']}/undo"), headers=gm)
    assert (r.status_code, error_code(r)) == (409, "undo_unsafe")
    assert "a phase change moves the whole round on" in r.json()["error"]["message"]
    r = client.post(_api(cid, f"/audit/{row['id']}/undo"), headers={**gm, "Accept-Language": "pl"})
    assert error_code(r) == "undo_unsafe" and "phase change" not in r.json()["error"]["message"]
    assert _rows(engine, cid) == before


def test_r12_9_the_export_carries_the_trail_and_an_import_keeps_it_renumbered(client, engine):
    gm, co, cid, players, places = _world(client)
    assert client.patch(_api(cid, f"/places/{places[3]['id']}"), json={"name": "Old Mill"}, headers=gm).status_code == 200
    doc = client.get(_api(cid, "/export"), headers=gm).json()
    [edit] = [a for a in doc["audit"] if a["action"] == "place_edited"]
    mill = next(p for p in doc["places"] if p["name"] == "Old Mill")
    assert (edit["actor"], edit["target"], edit["before"]["name"]) == ("gamemaster", f"place:#{mill['id']}", "Place 3")
    # A hostile row is refused with the rest of the document.
    bad = {**doc, "audit": [*doc["audit"], {"action": "format %(x)s", "target": "place:#1"}]}
    r = client.post("/api/v1/campaigns/import", json=bad, headers=gm)
    assert (r.status_code, error_code(r)) == (422, "import_row_invalid")
    r = client.post("/api/v1/campaigns/import", json=doc, headers=gm)
    assert r.status_code == 201, r.text
    new = r.json()["id"]
    [row] = _trail(client, new, gm, action="place_edited")["items"]
    new_mill = next(p for p in client.get(_api(new, "/places"), headers=gm).json() if p["name"] == "Old Mill")
    assert (row["target"], row["actor_nickname"], row["before"]["name"]) == (f"place:{new_mill['id']}", "gamemaster", "Place 3")

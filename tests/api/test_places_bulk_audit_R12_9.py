"""R12.9 for places added many at once: the pasted list (R12.14) and a ready map (R12.13) write
one `place_added` row a place, as the map editor's one place does, each saying how it was
added; like every place added, it is not undone from the trail (the GM deletes the place), and
the trail says so. A refused list writes no row. R12.14: the places a full map could not keep
apart are named (`crowded` in the API, a flash on the page)."""

from __future__ import annotations

import math
import re

from sqlmodel import Session, select

from app.audit.models import AuditEntry
from app.maps.rules import SPOT_GAP
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign
from tests.builders.maps import add_place
from tests.builders.pages import login, post
from tests.builders.responses import error_code

API = "/api/v1"


def _rows(engine, cid) -> list[tuple]:
    with Session(engine) as s:
        entries = s.exec(select(AuditEntry).where(AuditEntry.campaign_id == cid).order_by(AuditEntry.id)).all()
        return [(e.action, e.target, e.after) for e in entries]


def _bulk(client, gm, cid, places):
    return client.post(f"{API}/campaigns/{cid}/places/bulk", headers=gm, json={"places": places})


def test_r12_9_r12_14_every_place_of_a_list_is_one_audit_row_marked_as_the_lists(client, engine):
    gm = user(client, "auditbulk")
    cid = create_campaign(client, gm)["id"]
    r = _bulk(client, gm, cid, [{"name": "Ravenhold", "income": 3, "hideout_slot": True}, {"name": "Grey Ford"}])
    assert r.status_code == 201, r.text
    made = r.json()["items"]
    rows = _rows(engine, cid)
    assert [(a, t) for a, t, _ in rows] == [("place_added", f"place:{p['id']}") for p in made]
    first = rows[0][2]
    assert (first["name"], first["income"], first["hideout_slot"], first["added_with"]) == ("Ravenhold", 3, True, "bulk list")
    assert (first["x"], first["y"]) == (made[0]["x"], made[0]["y"])
    # the trail lists them; a place added is not undone from it, and the 409 says what to do instead
    trail = client.get(f"{API}/campaigns/{cid}/audit", params={"action": "place_added"}, headers=gm).json()["items"]
    assert [i["target"] for i in trail] == [f"place:{p['id']}" for p in reversed(made)]
    undo = client.post(f"{API}/campaigns/{cid}/audit/{trail[0]['id']}/undo", headers=gm)
    assert undo.status_code == 409 and error_code(undo) == "undo_unsafe"
    assert "Delete" in undo.json()["error"]["message"]
    assert len(client.get(f"{API}/campaigns/{cid}/places", headers=gm).json()) == 2  # nothing undone
    # a refused list (a name taken) writes no row and no place
    refused = _bulk(client, gm, cid, [{"name": "Salt Marsh"}, {"name": "Grey Ford"}])
    assert refused.status_code == 422 and error_code(refused) == "places_refused"
    assert _rows(engine, cid) == rows


def test_r12_9_r12_13_a_ready_map_writes_one_row_a_place_marked_as_the_templates(client, engine):
    gm = user(client, "auditready")
    cid = create_campaign(client, gm)["id"]
    r = client.post(f"{API}/campaigns/{cid}/map-template", json={"template": "city"}, headers=gm)
    assert r.status_code == 201, r.text
    places = client.get(f"{API}/campaigns/{cid}/places", headers=gm).json()
    rows = _rows(engine, cid)
    assert len(places) == r.json()["places"] == 17
    assert sorted(t for _a, t, _after in rows) == sorted(f"place:{p['id']}" for p in places)
    assert {a for a, _t, _after in rows} == {"place_added"}
    assert {after["added_with"] for _a, _t, after in rows} == {"ready map: city"}
    by_id = {p["id"]: p for p in places}
    for _a, target, after in rows:
        place = by_id[int(target.split(":")[1])]
        assert (after["name"], after["parent_id"], after["entry"]) == (place["name"], place["parent_id"], place["entry"])
    # refused a second time (the map has places): no more rows
    again = client.post(f"{API}/campaigns/{cid}/map-template", json={"template": "region"}, headers=gm)
    assert again.status_code == 409 and error_code(again) == "ready_map_not_empty"
    assert _rows(engine, cid) == rows


def test_r12_14_the_places_a_full_map_cannot_keep_apart_are_named(client):
    gm = user(client, "crowdgm")
    cid = create_campaign(client, gm)["id"]
    few = _bulk(client, gm, cid, [{"name": f"Village {n}"} for n in range(5)])
    assert few.status_code == 201 and few.json()["crowded"] == []
    r = _bulk(client, gm, cid, [{"name": f"Hamlet {n}"} for n in range(195)])
    assert r.status_code == 201, r.text
    items, crowded = r.json()["items"], r.json()["crowded"]
    names = [p["name"] for p in items]
    assert crowded and len(crowded) < len(items) and set(crowded) <= set(names)
    assert crowded == [n for n in names if n in crowded]  # in the list's order, each once
    assert len(set(crowded)) == len(crowded)
    # the others keep SPOT_GAP from one another and from the five placed before
    before = client.get(f"{API}/campaigns/{cid}/places", headers=gm).json()
    apart = [(p["x"], p["y"]) for p in before if p["name"] not in crowded]
    assert all(math.dist(a, b) >= SPOT_GAP for n, a in enumerate(apart) for b in apart[n + 1 :])


def test_r12_14_the_page_says_which_places_to_move_when_the_map_is_full(client):
    gm = user(client, "crowdpage")
    cid = create_campaign(client, gm)["id"]
    for n in range(3):
        add_place(client, gm, cid, f"Keep {n}", x=20 + 30 * n, y=50)
    login(client, "crowdpage")
    back = f"/campaigns/{cid}/map"
    calm = post(client, f"/campaigns/{cid}/places/bulk", {"lines": "Docks; 1\nMarket", "next": back})
    assert calm.status_code == 303
    page = client.get(calm.headers["location"]).text
    assert "Places added: 2." in page and "no room" not in page
    lines = "\n".join(f"Hamlet {n}; 1" for n in range(150))
    full = post(client, f"/campaigns/{cid}/places/bulk", {"lines": lines, "next": back})
    assert full.status_code == 303 and full.headers["location"] == back
    page = client.get(back).text
    assert re.search(r"Places added: 150\. The map had no room to keep Hamlet \d+(, Hamlet \d+)*(, …)? apart", page), page
    assert "from the others: move them." in page
    assert len(client.get(f"{API}/campaigns/{cid}/places", headers=gm).json()) == 155

"""Issue 28 items 1-5: a hostile campaign document, and JSON nested too deep. Registration is
open, so anyone may send either: each is refused with a clear 422 (or 429) and changes
nothing, and what is already stored cannot loop a worker or blow up an answer."""

from __future__ import annotations

import json
import re
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pwdlib import PasswordHash
from sqlalchemy import func
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Invitation, Player
from app.chronicle.models import ChronicleEntry
from app.chronicle.texts import entry_text
from app.core.json_limits import MAX_DEPTH, too_deep
from app.exports import throttle
from app.exports.models import ImportedSeat
from app.gold.models import LedgerEntry
from app.gold.notes import NOTES, note_text
from app.maps import rules as map_rules
from app.maps.models import Place
from app.maps.service import place_labels
from app.movement.rules import top_level_point
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign, join
from tests.builders.maps import add_place
from tests.builders.pages import login, post
from tests.builders.responses import error_code

API = "/api/v1"


def document(campaign: dict | None = None, **parts) -> dict:
    return {"format": "hideout-campaign", "version": 1, "campaign": {"name": "Hostile", **(campaign or {})}, **parts}


def place(n: int, parent: int | None = None, **extra) -> dict:
    return {"id": n, "name": f"Place {n}", "parent_id": parent, **extra}


def players(n: int) -> list[dict]:
    return [{"id": i, "nickname": f"seat{i:03d}", "gold": 0} for i in range(1, n + 1)]


def counts(engine) -> tuple:
    with Session(engine) as s:
        return tuple(
            s.exec(select(func.count()).select_from(m)).one()
            for m in (Campaign, User, Player, Place, ChronicleEntry, LedgerEntry, Invitation)
        )


def refused(client, engine, headers, doc, code: str, why: str = "") -> dict:
    """The document is refused with `code` (422 unless said otherwise) and a message; nothing is created."""
    before = counts(engine)
    r = client.post(f"{API}/campaigns/import", json=doc, headers=headers)
    assert (r.status_code, error_code(r)) == (422, code), (why, r.text[:400])
    assert r.json()["error"]["message"], why
    assert counts(engine) == before, why
    return r.json()["error"]


def finishes(fn, *args, seconds: float = 5.0, **kwargs):
    """Runs `fn` in a thread: a walk that loops forever fails the test instead of hanging it."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn(*args, **kwargs)
        except Exception as exc:
            out["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{fn.__name__} still walking after {seconds} s"
    return out


# --- item 1: place trees -----------------------------------------------------------------------


def test_issue28_1_an_import_keeps_the_place_tree_rules_of_the_api(client, engine):
    """Issue 28.1 (R1.2, R1.3, R9.7): a parent cycle, a fourth level, a map on a district, an
    entry on the top map and paths the API would refuse are all refused, naming the row."""
    gm = user(client, "gamemaster")
    cases = [
        ("a cycle", [place(1, 2), place(2, 1)], [], "lie inside itself"),
        ("a place inside itself", [place(1, 1)], [], "lie inside itself"),
        ("a fourth level", [place(1), place(2, 1), place(3, 2), place(4, 3)], [], "three levels"),
        ("a map on a district", [place(1), place(2, 1), place(3, 2, has_map=True)], [], "three levels"),
        ("an entry on the top map", [place(1, entry=True)], [], "entry"),
        ("a path across maps", [place(1), place(2, 1)], [{"id": 1, "from_place_id": 1, "to_place_id": 2}], "same map"),
        ("a path to itself", [place(1)], [{"id": 1, "from_place_id": 1, "to_place_id": 1}], "two different places"),
        (
            "a path twice",
            [place(1), place(2)],
            [{"id": 1, "from_place_id": 1, "to_place_id": 2}, {"id": 2, "from_place_id": 2, "to_place_id": 1}],
            "already joined",
        ),
    ]
    for why, places, paths, says in cases:
        error = refused(client, engine, gm, document(places=places, paths=paths), "import_rule", why)
        assert says in error["message"] and "breaks a rule" in error["message"], (why, error)
    ok = document(
        places=[place(1, has_map=True), place(2, 1, has_map=True), place(3, 2), place(4, 2)],
        paths=[{"id": 1, "from_place_id": 3, "to_place_id": 4}],
    )
    assert client.post(f"{API}/campaigns/import", json=ok, headers=gm).status_code == 201  # three levels are fine


def test_issue28_1_every_walk_of_a_place_tree_ends_whatever_the_rows_say():
    """Issue 28.1: rows already stored with a cycle (or a chain too deep) cannot loop a worker:
    each walk up or down a tree stops after MAX_DEPTH levels or at a place seen before."""
    cycle = {1: 2, 2: 1, 3: None, 4: 3}
    chain = {n: n - 1 if n > 1 else None for n in range(1, 5001)}
    for parents in (cycle, chain):
        assert "error" not in finishes(map_rules.tree_order, parents)
        assert "error" not in finishes(map_rules.parent_candidates, 3, parents)
        assert "error" not in finishes(map_rules.parent_candidates, None, parents)
        assert len(finishes(map_rules.ancestors, 2, parents)["value"]) <= map_rules.MAX_DEPTH + 1
        assert "value" in finishes(map_rules.check_tree, {3: None}, {}) and "error" in finishes(map_rules.check_tree, parents, {})
    assert [p for p, _depth in map_rules.tree_order(cycle)] == [3, 4]
    assert map_rules.parent_candidates(None, cycle) == [3, 4]
    assert isinstance(finishes(map_rules.check_parent, 4, 1, cycle).get("error"), Exception)
    assert finishes(map_rules.depth_of, 1, cycle)["error"].code == "place_cycle"
    rows = [Place(id=1, campaign_id=1, name="A", parent_id=2), Place(id=2, campaign_id=1, name="B", parent_id=1)]
    labels = finishes(place_labels, rows)["value"]
    assert labels[1].startswith("B › A") and len(labels[1].split(" › ")) <= map_rules.MAX_DEPTH + 1


def test_issue28_1_a_stored_cycle_does_not_loop_the_map_or_the_places_pages(client, engine, make_client):
    """Issue 28.1: rows that already form a cycle (written before the import checked them)
    answer the map, the places list and the GM's place editor without looping a worker."""
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, name="Looped")["id"]
    city = add_place(client, gm, cid, "City")
    docks = add_place(client, gm, cid, "Docks", parent_id=city["id"])
    with Session(engine) as s:
        looped = s.get(Place, city["id"])
        looped.parent_id = docks["id"]
        s.add(looped)
        s.commit()
    browser = make_client()
    login(browser, "gamemaster")
    for who, path in (
        (client, f"{API}/campaigns/{cid}/map?of={city['id']}"),
        (client, f"{API}/campaigns/{cid}/places"),
        (browser, f"/campaigns/{cid}/places"),
        (browser, f"/campaigns/{cid}/map?of={city['id']}"),
    ):
        r = finishes(who.get, path, seconds=30, **({"headers": gm} if who is client else {}))["value"]
        assert r.status_code < 500, (path, r.status_code)


# --- item 2: no format strings from data -------------------------------------------------------

WIDE = "%(gm)99999999s"


def test_issue28_2_an_unknown_chronicle_or_ledger_kind_is_refused_at_import(client, engine):
    """Issue 28.2 (R11.1, R3.8): a chronicle kind or a ledger kind this server does not write is
    refused (422 import_unknown_kind), and so is a ledger note with parameters that is not one
    of the notes gold writes (it would be formatted)."""
    gm = user(client, "gamemaster")
    entry = {"id": 1, "round": 0, "kind": WIDE, "params": {"gm": "x"}}
    error = refused(client, engine, gm, document(chronicle=[entry]), "import_unknown_kind", "chronicle kind")
    assert "chronicle" in error["message"] and len(error["message"]) < 300
    refused(client, engine, gm, document(chronicle=[{**entry, "kind": ["list"]}]), "import_unknown_kind", "kind not text")
    ledger = {"id": 1, "player_id": 1, "amount": 0, "kind": "start", "balance_after": 0, "note": "", "params": {}}
    one = players(1)
    refused(
        client, engine, gm, document(players=one, ledger=[{**ledger, "kind": "tribute"}]), "import_unknown_kind", "ledger kind"
    )
    for note in (WIDE, "Starting gold {x:>99999999}", ["not text"]):
        broken = document(players=one, ledger=[{**ledger, "note": note, "params": {"gm": "x"}}])
        assert refused(client, engine, gm, broken, "import_row_invalid", str(note))["message"].endswith("invalid note.")
    fine = document(
        players=one,
        ledger=[
            {**ledger, "note": WIDE},
            {**ledger, "id": 2, "note": "Refund · %(event)s", "params": {"event": "{x:>99999999}"}},
        ],
    )
    assert client.post(f"{API}/campaigns/import", json=fine, headers=gm).status_code == 201  # plain text, a known note


def test_issue28_2_stored_kinds_and_notes_are_never_format_strings(client, engine):
    """Issue 28.2: rows already stored (from before the import check) answer as short text: an
    unknown kind is shown as it is, parameters are only values of a known kind's message, and a
    note is formatted only when gold wrote it with parameters."""
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, name="Stored")["id"]
    anna = join(client, gm, cid, "anna")
    with Session(engine) as s:
        pid = s.exec(select(Player.id).where(Player.campaign_id == cid)).one()
        s.add(ChronicleEntry(campaign_id=cid, kind=WIDE, params={"gm": "x"}))
        s.add(ChronicleEntry(campaign_id=cid, kind="campaign_created", params={"gm": "{x:>99999999}%(gm)99999999s"}))
        s.add(
            ChronicleEntry(
                campaign_id=cid,
                kind="battle_won",
                params={
                    "place": "P",
                    "winners": "W",
                    "rosters": [
                        {"name": "R", "points": 5, "models": "not a list"},
                        {"name": "S", "points": 1, "models": [7, {"name": "m", "points": 2}]},
                    ],
                },
            )
        )
        s.add(LedgerEntry(campaign_id=cid, player_id=pid, amount=0, kind="start", balance_after=0, note=WIDE, params={"gm": "x"}))
        s.add(
            LedgerEntry(
                campaign_id=cid,
                player_id=pid,
                amount=0,
                kind="start",
                balance_after=0,
                note="Refund · %(event)s",
                params={"event": "%(gm)99999999s"},
            )
        )
        s.commit()
    r = client.get(f"{API}/campaigns/{cid}/chronicle", headers=gm)
    assert r.status_code == 200 and len(r.content) < 5000, len(r.content)
    texts = [e["text"] for e in r.json()["items"]]
    assert WIDE in texts and "{x:>99999999}%(gm)99999999s created the campaign." in texts
    assert any(t.startswith("At P: victory for W. R, 5 pts: . S, 1 pts: m (2 pts).") for t in texts), texts
    r = client.get(f"{API}/campaigns/{cid}/ledger", headers=anna["headers"])
    assert r.status_code == 200 and len(r.content) < 5000, len(r.content)
    assert {e["note"] for e in r.json()["items"]} >= {WIDE, "Refund · %(gm)99999999s"}
    assert entry_text(ChronicleEntry(kind="campaign_created", params="text"), lambda m: m) == "%(gm)s created the campaign."
    assert note_text(LedgerEntry(note=WIDE, params={"gm": "x"}), lambda m: m) == WIDE


def test_issue28_2_every_note_gold_formats_is_in_the_closed_list():
    """Issue 28.2: NOTES (app/gold/notes.py) holds every note written with parameters, so no
    real note is left unformatted."""
    written = set()
    for path in (Path(__file__).resolve().parents[2] / "app").rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "note=" in line and "N_(" in line:
                written |= set(re.findall(r'N_\("([^"]*)"\)', line))
    assert written and written <= NOTES, written - NOTES


# --- item 3: seats, and how often -----------------------------------------------------------------


def test_issue28_3_forty_seats_hash_nothing_and_600_are_refused(client, engine, monkeypatch):
    """Issue 28.3: the largest campaign (40 players) imports without one password hashed, each
    seat a placeholder that cannot log in, the users with those nicknames invited to take their
    seats (imported players keep them); 600 seats are refused (max_players) before any work."""
    gm, mate = user(client, "gamemaster"), user(client, "seat007")
    calls = []
    monkeypatch.setattr(PasswordHash, "hash", lambda self, password, *a, **k: calls.append(password) or "x")
    big = document(players=players(600))
    error = refused(client, engine, gm, big, "import_rule", "600 seats")
    assert "40" in error["message"] or "limit" in error["message"]
    doc = document({"max_players": 40}, players=players(40))
    r = client.post(f"{API}/campaigns/import", json=doc, headers=gm)
    assert r.status_code == 201, r.text
    assert calls == []
    cid = r.json()["id"]
    with Session(engine) as s:
        seats = s.exec(select(ImportedSeat).where(ImportedSeat.campaign_id == cid)).all()
        assert len(seats) == 40 and [seat.invited_user_id is not None for seat in seats].count(True) == 1
        hashes = set(
            s.exec(select(User.password_hash).join(Player, Player.user_id == User.id).where(Player.campaign_id == cid)).all()
        )
        assert hashes == {"!seat"}
        assert s.exec(select(Invitation.status).where(Invitation.campaign_id == cid)).all() == ["pending"]
    r = client.post(f"{API}/campaigns/{cid}/invitations/accept", headers=mate)
    assert r.status_code == 200, r.text
    with Session(engine) as s:
        keys = s.exec(select(User.nickname_key).join(Player, Player.user_id == User.id).where(Player.campaign_id == cid)).all()
        assert "seat007" in keys  # the seat taken
        assert len(keys) == 40 and sum(key.startswith("Seat-") for key in keys) == 39  # no login reaches the others


def test_issue28_3_imports_are_rate_limited_per_user(client, engine, make_client, monkeypatch):
    """Issue 28.3: a user may start IMPORTS_PER_HOUR imports an hour; the next one is 429
    `import_throttled` in the standard error body with Retry-After, on the API and the page,
    and creates nothing; another user is not held back, and the hour passes."""
    now = [datetime(2026, 12, 2, 12, 0, tzinfo=UTC)]
    monkeypatch.setattr(throttle, "IMPORTS_PER_HOUR", 2)
    monkeypatch.setattr(throttle, "utcnow", lambda: now[0])
    gm, other = user(client, "gamemaster"), user(client, "other")
    for _ in range(2):
        assert client.post(f"{API}/campaigns/import", json=document(), headers=gm).status_code == 201
    before = counts(engine)
    r = client.post(f"{API}/campaigns/import", json=document(), headers=gm)
    assert (r.status_code, error_code(r)) == (429, "import_throttled") and set(r.json()["error"]) >= {
        "code",
        "message",
        "details",
    }
    assert r.headers["Retry-After"] == "3600" and "Too many imports" in r.json()["error"]["message"]
    assert counts(engine) == before
    browser = make_client()
    login(browser, "gamemaster")
    page = post(
        browser,
        "/campaigns/new/import",
        token_from="/campaigns/new/import",
        files={"file": ("c.json", json.dumps(document()).encode(), "application/json")},
    )
    assert page.status_code == 429 and page.headers["Retry-After"] == "3600" and 'role="alert"' in page.text
    assert counts(engine) == before
    assert client.post(f"{API}/campaigns/import", json=document(), headers=other).status_code == 201
    now[0] += timedelta(hours=1)
    assert client.post(f"{API}/campaigns/import", json=document(), headers=gm).status_code == 201
    assert throttle.IMPORTS_PER_HOUR >= 1


# --- item 4: settings -------------------------------------------------------------------------------


def test_issue28_4_imported_settings_pass_the_apis_schemas_and_rules(client, engine):
    """Issue 28.4 (R2.x settings, R6.5 rosters): what a GM could not set through the API is not
    imported either; each case is a 422 that names what is wrong, and nothing is created."""
    gm = user(client, "gamemaster")
    battle_won = {"id": 1, "round": 1, "kind": "battle_won", "params": {"place": "P", "winners": "W"}}
    cases = [
        ("clock as text", document({"clock": "thirty minutes"}), "import_row_invalid", "clock"),
        (
            "a clock value as text",
            document({"clock": {"minutes_per_side": "30"}}),
            "import_row_invalid",
            "clock.minutes_per_side",
        ),
        (
            "an event clock as text",
            document(places=[place(1)], events=[{"id": 1, "place_id": 1, "title": "E", "clock": "x"}]),
            "import_row_invalid",
            "clock",
        ),
        (
            "rosters not a list",
            document(chronicle=[{**battle_won, "params": {**battle_won["params"], "rosters": "R"}}]),
            "import_row_invalid",
            "params.rosters",
        ),
        (
            "a roster model not a row",
            document(chronicle=[{**battle_won, "params": {"rosters": [{"name": "R", "points": 5, "models": ["m"]}]}}]),
            "import_row_invalid",
            "params.rosters",
        ),
        ("running without a phase", document({"status": "running", "round": 1}), "import_row_invalid", "phase"),
        ("running in round 0", document({"status": "running", "round": 0, "phase": "orders"}), "import_row_invalid", "round"),
        ("setup in a phase", document({"status": "setup", "phase": "orders"}), "import_row_invalid", "phase"),
        ("a negative alliance fee", document({"alliance_fee": -10}), "import_row_invalid", "alliance_fee"),
        ("max players as text", document({"max_players": "6"}), "import_row_invalid", "max_players"),
        ("max players under the roster", document({"max_players": 2}, players=players(3)), "import_rule", "3 players"),
    ]
    for why, doc, code, says in cases:
        error = refused(client, engine, gm, doc, code, why)
        assert says in error["message"], (why, error["message"])


# --- item 5: deep JSON ------------------------------------------------------------------------------


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def test_issue28_5_json_nested_too_deep_is_a_422_on_every_json_route(client, engine, make_client):
    """Issue 28.5: 100,000 levels answer 422 `json_too_deep` (not a RecursionError's 500) on the
    import API — whatever the content type — on any other JSON route, and on the import page."""
    gm = user(client, "gamemaster")
    before = counts(engine)
    body = b'{"format": "hideout-campaign", "version": 1, "campaign": ' + deep(100_000) + b"}"
    for path, kind in (
        (f"{API}/campaigns/import", "application/json"),
        (f"{API}/campaigns/import", "text/plain"),
        (f"{API}/campaigns", "application/json"),
        (f"{API}/campaigns", None),
    ):
        headers = {**gm, **({"Content-Type": kind} if kind else {})}
        r = client.post(path, content=body, headers=headers)
        assert (r.status_code, error_code(r)) == (422, "json_too_deep"), (path, kind, r.text[:200])
        assert "64" in r.json()["error"]["message"]
    r = client.post(
        f"{API}/campaigns",
        content=b'{"name": "Ok", "story": "' + b"[" * 1000 + b'"}',
        headers={**gm, "Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text  # brackets inside text are no nesting
    r = client.post(f"{API}/campaigns/import", content=deep(MAX_DEPTH), headers={**gm, "Content-Type": "application/json"})
    assert error_code(r) == "import_not_export"  # 64 levels are parsed (and are no export)
    r = client.post(
        f"{API}/campaigns", content=deep(100_000), headers={**gm, "Content-Type": "application/json", "Accept-Language": "pl"}
    )
    assert r.status_code == 422 and "poziom" in r.json()["error"]["message"]
    user(client, "anna")
    browser = make_client()
    login(browser, "anna")
    page = post(
        browser,
        "/campaigns/new/import",
        token_from="/campaigns/new/import",
        files={"file": ("deep.json", body, "application/json")},
    )
    assert page.status_code == 422 and "64" in page.text and 'role="alert"' in page.text
    assert counts(engine)[0] == before[0] + 1  # only the "Ok" campaign


def test_issue28_5_the_depth_is_measured_without_parsing():
    """Issue 28.5: too_deep reads the bytes: brackets in strings (escaped quotes too) do not
    count, braces do, and brackets opened and never closed count as levels."""
    assert not too_deep(deep(MAX_DEPTH)) and too_deep(deep(MAX_DEPTH + 1))
    assert not too_deep(b'{"a": "' + b"[" * 500 + b'\\" [[[["}') and too_deep(b'{"a":' * 65 + b"1" + b"}" * 65)
    assert too_deep(b"[" * 100_000) and not too_deep(b"[]" * 100_000) and not too_deep(b"]" * 100_000)
    assert not too_deep(b'[1, {"b": [2, [3]]}, "]]]]"]')


def test_issue28_1_movement_walks_up_a_stored_cycle_in_bounded_steps():
    """R9.8's nearest hideout measures on the top map: the walk up ends on a cycle too."""
    points = {1: (10.0, 10.0), 2: (50.0, 50.0), 3: (90.0, 90.0)}
    assert top_level_point(3, {3: 2, 2: None}, points) == (50.0, 50.0)
    assert top_level_point(1, {1: 2, 2: 1}, points) in (points[1], points[2])

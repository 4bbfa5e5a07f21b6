"""R12.4, the campaign's end over the API: the standings (places, hideouts, battles fought and
won, experience, gold spent), and a finished campaign refusing every write — each write route
of the API walked from the OpenAPI document — with 409 campaign_read_only, changing nothing,
while outsiders are still told nothing exists."""

from __future__ import annotations

import re

from sqlalchemy import text

from tests.api.test_map_history_R12_6 import _ended_round
from tests.builders.accounts import user
from tests.builders.responses import error_code

# Writes a finished campaign still takes (app/archive/deps.py, OPEN_WHEN_FINISHED).
OPEN = {
    ("POST", "/api/v1/campaigns/{cid}/copy"),
    ("POST", "/api/v1/campaigns/{cid}/letters/{lid}/read"),
    ("POST", "/api/v1/campaigns/{cid}/letters/{lid}/unread"),
    ("DELETE", "/api/v1/campaigns/{cid}/webhooks/{hid}"),
    ("DELETE", "/api/v1/campaigns/{cid}/screen-links/{lid}"),
}


def _standings(client, rnd, who):
    r = client.get(f"/api/v1/campaigns/{rnd.cid}/standings", headers=who)
    assert r.status_code == 200, r.text
    return {row["nickname"]: row for row in r.json()["items"]}


def test_r12_4_standings_count_places_hideouts_battles_experience_and_gold_spent(client):
    rnd = _ended_round(client)  # player0 beat player1 and took their hideout
    rows = _standings(client, rnd, rnd.h(1))
    winner, loser = rows["player0"], rows["player1"]
    assert (winner["places"], winner["hideouts"], winner["battles_fought"], winner["battles_won"]) == (2, 2, 1, 1)
    assert (loser["places"], loser["hideouts"], loser["battles_fought"], loser["battles_won"]) == (0, 0, 1, 0)
    assert list(rows) == ["player0", "player1"]  # most places first
    # A company's figures are its owner's and the GM's (R11.2): another player gets null.
    assert loser["gold_spent"] > 0 and loser["xp"] >= 0
    assert winner["gold_spent"] is None and winner["xp"] is None
    by_gm = _standings(client, rnd, rnd.gm)
    assert by_gm["player0"]["gold_spent"] > 0 and by_gm["player1"]["gold_spent"] == loser["gold_spent"]
    ledger = client.get(f"/api/v1/campaigns/{rnd.cid}/ledger", headers=rnd.h(0)).json()["items"]
    assert by_gm["player0"]["gold_spent"] == -sum(e["amount"] for e in ledger if e["kind"] == "purchase")
    outsider = user(client, "outsider")
    assert client.get(f"/api/v1/campaigns/{rnd.cid}/standings", headers=outsider).status_code == 404
    assert client.get(f"/api/v1/campaigns/{rnd.cid}/standings").status_code == 401


def test_r12_4_standings_leave_transfers_out_of_gold_spent(client):
    rnd = _ended_round(client)
    before = _standings(client, rnd, rnd.h(1))
    r = client.patch(f"/api/v1/campaigns/{rnd.cid}", json={"modules": {"gold_transfers": True}}, headers=rnd.gm)
    sent = client.post(
        f"/api/v1/campaigns/{rnd.cid}/transfers",
        json={"to_player_id": rnd.players[1]["player_id"], "amount": 5},
        headers=rnd.h(0),
    )
    if r.status_code == 200 and sent.status_code == 201:
        assert _standings(client, rnd, rnd.h(1)) == before  # a secret transfer changes no figure


def _fill(path: str, ids: dict) -> str:
    return re.sub(r"{(\w+)}", lambda m: str(ids.get(m.group(1), 1)), path)


def test_r12_4_a_finished_campaign_refuses_every_write_route_and_changes_nothing(client, app):
    rnd = _ended_round(client)
    cid = rnd.cid
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=rnd.gm).status_code == 200
    before = [
        client.get(f"/api/v1/campaigns/{cid}{p}", headers=rnd.gm).json() for p in ("", "/chronicle", "/places", "/standings")
    ]
    paths = app.openapi()["paths"]
    outsider = user(client, "outsider")
    walked = 0
    for path, operations in paths.items():
        if not path.startswith("/api/v1/campaigns/{cid}"):
            continue
        for method in operations:
            method = method.upper()
            if method not in ("POST", "PUT", "PATCH", "DELETE") or (method, path) in OPEN:
                continue
            url = _fill(path, {"cid": cid})
            for who in (rnd.gm, rnd.h(0)):
                r = client.request(method, url, json={}, headers=who)
                assert (r.status_code, error_code(r)) == (409, "campaign_read_only"), (method, path, r.text)
            assert client.request(method, url, json={}, headers=outsider).status_code == 404, (method, path)
            walked += 1
    assert walked > 60
    after = [
        client.get(f"/api/v1/campaigns/{cid}{p}", headers=rnd.gm).json() for p in ("", "/chronicle", "/places", "/standings")
    ]
    assert after == before


def test_r12_5_a_screen_link_s_token_is_never_kept_in_a_one_tap_answer(client, engine):
    """R11.6 against R11.2: a kept answer would hold the link's token in plain text for a day,
    so an answer naming a new link is never kept; a repeat makes a second link, which the GM
    sees on the Season page and can revoke."""
    rnd = _ended_round(client)
    headers = {**rnd.gm, "Idempotency-Key": "screen-once-1"}
    first = client.post(f"/api/v1/campaigns/{rnd.cid}/screen-links", headers=headers)
    again = client.post(f"/api/v1/campaigns/{rnd.cid}/screen-links", headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"] + 1 and again.json()["url"] != first.json()["url"]
    calendar = client.post(f"/api/v1/campaigns/{rnd.cid}/calendar-link", headers={**rnd.h(0), "Idempotency-Key": "cal-1"})
    assert calendar.status_code == 201
    with engine.connect() as conn:
        kept = conn.execute(text("SELECT body FROM idempotency_key")).scalars().all()
    for url in (first.json()["url"], again.json()["url"], calendar.json()["url"]):
        token = url.rsplit("/", 1)[1].removesuffix(".ics")
        assert not any(body and token.encode() in body for body in kept)
    other = client.post(f"/api/v1/campaigns/{rnd.cid}/screen-links", headers=rnd.gm).json()
    # A player may not make one; refused, nothing is made.
    r = client.post(f"/api/v1/campaigns/{rnd.cid}/screen-links", headers=rnd.h(0))
    assert (r.status_code, error_code(r)) == (403, "gm_only")
    assert client.post(f"/api/v1/campaigns/{rnd.cid}/screen-links", headers=rnd.gm).json()["id"] == other["id"] + 1


def test_r12_4_a_finished_campaign_still_answers_a_literal_path_s_405_and_a_bad_id_s_404(client):
    """Schemathesis found PATCH /events/library answered 409 once the campaign was finished:
    "library" is no event, so the route's own answer comes first, finished or not."""
    rnd = _ended_round(client)
    cid = rnd.cid
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=rnd.gm).status_code == 200
    literal = client.patch(f"/api/v1/campaigns/{cid}/events/library", headers=rnd.gm)
    assert literal.status_code == 405 and "GET" in literal.headers["allow"]
    assert client.delete(f"/api/v1/campaigns/{cid}/events/0", headers=rnd.gm).status_code == 404
    assert error_code(client.delete(f"/api/v1/campaigns/{cid}/events/1", headers=rnd.gm)) == "campaign_read_only"

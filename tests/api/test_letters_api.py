"""Sealed letters over the API (R8.12, R9.4, R11.2): players and the GM write to each other;
a letter is seen by its sender and its recipient only — never by the other players, the GM
when not a party, an outsider or an anonymous caller, who all get the answer a letter that
does not exist gets; read marks are the recipient's; refusals change nothing; the chronicle
never hears of letters."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlmodel import Session, func, select

from app.letters.models import Letter
from tests.builders.accounts import user
from tests.builders.campaigns import campaign_with_players, create_campaign, join, running_campaign
from tests.builders.responses import error_code
from tests.unit.test_letter_markdown import HOSTILE, assert_harmless


@dataclass
class W:
    client: object
    gm: dict
    cid: int
    players: list[dict]

    def url(self, path: str = "") -> str:
        return f"/api/v1/campaigns/{self.cid}/letters{path}"

    def h(self, who) -> dict:
        if isinstance(who, dict):
            return who
        return self.gm if who == "gm" else self.players[who]["headers"]

    def pid(self, i: int) -> int:
        return self.players[i]["player_id"]

    def send(self, who, to, subject: str = "Greetings", body: str = "Hail, neighbour.", expect: int = 201):
        payload = {"to_gm": True} if to == "gm" else {"to_player_id": self.pid(to)}
        r = self.client.post(self.url(), json={**payload, "subject": subject, "body": body}, headers=self.h(who))
        assert r.status_code == expect, r.text
        return r.json()

    def box(self, who, box: str = "in", **query):
        params = {"box": box, **query}
        r = self.client.get(self.url(), params=params, headers=self.h(who))
        assert r.status_code == 200, r.text
        return r.json()

    def ids(self, who, box: str = "in") -> list[int]:
        return [x["id"] for x in self.box(who, box, per_page=200)["items"]]


def world(client, n: int = 3) -> W:
    gm, cid, players, _places = campaign_with_players(client, n)
    return W(client, gm, cid, players)


def count_letters(engine) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Letter)).one()


def rows(engine) -> list[tuple]:
    with Session(engine) as s:
        return [
            (x.id, x.from_player_id, x.to_player_id, x.subject, x.body, x.read_at, x.thread_id)
            for x in s.exec(select(Letter).order_by(Letter.id)).all()
        ]


def test_r8_12_players_and_the_gm_write_to_each_other(client):
    w = world(client)
    a = w.send(0, 1, "Truce", "Let us *not* fight at the ford.")
    assert (a["from_player_id"], a["to_player_id"], a["from_gm"], a["to_gm"]) == (w.pid(0), w.pid(1), False, False)
    assert (a["subject"], a["body"], a["read_at"], a["reply_to_id"], a["thread_id"]) == (
        "Truce",
        "Let us *not* fight at the ford.",
        None,
        None,
        a["id"],
    )
    assert a["body_html"] == "<p>Let us <em>not</em> fight at the ford.</p>\n"
    assert a["created_at"]
    to_gm = w.send(1, "gm", "A complaint")
    assert (to_gm["from_player_id"], to_gm["to_player_id"], to_gm["to_gm"]) == (w.pid(1), None, True)
    from_gm = w.send("gm", 2, "Your hideout")
    assert (from_gm["from_player_id"], from_gm["to_player_id"], from_gm["from_gm"]) == (None, w.pid(2), True)
    # Each box holds what its owner received or sent, newest first.
    assert w.ids(1, "in") == [a["id"]] and w.ids(1, "out") == [to_gm["id"]]
    assert w.ids("gm", "in") == [to_gm["id"]] and w.ids("gm", "out") == [from_gm["id"]]
    assert w.ids(0, "in") == [] and w.ids(0, "out") == [a["id"]]
    assert w.ids(2, "in") == [from_gm["id"]]
    # The default box is the inbox.
    assert [x["id"] for x in client.get(w.url(), headers=w.h(1)).json()["items"]] == [a["id"]]
    assert client.get(w.url(f"/{a['id']}"), headers=w.h(1)).json() == a


def test_r8_12_r11_5_refused_letters_change_nothing(client, engine):
    w = world(client)
    other_gm = user(client, "othergm")
    other_cid = create_campaign(client, other_gm, name="Elsewhere")["id"]
    stranger = join(client, other_gm, other_cid, "stranger")
    w.send(0, 1)
    before = rows(engine)

    def refused(who, body, status, code):
        r = client.post(w.url(), json=body, headers=w.h(who))
        assert r.status_code == status, r.text
        assert error_code(r) == code
        assert rows(engine) == before

    ok = {"subject": "S", "body": "B"}
    refused(0, {"to_player_id": w.pid(0), **ok}, 422, "letter_to_self")
    refused("gm", {"to_gm": True, **ok}, 422, "letter_to_self")
    refused(0, {"to_player_id": w.pid(1), "to_gm": True, **ok}, 422, "letter_recipient")
    refused(0, ok, 422, "letter_recipient")
    # A player of another campaign, or nobody at all, is simply not found.
    refused(0, {"to_player_id": stranger["player_id"], **ok}, 404, "not_found")
    refused(0, {"to_player_id": 2**31 - 1, **ok}, 404, "not_found")
    # Subject and body are required, within their limits; nothing else is accepted.
    refused(0, {"to_player_id": w.pid(1), "subject": "", "body": "B"}, 422, "validation_error")
    refused(0, {"to_player_id": w.pid(1), "subject": "   ", "body": "B"}, 422, "validation_error")
    refused(0, {"to_player_id": w.pid(1), "subject": "x" * 201, "body": "B"}, 422, "validation_error")
    refused(0, {"to_player_id": w.pid(1), "subject": "S"}, 422, "validation_error")
    refused(0, {"to_player_id": w.pid(1), "subject": "S", "body": " \n\t "}, 422, "validation_error")
    refused(0, {"to_player_id": w.pid(1), "subject": "S", "body": "x" * 20_001}, 422, "validation_error")
    refused(0, {"to_player_id": w.pid(1), "subject": "S", "body": "B", "from_player_id": w.pid(2)}, 422, "validation_error")
    refused(0, {"to_player_id": True, "subject": "S", "body": "B"}, 422, "validation_error")
    # Outsiders are told nothing exists; anonymous callers are asked to log in.
    refused(stranger["headers"], {"to_player_id": w.pid(1), **ok}, 404, "not_found")
    r = client.post(w.url(), json={"to_player_id": w.pid(1), **ok})
    assert r.status_code == 401 and rows(engine) == before
    # The limits are exact: 200 and 20,000 characters pass (a CRLF counts as one newline).
    w.send(0, 1, "x" * 200, "y" * 19_999 + "\n")
    body = w.send(0, 1, "CRLF", "a\r\nb" + "c" * 19_997)["body"]
    assert body == "a\nb" + "c" * 19_997


def test_r8_12_a_finished_campaign_keeps_its_letters_but_sends_none(client, engine):
    gm, cid, players, _ = running_campaign(client, 2)
    w = W(client, gm, cid, players)
    letter = w.send(0, 1)
    assert client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "finished"}, headers=gm).status_code == 200
    before = rows(engine)
    r = client.post(w.url(), json={"to_player_id": w.pid(0), "subject": "S", "body": "B"}, headers=w.h(1))
    assert (r.status_code, error_code(r)) == (409, "campaign_read_only")
    r = client.post(w.url(f"/{letter['id']}/reply"), json={"body": "B"}, headers=w.h(1))
    assert (r.status_code, error_code(r)) == (409, "campaign_read_only")
    assert rows(engine) == before
    assert w.ids(1) == [letter["id"]]
    # Read marks change nothing of the game: the recipient still keeps them.
    assert client.post(w.url(f"/{letter['id']}/read"), headers=w.h(1)).status_code == 200


def test_r8_12_r11_2_nobody_but_the_two_parties_sees_a_letter_over_the_api(client, engine):
    w = world(client)
    outsider = user(client, "outsider")
    secret = w.send(0, 1, "Secret plan", "Meet at midnight.")
    to_gm = w.send(0, "gm", "For the GM only")
    lid = secret["id"]
    missing = client.get(w.url("/999999"), headers=w.h(2))
    assert missing.status_code == 404
    before = rows(engine)
    # The other player and the GM (not a party) see neither box entry nor letter, nor the count.
    for who in (2, "gm"):
        for box in ("in", "out"):
            page = w.box(who, box)
            assert lid not in [x["id"] for x in page["items"]]
            assert "Secret plan" not in str(page)
        assert w.box(who)["unread"] == (1 if who == "gm" else 0)
        for method, path, body in (
            ("GET", f"/{lid}", None),
            ("POST", f"/{lid}/read", None),
            ("POST", f"/{lid}/unread", None),
            ("POST", f"/{lid}/reply", {"body": "Let me in"}),
        ):
            r = client.request(method, w.url(path), json=body, headers=w.h(who))
            assert r.status_code == 404, (who, path, r.text)
            # Exactly the answer a letter that does not exist gets.
            assert r.json() == missing.json()
    # Player 2 does not see the letter to the GM either.
    r = client.get(w.url(f"/{to_gm['id']}"), headers=w.h(2))
    assert r.status_code == 404 and r.json() == missing.json()
    # An outsider (a user of no campaign) and an anonymous caller learn nothing.
    for headers, status in ((outsider, 404), ({}, 401)):
        for method, path in (
            ("GET", ""),
            ("GET", "?box=out"),
            ("GET", f"/{lid}"),
            ("POST", f"/{lid}/read"),
            ("POST", f"/{lid}/unread"),
            ("POST", f"/{lid}/reply"),
        ):
            r = client.request(method, w.url(path), json={"body": "x"} if path.endswith("reply") else None, headers=headers)
            assert r.status_code == status, (path, r.text)
            assert "Secret plan" not in r.text
    assert rows(engine) == before
    # The two parties do see it.
    assert client.get(w.url(f"/{lid}"), headers=w.h(0)).json()["subject"] == "Secret plan"
    assert client.get(w.url(f"/{lid}"), headers=w.h(1)).json()["subject"] == "Secret plan"


def test_r8_12_read_marks_are_the_recipients_and_reading_over_the_api_marks_nothing(client):
    w = world(client)
    letter = w.send(0, 1)
    lid = letter["id"]
    assert w.box(1)["unread"] == 1 and w.box(0)["unread"] == 0
    # Reading it (the API) marks nothing: marks are explicit.
    assert client.get(w.url(f"/{lid}"), headers=w.h(1)).json()["read_at"] is None
    # The sender cannot mark it (and is told why: they can see it).
    r = client.post(w.url(f"/{lid}/read"), headers=w.h(0))
    assert (r.status_code, error_code(r)) == (403, "letter_recipient_only")
    assert client.get(w.url(f"/{lid}"), headers=w.h(1)).json()["read_at"] is None
    first = client.post(w.url(f"/{lid}/read"), headers=w.h(1)).json()["read_at"]
    assert first is not None and w.box(1)["unread"] == 0
    # Marking read again keeps the first reading time; unread clears it.
    assert client.post(w.url(f"/{lid}/read"), headers=w.h(1)).json()["read_at"] == first
    assert client.post(w.url(f"/{lid}/unread"), headers=w.h(1)).json()["read_at"] is None
    assert w.box(1)["unread"] == 1
    # The sender sees in the outbox whether it was read.
    client.post(w.url(f"/{lid}/read"), headers=w.h(1))
    assert w.box(0, "out")["items"][0]["read_at"] is not None
    # The GM's letters: the GM marks the ones addressed to the GM.
    to_gm = w.send(2, "gm")
    assert w.box("gm")["unread"] == 1
    assert client.post(w.url(f"/{to_gm['id']}/read"), headers=w.h("gm")).status_code == 200
    r = client.post(w.url(f"/{to_gm['id']}/read"), headers=w.h(2))
    assert (r.status_code, error_code(r)) == (403, "letter_recipient_only")


def test_r8_12_replies_go_to_the_other_party_in_the_same_thread(client):
    w = world(client)
    first = w.send(0, 1, "Truce")
    r = client.post(w.url(f"/{first['id']}/reply"), json={"body": "Agreed."}, headers=w.h(1))
    assert r.status_code == 201, r.text
    answer = r.json()
    assert (answer["from_player_id"], answer["to_player_id"], answer["subject"], answer["thread_id"], answer["reply_to_id"]) == (
        w.pid(1),
        w.pid(0),
        "Re: Truce",
        first["id"],
        first["id"],
    )
    # A reply to the reply: still one thread, still one "Re:".
    again = client.post(w.url(f"/{answer['id']}/reply"), json={"body": "Good."}, headers=w.h(0)).json()
    assert (again["to_player_id"], again["subject"], again["thread_id"], again["reply_to_id"]) == (
        w.pid(1),
        "Re: Truce",
        first["id"],
        answer["id"],
    )
    # The sender adds to their own letter: it goes to its recipient; a subject of one's own.
    more = client.post(w.url(f"/{again['id']}/reply"), json={"body": "PS", "subject": "P.S."}, headers=w.h(0)).json()
    assert (more["to_player_id"], more["subject"], more["thread_id"]) == (w.pid(1), "P.S.", first["id"])
    # With the GM: a player's letter to the GM is answered to the player, and back.
    to_gm = w.send(2, "gm", "Rules question")
    gm_answer = client.post(w.url(f"/{to_gm['id']}/reply"), json={"body": "Yes."}, headers=w.h("gm")).json()
    assert (gm_answer["from_player_id"], gm_answer["to_player_id"], gm_answer["from_gm"]) == (None, w.pid(2), True)
    back = client.post(w.url(f"/{gm_answer['id']}/reply"), json={"body": "Thanks."}, headers=w.h(2)).json()
    assert (back["to_player_id"], back["to_gm"], back["thread_id"]) == (None, True, to_gm["id"])
    # A reply must say something.
    r = client.post(w.url(f"/{first['id']}/reply"), json={"body": ""}, headers=w.h(1))
    assert r.status_code == 422
    r = client.post(w.url(f"/{first['id']}/reply"), json={"body": "x", "subject": ""}, headers=w.h(1))
    assert r.status_code == 422


def test_r9_4_with_the_module_off_every_letter_call_is_refused(client, engine):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm, modules={"letters": False})["id"]
    anna, borys = join(client, gm, cid, "anna"), join(client, gm, cid, "borys")
    url = f"/api/v1/campaigns/{cid}/letters"
    for method, path, body in (
        ("GET", "", None),
        ("GET", "?box=out", None),
        ("GET", "/1", None),
        ("POST", "/1/read", None),
        ("POST", "/1/unread", None),
        ("POST", "/1/reply", {"body": "x"}),
        ("POST", "", {"to_player_id": borys["player_id"], "subject": "S", "body": "B"}),
    ):
        r = client.request(method, url + path, json=body, headers=anna["headers"])
        assert (r.status_code, error_code(r)) == (409, "module_disabled"), (method, path, r.text)
        assert "Messages" in r.json()["error"]["message"]
    assert count_letters(engine) == 0


def test_r8_12_boxes_are_paginated_newest_first(client):
    w = world(client, 2)
    sent = [w.send(0, 1, f"Letter {i}")["id"] for i in range(7)]
    page1 = w.box(1, per_page=3)
    assert (page1["page"], page1["pages"], page1["total"], page1["unread"]) == (1, 3, 7, 7)
    assert [x["id"] for x in page1["items"]] == sent[::-1][:3]
    page3 = w.box(1, page=3, per_page=3)
    assert [x["id"] for x in page3["items"]] == [sent[0]]
    assert w.box(0, "out", per_page=5)["total"] == 7 and w.box(0, "in")["total"] == 0
    r = client.get(w.url(), params={"box": "all"}, headers=w.h(1))
    assert r.status_code == 422


def test_r11_1_r8_12_letters_never_reach_the_chronicle(client):
    w = world(client)
    chronicle = client.get(f"/api/v1/campaigns/{w.cid}/chronicle", headers=w.h(2)).json()
    letter = w.send(0, 1, "Secret plan", "Meet at midnight.")
    client.post(w.url(f"/{letter['id']}/reply"), json={"body": "Agreed."}, headers=w.h(1))
    client.post(w.url(f"/{letter['id']}/read"), headers=w.h(1))
    w.send("gm", 0, "From the GM")
    for who in (0, 1, 2, "gm"):
        after = client.get(f"/api/v1/campaigns/{w.cid}/chronicle", headers=w.h(who)).json()
        assert after["total"] == chronicle["total"]
        assert "Secret plan" not in str(after) and "GM" not in str(after)


@pytest.mark.parametrize("body", HOSTILE)
def test_r8_12_r11_2_hostile_markdown_in_the_api_is_rendered_harmless(client, body):
    w = world(client, 2)
    letter = w.send(0, 1, "Hostile", body)
    assert letter["body"] == body.replace("\r\n", "\n")  # kept as written, shown harmless
    assert_harmless(letter["body_html"])
    assert "<script" not in letter["body_html"].lower() and "<img" not in letter["body_html"].lower()

"""Issue 37: what every campaign page's head shows — the unread letters' badge, the phase's
deadline, the live stream's resume point — is read in one statement (app/core/page_head.py),
with the same values as each read alone."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from sqlalchemy import bindparam, func, select

from app.campaigns.models import Player
from app.core import page_head
from app.core.db import unit_of_work
from app.core.security import SESSION_COOKIE
from tests.builders.campaigns import running_campaign
from tests.builders.guilds import guild_campaign
from tests.builders.pages import browser
from tests.web.test_letter_pages import tab_badge


def _reads_of(statements: list[str], table: str) -> list[str]:
    return [s for s in statements if re.search(rf"\bFROM {table}\b", s)]


def test_issue37_a_campaign_page_reads_its_head_in_one_statement(client, make_client, count_statements):
    gm, cid, players, _ = running_campaign(client, 2, modules={"letters": True})
    r = client.post(
        f"/api/v1/campaigns/{cid}/letters",
        json={"to_player_id": players[0]["player_id"], "subject": "Ford", "body": "At dawn."},
        headers=players[1]["headers"],
    )
    assert r.status_code == 201, r.text
    ends_at = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0).isoformat()
    r = client.put(f"/api/v1/campaigns/{cid}/deadline", json={"ends_at": ends_at, "auto_advance": False}, headers=gm)
    assert r.status_code == 200, r.text
    anna = browser(make_client, players[0]["nickname"])
    with count_statements() as counter:
        page = anna.get(f"/campaigns/{cid}/map")
    assert page.status_code == 200
    together = [s for s in counter.statements if "letters_unread" in s]
    assert len(together) == 1, counter.statements
    assert re.search(r"\bFROM live_audience\b", together[0]) and re.search(r"\bFROM phase_deadline\b", together[0])
    # No value of the head is read again on its own; the deadline's row follows its id.
    assert _reads_of(counter.statements, "letter") == together
    assert _reads_of(counter.statements, "live_audience") == together
    assert len(_reads_of(counter.statements, "phase_deadline")) == 2
    # And the values are the ones each read alone gives: one unread letter, the deadline, the
    # stream resuming after the letter's event.
    assert tab_badge(page.text, cid) == 1
    assert 'id="deadline-line"' in page.text
    assert re.search(r'/api/v1/campaigns/\d+/stream\?after=(?!0")[0-9a-f]+', page.text)


def test_issue37_each_read_keeps_its_own_parameters(engine, client, monkeypatch, count_statements):
    """Two reads may name the same parameter (`campaign_id`) with other values; a value written
    into a statement stays as it was."""
    gm, first, players_1, _ = running_campaign(client, 2)
    _, second, players_2, _ = running_campaign(client, 3, gm_name="secondgm", names=["xavier", "yolanda", "zeno"])
    count = select(func.count()).select_from(Player).where(Player.campaign_id == bindparam("campaign_id"))
    written = select(func.count()).select_from(Player).where(Player.campaign_id == second, Player.id > 0)
    reads = [
        page_head.HeadRead("_first", count, {"campaign_id": first}),
        page_head.HeadRead("_second", count, {"campaign_id": second}),
        page_head.HeadRead("_written", written, {}),
    ]
    monkeypatch.setattr(page_head.head_reads, "_plugged", tuple(lambda viewer, read=read: read for read in reads))
    viewer = SimpleNamespace()
    with unit_of_work(engine, write=False) as session:
        with count_statements() as together:
            assert [page_head.kept_in_head(session, viewer, read) for read in reads] == [2, 3, 3]
        assert together.count == 1  # none of them was read alone
        # Forgotten (a letter was just read): read alone, the others are not read again.
        del viewer.__dict__["_first"]
        with count_statements() as alone:
            assert page_head.kept_in_head(session, viewer, reads[0]) == 2
        assert alone.count == 1 and "second" not in alone.statements[0] and "written" not in alone.statements[0]


def _dashboard_statements(browser_, cid: int, count_statements) -> list[str]:
    with count_statements() as counter:
        assert browser_.get(f"/campaigns/{cid}").status_code == 200
    return counter.statements


def test_issue37_r11_2_a_dashboard_reads_nothing_more_for_others_secrets(client, make_client, count_statements):
    """A player's dashboard reads the guild requests, the round's alliances and the undone
    orders only when one of them is theirs: its statements are the same, one for one, after
    other players made a guild request and a secret alliance (SPEC R11.2: a count or a timing
    that moves with someone else's secret is a leak) — and they show once they are this
    player's."""
    g = guild_campaign(client, 4)
    bridge = g.event(4, "Bridge")
    dara = browser(make_client, g.players[3]["nickname"])
    _dashboard_statements(dara, g.cid, count_statements)  # a first visit reads the head on its own
    before = _dashboard_statements(dara, g.cid, count_statements)
    alone = [s for s in before if "live_last_seen" not in s]  # the statements besides the head's
    assert not _reads_of(alone, "guild_request") and not _reads_of(alone, "mission_alliance")
    gid = g.found(0, "Iron Wolves")["id"]
    assert g.post(1, f"/guilds/{gid}/requests").status_code == 201  # waits for player0, not for dara
    g.ally(2, bridge, 1)  # secret to all but players 1 and 2 until Battles (R8.8)
    assert _dashboard_statements(dara, g.cid, count_statements) == before
    # Dara's own: an invitation to the alliance and one to the guild.
    g.ally(1, bridge, 3)
    g.invite(0, gid, 3)
    page = dara.get(f"/campaigns/{g.cid}").text
    assert "Iron Wolves" in page and "Bridge" in page
    assert len(_dashboard_statements(dara, g.cid, count_statements)) > len(before)


def test_r11_2_the_alliances_page_reads_the_same_whether_or_not_others_allied(client, make_client, count_statements):
    g = guild_campaign(client, 4)
    bridge = g.event(4, "Bridge")
    dara = browser(make_client, g.players[3]["nickname"])

    def statements() -> list[str]:
        with count_statements() as counter:
            assert dara.get(f"/campaigns/{g.cid}/alliances").status_code == 200
        return counter.statements

    statements()  # a first visit reads the page head on its own; later ones with the login
    before = statements()
    g.ally(2, bridge, 1)  # secret to all but players 1 and 2 until Battles (R8.8)
    assert statements() == before


def _letter_to(client, cid: int, to: dict, sender: dict) -> None:
    r = client.post(
        f"/api/v1/campaigns/{cid}/letters",
        json={"to_player_id": to["player_id"], "subject": "Ford", "body": "At dawn."},
        headers=sender["headers"],
    )
    assert r.status_code == 201, r.text


def _visit(browser_, url: str, count_statements) -> tuple[str, list[str]]:
    with count_statements() as counter:
        page = browser_.get(url)
    assert page.status_code == 200
    return page.text, counter.statements


def test_issue37_a_page_visited_again_reads_its_head_with_its_login(client, make_client, count_statements):
    """The second visit of a page reads the head in the login's statement, one statement fewer,
    and draws the same page byte for byte."""
    _, cid, players, _ = running_campaign(client, 2, modules={"letters": True})
    _letter_to(client, cid, players[0], players[1])
    anna = browser(make_client, players[0]["nickname"])
    anna.get("/")  # the login's flash message
    url = f"/campaigns/{cid}/players"
    first, alone = _visit(anna, url, count_statements)
    again, together = _visit(anna, url, count_statements)
    assert len(together) == len(alone) - 1
    assert not [s for s in alone if "user_session" in s and "live_audience" in s]
    login = [s for s in together if "user_session" in s]
    assert len(login) == 1 and _reads_of(together, "live_audience") == login == _reads_of(together, "letter")
    assert again == first and tab_badge(again, cid) == 1
    # A value is never kept: the next letter shows on the next visit.
    _letter_to(client, cid, players[0], players[1])
    assert tab_badge(_visit(anna, url, count_statements)[0], cid) == 2


def test_issue37_r11_2_another_viewers_head_is_never_taken(client, make_client, count_statements):
    """The reads remembered for a login are used only if they are the viewer's own: the reads
    of another player's pages, planted under this login's key, are refused (the head is read
    on its own, as on a first visit) and the page shows this player's own values."""
    _, cid, players, _ = running_campaign(client, 3, modules={"letters": True})
    _letter_to(client, cid, players[1], players[2])  # a letter for bea only
    anna, bea = (browser(make_client, p["nickname"]) for p in players[:2])
    anna.get("/"), bea.get("/")  # the login's flash message
    url = f"/campaigns/{cid}/players"
    first, alone = _visit(anna, url, count_statements)
    _visit(bea, url, count_statements)
    key_of = {p["nickname"]: (cid, hash(b.cookies.get(SESSION_COOKIE))) for p, b in zip(players, (anna, bea))}
    page_head._SHAPES[key_of[players[0]["nickname"]]] = page_head._SHAPES[key_of[players[1]["nickname"]]]
    planted, statements = _visit(anna, url, count_statements)
    assert planted == first and tab_badge(planted, cid) == 0
    assert len(statements) == len(alone)  # the login's head columns are left unused
    assert _visit(anna, url, count_statements)[1] != statements  # and anna's own reads were kept

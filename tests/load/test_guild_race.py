"""Guilds under concurrency (R8.4, R8.3): accepts racing for the last slot of a level admit
exactly one player, who alone pays the entry fee — on SQLite and PostgreSQL."""

from __future__ import annotations

from sqlmodel import Session, func, select

from app.gold.models import LedgerEntry
from app.gold.service import balance_matches_ledger
from app.guilds.models import GuildMember
from tests.builders.guilds import GUILD, START, guild_campaign
from tests.load.test_concurrency import race


def _members(engine, gid: int) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(GuildMember).where(GuildMember.guild_id == gid)).one()


def _entry_fees(engine) -> int:
    with Session(engine) as s:
        return s.exec(
            select(func.count())
            .select_from(LedgerEntry)
            .where(LedgerEntry.kind == "guild_fee", LedgerEntry.note == "Entry fee · %(name)s")
        ).one()


def test_r8_4_two_invitees_accepting_at_once_for_the_last_slot_admit_exactly_one(client, make_client, engine):
    g = guild_campaign(client, 3)
    gid = g.found(0, "Iron Wolves")["id"]  # level 1: the founder and one ally
    invitations = {i: g.invite(0, gid, i)["id"] for i in (1, 2)}
    calls = [(lambda c, i=i: c.post(g.url(f"/guilds/{gid}/invitations/{invitations[i]}/accept"), headers=g.h(i))) for i in (1, 2)]
    answers = race(make_client, calls)
    assert sorted(r.status_code for r in answers) == [200, 409], [r.text for r in answers]
    [refused] = [r for r in answers if r.status_code == 409]
    assert refused.json()["error"]["code"] == "guild_full"
    assert _members(engine, gid) == 2 and _entry_fees(engine) == 1
    assert sorted(g.balances()[1:]) == [START - GUILD["entry_fee"], START]
    with Session(engine) as s:
        assert all(balance_matches_ledger(s, p["player_id"]) for p in g.players)


def test_r8_4_many_accepts_of_invitations_and_requests_at_once_fill_the_last_slot_once(client, make_client, engine):
    g = guild_campaign(client, 5)
    gid = g.found(0, "Iron Wolves")["id"]
    assert g.post(0, f"/guilds/{gid}/upgrade").status_code == 200  # level 2: the founder and two allies
    g.admit(0, gid, 1)  # one slot left
    invited = {i: g.invite(0, gid, i)["id"] for i in (2, 3)}
    asked = g.post(4, f"/guilds/{gid}/requests").json()["id"]
    calls = [(lambda c, i=i: c.post(g.url(f"/guilds/{gid}/invitations/{invited[i]}/accept"), headers=g.h(i))) for i in (2, 3)]
    calls.append(lambda c: c.post(g.url(f"/guilds/{gid}/requests/{asked}/accept"), headers=g.h(0)))
    answers = race(make_client, calls)
    assert sorted(r.status_code for r in answers) == [200, 409, 409], [r.text for r in answers]
    assert {r.json()["error"]["code"] for r in answers if r.status_code == 409} == {"guild_full"}
    assert _members(engine, gid) == 3 and _entry_fees(engine) == 2  # player 1's and the winner's
    with Session(engine) as s:
        assert all(balance_matches_ledger(s, p["player_id"]) for p in g.players)

"""Several schedulers at once (issue 19): every worker of a server runs one, and cron may run
`hideout tick` beside them. Two threads, each with its own sessions, pass at the same moment
after both have read the same due deadline: the database lets exactly one advance the round,
say the deadline is near, or send a day's digest. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlmodel import Session, func, select

from app.chronicle.models import ChronicleEntry
from app.gold.models import LedgerEntry
from app.season import digest, scheduler
from tests.api.test_season_deadline_api import campaign, put, soon
from tests.builders.campaigns import running_campaign
from tests.builders.rounds import to_phase


def _race(monkeypatch, run, *patched) -> list:
    """`run()` in two threads that meet at a barrier right after reading what is due (the
    functions named in `patched`), so both go on to claim the same thing."""
    barrier = threading.Barrier(2, timeout=30)
    for module, name in patched:
        original = getattr(module, name)

        def waiting(*args, _original=original, **kwargs):
            found = _original(*args, **kwargs)
            barrier.wait()
            return found

        monkeypatch.setattr(module, name, waiting)
    results, errors = [], []

    def one():
        try:
            results.append(run())
        except Exception as exc:  # reported below: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert len(results) == 2
    return results


def _count(engine, cid, kind) -> int:
    with Session(engine) as s:
        return s.exec(
            select(func.count()).select_from(ChronicleEntry).where(ChronicleEntry.campaign_id == cid, ChronicleEntry.kind == kind)
        ).one()


def test_issue19_two_schedulers_at_the_deadline_advance_the_round_once(client, app, engine, monkeypatch):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(hours=1)
    put(client, cid, gm, ends, auto=True)
    at = ends + timedelta(seconds=1)
    reports = _race(
        monkeypatch,
        lambda: scheduler.tick(app.state.engine, app.state.settings, app.state.catalog.get, now=at),
        (scheduler, "due"),
    )
    assert sorted(len(r.advanced) for r in reports) == [0, 1]
    assert campaign(client, cid, gm)["phase"] == "orders"  # one step, not two
    assert _count(engine, cid, "phase_changed") == 1


def test_issue19_two_schedulers_at_twilights_deadline_end_the_round_once(client, app, engine, monkeypatch):
    gm, cid, players, _ = running_campaign(client)
    to_phase(client, gm, cid, "twilight")
    ends = soon(hours=1)
    put(client, cid, gm, ends, auto=True)
    reports = _race(
        monkeypatch,
        lambda: scheduler.tick(app.state.engine, app.state.settings, app.state.catalog.get, now=ends),
        (scheduler, "due"),
    )
    assert sorted(len(r.advanced) for r in reports) == [0, 1]
    after = campaign(client, cid, gm)
    assert (after["round"], after["phase"]) == (2, "preparation")
    assert _count(engine, cid, "round_ended") == 1
    with Session(engine) as s:  # the round's income was paid once to each player
        paid = s.exec(
            select(LedgerEntry.player_id, func.count())
            .where(LedgerEntry.campaign_id == cid, LedgerEntry.kind == "income")
            .group_by(LedgerEntry.player_id)
        ).all()
    assert sorted(paid) == sorted((p["player_id"], 1) for p in players)


def test_issue19_two_schedulers_say_the_deadline_is_near_once(client, app, engine, monkeypatch):
    gm, cid, players, _ = running_campaign(client)
    ends = soon(hours=5)
    put(client, cid, gm, ends)
    at = ends - timedelta(minutes=30)
    reports = _race(
        monkeypatch,
        lambda: scheduler.tick(app.state.engine, app.state.settings, app.state.catalog.get, now=at),
        (scheduler, "due"),
    )
    assert sorted(len(r.near) for r in reports) == [0, 1]
    assert _count(engine, cid, "deadline_near") == 1


def test_issue19_two_senders_claim_a_users_day_once(client, app, engine, monkeypatch):
    from tests.api.test_season_digest_api import opt_in, smtp_settings

    gm, cid, players, _ = running_campaign(client)
    with smtp_settings(app) as (settings, inbox):
        opt_in(engine, players[0], "p0@example.org")
        client.post(
            f"/api/v1/campaigns/{cid}/letters",
            json={"to_player_id": players[0]["player_id"], "subject": "Hi", "body": "Hi"},
            headers=players[1]["headers"],
        )
        at = soon().replace(hour=12)
        results = _race(monkeypatch, lambda: digest.send_due(app.state.engine, settings, at), (digest, "_due_users"))
        assert sorted(results) == [0, 1]
        assert len(inbox.wait_for(1)) == 1

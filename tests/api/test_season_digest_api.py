"""The daily digest (issue 19) against a local SMTP server (aiosmtpd, on a free port): what it
lists for each user, that it names only the user's own things (SPEC R11.2: another player's
orders, letters and requests stay secret), the user's language, at most once a day and from
the configured hour, only to users who opted in, and nothing without SMTP settings."""

from __future__ import annotations

import contextlib
import socket
import threading
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.policy import default as default_policy

from aiosmtpd.controller import Controller
from sqlmodel import Session, select

from app.accounts.models import User
from app.core import formats
from app.season import digest
from app.season.models import DigestSubscription
from tests.api.test_season_deadline_api import put, soon
from tests.builders.battles import campaign_with_warbands
from tests.builders.campaigns import running_campaign
from tests.builders.rounds import send, to_phase


class Inbox:
    """What the local SMTP server received: (recipients, message)."""

    def __init__(self):
        self.messages: list = []
        self._changed = threading.Condition()

    async def handle_DATA(self, server, session, envelope):
        message = message_from_bytes(envelope.original_content or envelope.content, policy=default_policy)
        with self._changed:
            self.messages.append((list(envelope.rcpt_tos), message))
            self._changed.notify_all()
        return "250 OK"

    def wait_for(self, n: int, timeout: float = 10) -> list:
        with self._changed:
            self._changed.wait_for(lambda: len(self.messages) >= n, timeout)
        return list(self.messages)

    def to(self, address: str):
        found = [m for rcpt, m in self.messages if address in rcpt]
        assert len(found) == 1, (address, len(found))
        return found[0]

    def clear(self) -> None:
        self.messages.clear()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def smtp_settings(app, **extra):
    """The app's settings pointed at a local SMTP server started for the test."""
    inbox = Inbox()
    port = _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield (
            app.state.settings.model_copy(
                update={
                    "smtp_host": "127.0.0.1",
                    "smtp_port": port,
                    "smtp_starttls": False,
                    "smtp_from": "hideout@example.org",
                    "public_url": "https://hideout.example.org",
                    "smtp_timeout_seconds": 5.0,
                    **extra,
                }
            ),
            inbox,
        )
    finally:
        controller.stop()


def opt_in(engine, player_or_nickname, email: str, enabled: bool = True, locale: str | None = None) -> None:
    nickname = player_or_nickname if isinstance(player_or_nickname, str) else player_or_nickname["nickname"]
    with Session(engine) as s:
        user = s.exec(select(User).where(User.nickname == nickname)).one()
        if locale:
            user.locale = locale
            s.add(user)
        s.add(DigestSubscription(user_id=user.id, email=email, enabled=enabled, confirmed_at=datetime.now(UTC)))
        s.commit()


def noon(days: int = 0) -> datetime:
    return (datetime.now(UTC) + timedelta(days=days)).replace(hour=12, minute=0, second=0, microsecond=0)


def body_of(message) -> str:
    return message.get_content()


def _world(client, engine):
    """Orders with a deadline: player0 sent a warband (a secret order), player1 and player2 did
    not; player0 wrote player1 a letter; player2 asked to join player1's guild."""
    gm, cid, players, places = campaign_with_warbands(client, 3)
    to_phase(client, gm, cid, "orders")
    send(client, cid, players[0], place_id=places[-1]["id"])
    ends = soon(days=2)
    put(client, cid, gm, ends)
    r = client.post(
        f"/api/v1/campaigns/{cid}/letters",
        json={"to_player_id": players[1]["player_id"], "subject": "SECRET-SUBJECT", "body": "SECRET-BODY"},
        headers=players[0]["headers"],
    )
    assert r.status_code == 201, r.text
    r = client.post(f"/api/v1/campaigns/{cid}/guilds", json={"name": "Night Owls"}, headers=players[1]["headers"])
    assert r.status_code == 201, r.text
    r = client.post(f"/api/v1/campaigns/{cid}/guilds/{r.json()['id']}/requests", headers=players[2]["headers"])
    assert r.status_code == 201, r.text
    opt_in(engine, "gamemaster", "gm@example.org")
    for i, p in enumerate(players):
        opt_in(engine, p, f"p{i}@example.org", locale="pl" if i == 1 else None)
    return gm, cid, players, places, ends


def test_issue19_r11_2_each_digest_lists_only_its_users_own_things(client, app, engine):
    gm, cid, players, places, ends = _world(client, engine)
    with smtp_settings(app) as (settings, inbox):
        assert digest.send_due(app.state.engine, settings, noon()) == 2
        inbox.wait_for(2)
        # player0 sent orders and has nothing unread; the GM has nothing waiting: no e-mail about nothing.
        assert sorted(r for rcpt, _ in inbox.messages for r in rcpt) == ["p1@example.org", "p2@example.org"]
        one, two = body_of(inbox.to("p1@example.org")), body_of(inbox.to("p2@example.org"))
        # The deadline in each reader's language and time zone (UTC: none set), issue 34.
        en, pl = formats.when(ends, "en"), formats.when(ends, "pl")
        assert f"Orders close at {en} UTC and you have not sent any warband yet." in two
        assert f"Rozkazy zamykają się o {pl} UTC, a żadna twoja banda nie ma jeszcze rozkazu." in one
        # player1 reads it in Polish.
        assert "\n- 1 nieprzeczytane pismo\n  https://hideout.example.org/campaigns/" in one.replace("\r\n", "\n")
        assert inbox.to("p1@example.org")["Content-Language"] == "pl"
        assert "player2 prosi o przyjęcie do gildii Night Owls." in one
        assert f"https://hideout.example.org/campaigns/{cid}/letters" in one and "https://hideout.example.org/account" in one
        # Secrets: the letter's words, the order's destination, somebody else's request.
        for text in (one, two):
            assert "SECRET-SUBJECT" not in text and "SECRET-BODY" not in text and "orcs band" not in text
            assert places[-1]["name"] not in text
        assert "Night Owls" not in two and "letter" not in two and "pism" not in two
        assert inbox.to("p2@example.org")["Subject"] == "Hideout: 1 thing waits for you"
        assert inbox.to("p1@example.org")["From"] == "hideout@example.org"


def test_issue19_at_most_once_a_day_from_the_hour_on(client, app, engine):
    gm, cid, players, places, ends = _world(client, engine)
    with smtp_settings(app) as (settings, inbox):
        assert digest.send_due(app.state.engine, settings, noon().replace(hour=6)) == 0  # before 07:00 UTC
        assert digest.send_due(app.state.engine, settings, noon()) == 2
        assert digest.send_due(app.state.engine, settings, noon() + timedelta(hours=5)) == 0
        with Session(engine) as s:
            rows = {r.email: r for r in s.exec(select(DigestSubscription)).all()}
        assert rows["p1@example.org"].last_sent_at == noon() and rows["p0@example.org"].last_sent_at is None
        assert rows["p0@example.org"].last_run_on == noon().date()  # the day is done for everybody
        assert digest.send_due(app.state.engine, settings, noon(days=1)) == 2
        assert len(inbox.wait_for(4)) == 4


def test_issue19_only_users_who_opted_in_and_nothing_without_smtp(client, app, engine):
    gm, cid, players = running_campaign(client)[:3]
    to_phase(client, gm, cid, "orders")
    put(client, cid, gm, soon(days=1))
    opt_in(engine, players[0], "p0@example.org", enabled=False)
    opt_in(engine, players[1], "p1@example.org")
    # No SMTP host: off, and nobody's day is used up.
    assert digest.send_due(app.state.engine, app.state.settings, noon()) == 0
    with Session(engine) as s:
        assert all(r.last_run_on is None for r in s.exec(select(DigestSubscription)).all())
    with smtp_settings(app) as (settings, inbox):
        assert digest.send_due(app.state.engine, settings, noon()) == 1
        assert [rcpt for rcpt, _ in inbox.wait_for(1)] == [["p1@example.org"]]


def test_issue19_a_mail_server_that_is_down_is_logged_and_the_day_not_retried(client, app, engine):
    gm, cid, players = running_campaign(client)[:3]
    to_phase(client, gm, cid, "orders")
    put(client, cid, gm, soon(days=1))
    opt_in(engine, players[1], "p1@example.org")
    with smtp_settings(app) as (settings, inbox):
        dead = settings.model_copy(update={"smtp_port": _free_port()})
        assert digest.send_due(app.state.engine, dead, noon()) == 0
        assert digest.send_due(app.state.engine, settings, noon()) == 0
        assert digest.send_due(app.state.engine, settings, noon(days=1)) == 1


def test_issue19_the_gm_is_told_by_mail_when_the_auto_advance_waits(client, app, engine):
    from app.season import scheduler
    from tests.builders.settlements import play_round

    rnd = play_round(client)
    ends = soon(hours=1)
    put(client, rnd.cid, rnd.gm, ends, auto=True)
    scheduler.tick(app.state.engine, app.state.settings, app.state.catalog.get, now=ends)
    opt_in(engine, "gamemaster", "gm@example.org")
    with smtp_settings(app) as (settings, inbox):
        assert digest.send_due(app.state.engine, settings, noon()) == 1
        text = body_of(inbox.to("gm@example.org"))
        assert "The deadline has passed, but the round cannot move on by itself yet:" in text
        assert "player0 (orcs band, Place 2)" in text

"""The daily digest (issue 19): once a day, to each user who opted in, an e-mail in their
language of what waits for them in their campaigns — their own things only (reminders.py).
Off while the server has no SMTP host or no public address (`missing`). The day is claimed
in the database before the e-mail is built (a conditional UPDATE: one process wins it), so
at most one goes out per user and day; a failed delivery is logged and not retried that day."""

from __future__ import annotations

import smtplib
from datetime import datetime
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

import structlog
from sqlalchemy import or_, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.terms import campaign_words
from app.core import formats
from app.core.db import unit_of_work
from app.core.i18n import DEFAULT_LOCALE, translations
from app.core.rows import row_by_id
from app.core.templating import env
from app.season import optin, reminders, rules
from app.season.models import DigestSubscription

log = structlog.get_logger()
_SAID: set[str] = set()  # what `send_due` has told the log already, once per process


def missing(settings) -> str | None:
    """What this server lacks to send digests: "smtp" or "public_url", or None.

    Every digest must carry a way out that works (issue 28 item 6, RFC 2369/8058). Without a
    public address there is none to give: a relative link leads nowhere from a mail program,
    and a `mailto:` unsubscribe would be a promise nobody keeps, since Hideout reads no
    incoming mail. So no public address, no digest at all. Opting in stays possible (the
    confirmation link takes the address the user is on, and is the only mail sent), as it
    does without SMTP: digests start the day the administrator sets the address, and the
    Account page says meanwhile why none come."""
    if not settings.smtp_host:
        return "smtp"
    if not (settings.public_url or "").strip().rstrip("/"):
        return "public_url"
    return None


def configured(settings) -> bool:
    return missing(settings) is None


def subscription(session: Session, user_id: int) -> DigestSubscription | None:
    return row_by_id(session, DigestSubscription, user_id)


def receives(row: DigestSubscription | None) -> bool:
    """Only a confirmed address gets digests (issue 28: double opt-in)."""
    return row is not None and row.enabled and bool(row.email) and row.confirmed_at is not None


def _claim(engine: Engine, user_id: int, now: datetime) -> bool:
    today = now.date()
    with unit_of_work(engine, write=True) as session:
        statement = (
            update(DigestSubscription)
            .where(
                DigestSubscription.user_id == user_id,
                DigestSubscription.enabled.is_(True),
                DigestSubscription.confirmed_at.is_not(None),
                or_(DigestSubscription.last_run_on.is_(None), DigestSubscription.last_run_on < today),
            )
            .values(last_run_on=today)
            .execution_options(synchronize_session=False)
        )
        return session.execute(statement).rowcount == 1


def _moment_in(user: User):
    """Says an ISO moment as the reader reads it: their language and time zone (issue 34)."""
    locale = user.locale or DEFAULT_LOCALE

    def say(iso: str) -> str:
        return f"{formats.when(datetime.fromisoformat(iso), locale, user.time_zone)} {formats.zone_label(user.time_zone)}"

    return say


def compose(session: Session, user: User, settings, now: datetime) -> EmailMessage | None:
    """The user's digest, or None when nothing waits (no e-mail about nothing). What users
    named (campaigns, nicknames) is defanged: a plain-text mail must not show a stranger's
    campaign name as a link."""
    row = subscription(session, user.id)
    base = (settings.public_url or "").strip().rstrip("/")
    if not receives(row) or not base:
        return None  # without a public address no unsubscribe link: no digest (`missing`)
    catalog = translations(user.locale or DEFAULT_LOCALE)
    found = reminders.for_user(session, user, catalog.gettext)
    if not found:
        return None
    lines = [
        (
            rules.defang(c.campaign.name),
            [
                (
                    rules.defang(
                        reminders.line(
                            r, catalog.gettext, catalog.ngettext, campaign_words(c.campaign, catalog.gettext), _moment_in(user)
                        )
                    ),
                    f"{base}{r.link}",
                )
                for r in c.reminders
            ],
        )
        for c in found
    ]
    count = sum(len(c.reminders) for c in found)
    unsubscribe = optin.unsubscribe_url(base, settings.resolved_secret_key(), user.id, row.email)
    body = env.get_template("season/digest_email.html").render(
        translations=catalog,
        nickname=rules.defang(user.nickname),
        campaigns=lines,
        account=f"{base}/account",
        unsubscribe=unsubscribe,
    )
    message = EmailMessage()
    message["Subject"] = catalog.ngettext(
        "Hideout: %(num)d thing waits for you", "Hideout: %(num)d things wait for you", count
    ) % {"num": count}
    message["From"] = settings.smtp_from or f"hideout@{settings.smtp_host}"
    message["To"] = row.email
    message["Date"] = formatdate(now.timestamp(), usegmt=True)
    message["Message-ID"] = make_msgid(domain="hideout")
    message["Auto-Submitted"] = "auto-generated"
    optin.add_unsubscribe(message, unsubscribe)
    message.set_content(body)
    message["Content-Language"] = user.locale or DEFAULT_LOCALE  # after: set_content drops Content-* headers
    return message


def deliver(settings, message: EmailMessage) -> None:
    optin.deliver(settings, message)


def _due_users(engine: Engine, today) -> list[int]:
    """Who has opted in and has not had today's digest: a read, without locks."""
    with Session(engine) as session:
        return list(
            session.exec(
                select(DigestSubscription.user_id)
                .where(
                    DigestSubscription.enabled.is_(True),
                    DigestSubscription.email != "",
                    DigestSubscription.confirmed_at.is_not(None),
                    or_(DigestSubscription.last_run_on.is_(None), DigestSubscription.last_run_on < today),
                )
                .order_by(DigestSubscription.user_id)
            ).all()
        )


def send_due(engine: Engine, settings, now: datetime) -> int:
    """Every digest due today (from the configured hour, UTC); returns how many went out."""
    lacks = missing(settings)
    if lacks == "public_url" and lacks not in _SAID:
        _SAID.add(lacks)  # every tick would say it again
        log.warning(
            "digest_off_no_public_url",
            reason="HIDEOUT_PUBLIC_URL is not set: a digest could carry no unsubscribe link, so none is sent",
        )
    if lacks or not rules.digest_due(now, None, settings.digest_hour_utc):
        return 0
    sent = 0
    for user_id in _due_users(engine, now.date()):
        if not _claim(engine, user_id, now):
            continue  # another process has today's
        with Session(engine) as session:
            user = session.get(User, user_id)
            message = compose(session, user, settings, now) if user is not None else None
        if message is None:
            continue
        try:
            deliver(settings, message)
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("digest_not_sent", user_id=user_id, error=str(exc))
            continue
        with unit_of_work(engine, write=True) as session:
            session.execute(
                update(DigestSubscription)
                .where(DigestSubscription.user_id == user_id)
                .values(last_sent_at=now)
                .execution_options(synchronize_session=False)
            )
        sent += 1
    return sent

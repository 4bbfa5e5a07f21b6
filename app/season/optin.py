"""The daily digest's address (issue 28 item 6): double opt-in and one-click unsubscribe.

An address typed on the Account page receives nothing but one confirmation mail until the
link in it is opened: so the form cannot send a club's mail to a stranger. Confirmation mails
are few (rules.MAILS_PER_HOUR per user and per address), sent after the request's commit
(never inside its transaction), and their token is kept as its SHA-256 only. Every digest
carries List-Unsubscribe headers (RFC 2369/8058): a signed link that switches it off with
one POST, without a login."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import smtplib
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import quote

import structlog
from sqlalchemy import func, or_
from sqlmodel import Session, select

from app.accounts.models import User
from app.core.db import utcnow
from app.core.errors import DomainError
from app.core.i18n import DEFAULT_LOCALE, translations
from app.core.security import token_digest
from app.core.templating import env
from app.season import rules
from app.season.models import DigestConfirmationMail, DigestSubscription

log = structlog.get_logger()


@dataclass
class Saved:
    """What the Account page's form did; `mail` goes out after commit (send_after_commit)."""

    row: DigestSubscription
    outcome: str  # "on", "off", "confirm_sent", "confirm_waits" (no mail now: no SMTP), "cleared"
    mail: EmailMessage | None = None


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def unsubscribe_token(secret_key: str, user_id: int, email: str) -> str:
    """Signed, for this user and address: a link for an old address stops nothing new."""
    return f"{user_id}.{token_digest(secret_key, f'digest-unsubscribe:{user_id}:{email.strip().lower()}')[:40]}"


def unsubscribe_url(base: str, secret_key: str, user_id: int, email: str) -> str:
    return f"{base}/digest/unsubscribe?token={quote(unsubscribe_token(secret_key, user_id, email))}"


def _user_of(token: str) -> int | None:
    head, _, rest = (token or "").partition(".")
    return int(head) if head.isdigit() and rest and len(head) < 12 else None


def _sent_lately(session: Session, user_id: int, address: str, now: datetime) -> tuple[int, int]:
    since = now - timedelta(hours=1)
    by_user, to_address = session.exec(
        select(
            func.count().filter(DigestConfirmationMail.user_id == user_id),
            func.count().filter(DigestConfirmationMail.address == address),
        ).where(
            DigestConfirmationMail.sent_at > since,
            or_(DigestConfirmationMail.user_id == user_id, DigestConfirmationMail.address == address),
        )
    ).one()
    return by_user, to_address


def _confirmation(session: Session, user: User, row: DigestSubscription, settings, base: str, now: datetime) -> Saved:
    """A new link for `row.email`, mailed once the request commits; refused (nothing
    changed) past the hour's allowance. Without SMTP the address waits for a later resend."""
    if not settings.smtp_host:
        row.token_hash, row.token_sent_at = None, None
        return Saved(row, "confirm_waits")
    address = row.email.lower()
    if not rules.may_send_confirmation(*_sent_lately(session, user.id, address, now)):
        raise DomainError("digest_confirm_too_many", max=rules.MAILS_PER_HOUR)
    token = f"{user.id}.{secrets.token_urlsafe(32)}"
    row.token_hash, row.token_sent_at = _hash(token), now
    session.add(DigestConfirmationMail(user_id=user.id, address=address, sent_at=now))
    return Saved(
        row, "confirm_sent", confirmation_mail(user, row.email, settings, f"{base}/digest/confirm?token={quote(token)}", now)
    )


def _locked(session: Session, user: User) -> DigestSubscription | None:
    # The user first: two tabs saving at once count their mails one after the other.
    session.exec(select(User.id).where(User.id == user.id).with_for_update()).first()
    return session.exec(select(DigestSubscription).where(DigestSubscription.user_id == user.id).with_for_update()).first()


def set_subscription(
    session: Session, *, actor: User, email: str, enabled: bool, settings, base: str, now: datetime | None = None
) -> Saved:
    """The Account page's form. The same confirmed address: on or off at once. Another
    address: kept unconfirmed, and one confirmation mail goes to it."""
    now = now or utcnow()
    email = email.strip()
    if email:
        email = rules.check_email(email)
    elif enabled:
        raise DomainError("digest_needs_email")
    row = _locked(session, actor) or DigestSubscription(user_id=actor.id)
    if not email:
        row.email, row.enabled, row.confirmed_at, row.token_hash, row.token_sent_at = "", False, None, None, None
        saved = Saved(row, "cleared")
    elif rules.same_address(email, row.email):
        row.email, row.enabled = email, enabled
        outcome = (
            "off" if not enabled else "on" if row.confirmed_at else "confirm_pending" if row.token_sent_at else "confirm_waits"
        )
        saved = Saved(row, outcome)
    else:
        row.email, row.enabled, row.confirmed_at = email, enabled, None
        saved = _confirmation(session, actor, row, settings, base, now)
    session.add(row)
    session.flush()
    return saved


def resend(session: Session, *, actor: User, settings, base: str, now: datetime | None = None) -> Saved:
    """Another link for the address waiting to be confirmed."""
    row = _locked(session, actor)
    if row is None or not row.email or row.confirmed_at is not None:
        raise DomainError("digest_nothing_to_confirm")
    if not settings.smtp_host:
        raise DomainError("digest_no_mail_server")
    saved = _confirmation(session, actor, row, settings, base, now or utcnow())
    session.add(row)
    session.flush()
    return saved


def confirm(session: Session, *, token: str, now: datetime | None = None) -> DigestSubscription:
    """The link from the mail: whoever holds it can read that mailbox (no login needed)."""
    now = now or utcnow()
    user_id = _user_of(token)
    row = (
        session.exec(select(DigestSubscription).where(DigestSubscription.user_id == user_id).with_for_update()).first()
        if user_id is not None
        else None
    )
    if (
        row is None
        or not row.token_hash
        or not hmac.compare_digest(row.token_hash, _hash(token))
        or not rules.confirmation_live(row.token_sent_at, now)
    ):
        raise DomainError("digest_link_invalid")
    row.confirmed_at, row.token_hash, row.token_sent_at = now, None, None
    session.add(row)
    session.flush()
    return row


def unsubscribe(session: Session, *, token: str, secret_key: str) -> DigestSubscription:
    """One-click unsubscribe (RFC 8058): the signed token of the user and address."""
    user_id = _user_of(token)
    row = session.get(DigestSubscription, user_id) if user_id is not None else None
    if row is None or not row.email or not hmac.compare_digest(unsubscribe_token(secret_key, row.user_id, row.email), token):
        raise DomainError("digest_link_invalid")
    row.enabled = False
    session.add(row)
    session.flush()
    return row


# --- the mails -----------------------------------------------------------------------------------


def confirmation_mail(user: User, to: str, settings, link: str, now: datetime) -> EmailMessage:
    catalog = translations(user.locale or DEFAULT_LOCALE)
    body = env.get_template("season/digest_confirm_email.html").render(
        translations=catalog, nickname=rules.defang(user.nickname), link=link, hours=rules.CONFIRM_HOURS
    )
    message = EmailMessage()
    message["Subject"] = catalog.gettext("Hideout: confirm your e-mail address")
    message["From"] = settings.smtp_from or f"hideout@{settings.smtp_host}"
    message["To"] = to
    message["Date"] = formatdate(now.timestamp(), usegmt=True)
    message["Message-ID"] = make_msgid(domain="hideout")
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(body)
    message["Content-Language"] = user.locale or DEFAULT_LOCALE
    return message


def add_unsubscribe(message: EmailMessage, url: str) -> None:
    """RFC 8058: the mail program offers "unsubscribe", and one POST to `url` does it. One-click
    is claimed for an HTTPS link only (the RFC's rule); a plain http one is still a link."""
    message["List-Unsubscribe"] = f"<{url}>"
    if url.startswith("https://"):
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"


def deliver(settings, message: EmailMessage) -> None:
    with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=settings.smtp_timeout_seconds) as smtp:
        if settings.smtp_starttls:
            smtp.starttls()
        if settings.smtp_user:
            smtp.login(settings.smtp_user, settings.smtp_password)
        smtp.send_message(message)


def send_after_commit(settings, message: EmailMessage) -> None:
    """Run once the request has committed (a background task): a failure is logged, and the
    Account page offers to send the link again."""
    try:
        deliver(settings, message)
    except (OSError, smtplib.SMTPException) as exc:
        log.warning("digest_confirmation_not_sent", error=str(exc))

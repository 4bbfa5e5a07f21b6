"""Account use cases: registration, login with throttling, sessions, API tokens."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import bindparam, delete, func, or_, update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from app.accounts import rules
from app.accounts.models import ApiToken, LoginFailure, User, UserSession
from app.core.db import aware, utcnow
from app.core.errors import DomainError, Duration
from app.core.formats import valid_time_zone
from app.core.i18n import LOCALES
from app.core.live import user_key, wake_after_commit
from app.core.security import hash_password, new_token, token_digest, verify_password
from app.core.settings import Settings


def register(session: Session, *, nickname: str, password: str, locale: str | None = None) -> User:
    nickname = rules.check_nickname(nickname)
    rules.check_password(password)
    if locale is not None and locale not in LOCALES:
        raise DomainError("locale_unknown")
    key = rules.nickname_key(nickname)
    if session.exec(select(User.id).where(User.nickname_key == key)).first() is not None:
        raise DomainError("nickname_taken", nickname=nickname)
    user = User(nickname=nickname, nickname_key=key, password_hash=hash_password(password), locale=locale)
    session.add(user)
    session.flush()
    return user


def login_throttles(settings: Settings) -> tuple[rules.Throttle, rules.Throttle]:
    """(per address and nickname together, per address alone)."""
    first, cap = timedelta(seconds=settings.login_first_wait_seconds), timedelta(minutes=settings.login_max_wait_minutes)
    return (
        rules.Throttle(settings.login_max_failures, first, cap),
        rules.Throttle(settings.login_max_failures_per_address, first, cap),
    )


def authenticate(session: Session, settings: Settings, *, nickname: str, password: str, address: str) -> User:
    """R11.5: failed logins slow down the next attempt from the same address, for that
    nickname soon and for any nickname much later (a club shares one router); the owner
    elsewhere is never locked out. While a wait runs even the right password is refused,
    so the wait cannot be used to test passwords."""
    key, address = rules.nickname_key(nickname)[:64], address[:64]
    now = utcnow()
    since = now - timedelta(minutes=settings.login_window_minutes)
    pair = LoginFailure.nickname_key == key
    by_pair, last_pair, by_address, last_address = session.exec(
        select(func.count().filter(pair), func.max(LoginFailure.at).filter(pair), func.count(), func.max(LoginFailure.at)).where(
            LoginFailure.address == address, LoginFailure.at >= since
        )
    ).one()
    pair_policy, address_policy = login_throttles(settings)
    wait = max(
        rules.throttle_wait(pair_policy, failures=by_pair, last_failure=aware(last_pair), now=now),
        rules.throttle_wait(address_policy, failures=by_address, last_failure=aware(last_address), now=now),
    )
    if wait:
        raise DomainError("login_throttled", wait=Duration(wait))
    user = session.exec(select(User).where(User.nickname_key == key)).first()
    # Rows older than the window no longer count: each login attempt prunes them (indexed).
    session.execute(delete(LoginFailure).where(LoginFailure.at < since))
    if not verify_password(password, user.password_hash if user else None):
        session.add(LoginFailure(nickname_key=key, address=address, at=now))
        raise DomainError("login_failed", persist=True)
    # Success forgives this address's failures for this nickname, and ends dead sessions.
    session.execute(delete(LoginFailure).where(LoginFailure.address == address, pair))
    prune_sessions(session, settings)
    return user


def start_session(session: Session, secret_key: str, *, user: User) -> str:
    token = new_token()
    session.add(UserSession(user_id=user.id, token_hash=token_digest(secret_key, token)))
    return token


def prune_sessions(session: Session, settings: Settings) -> int:
    """Delete every ended session: logged out, idle too long or too old (run at each login)."""
    now = utcnow()
    result = session.execute(
        delete(UserSession).where(
            or_(
                UserSession.revoked_at.is_not(None),
                UserSession.last_seen_at <= now - timedelta(days=settings.session_idle_days),
                UserSession.created_at <= now - timedelta(days=settings.session_max_days),
            )
        )
    )
    return result.rowcount or 0


def _bookkeeping(session: Session, statement) -> bool:
    """A write a read request makes on the side (a session's last-seen time, deleting an
    ended session). In a savepoint, so that on a busy SQLite (another writer committed
    first) it is skipped and retried on a later request instead of failing this one."""
    try:
        with session.begin_nested():
            session.execute(statement)
        return True
    except OperationalError:
        return False


def session_over(live: UserSession, settings: Settings, now) -> bool:
    """Revoked, idle too long, or logged in too long ago."""
    return live.revoked_at is not None or rules.session_expired(
        created_at=aware(live.created_at),
        last_seen_at=aware(live.last_seen_at),
        now=now,
        idle=timedelta(days=settings.session_idle_days),
        max_age=timedelta(days=settings.session_max_days),
    )


def user_for_session(session: Session, settings: Settings, secret_key: str, token: str) -> tuple[User | None, bool]:
    """The session's user, or None; the flag says a session was found but had ended (it
    is deleted, and the browser should drop its cookie)."""
    user, ended, _acts, _also = lookup_session(session, settings, secret_key, token)
    return user, ended


def login_reading(*also):
    """The login's statement, reading `also` in the same row (outer-joined by the caller: a page
    that needs more than who is asking asks it in the same round trip, issue 37)."""
    return (
        select(User, UserSession, *also)
        .join(UserSession, UserSession.user_id == User.id)
        .where(UserSession.token_hash == bindparam("token_hash"))
    )


# Built once (issue 17: building the select cost more than running it).
_LOGIN = login_reading()


def lookup_session(
    session: Session, settings: Settings, secret_key: str, token: str, statement=_LOGIN, params: dict | None = None
) -> tuple[User | None, bool, int, tuple]:
    """As `user_for_session`, then the session's count of acted forms, its forms' one-time key
    (R11.6), and last what `statement` (a `login_reading`) read besides, for a live session."""
    row = session.exec(statement, params={**(params or {}), "token_hash": token_digest(secret_key, token)}).first()
    if row is None:
        return None, False, 0, ()
    user, live = row[0], row[1]
    now = utcnow()
    if session_over(live, settings, now):
        _bookkeeping(session, delete(UserSession).where(UserSession.id == live.id))
        return None, True, 0, ()
    if rules.session_needs_touch(last_seen_at=aware(live.last_seen_at), now=now):
        _bookkeeping(session, update(UserSession).where(UserSession.id == live.id).values(last_seen_at=now))
    return user, False, live.acts, tuple(row[2:])


def credential_alive(
    session: Session, settings: Settings, *, session_hash: str | None = None, api_token_id: int | None = None
) -> bool:
    """Whether a live stream's credential still holds (a long-lived stream checks it again
    after logout, revocation or expiry), without touching the session."""
    if api_token_id is not None:
        return (
            session.exec(select(ApiToken.id).where(ApiToken.id == api_token_id, ApiToken.revoked_at.is_(None))).first()
            is not None
        )
    row = session.exec(select(UserSession).where(UserSession.token_hash == session_hash)).first()
    return row is not None and not session_over(row, settings, utcnow())


def _end_streams(session: Session, user_id: int) -> None:
    """The user's live streams check their credential again once this commits (R11.4)."""
    wake_after_commit(session, {user_key(user_id)})


def end_session(session: Session, secret_key: str, token: str) -> None:
    row = session.exec(select(UserSession).where(UserSession.token_hash == token_digest(secret_key, token))).first()
    if row and row.revoked_at is None:
        row.revoked_at = utcnow()
        _end_streams(session, row.user_id)


def end_other_sessions(session: Session, secret_key: str, *, user: User, keep_token: str | None) -> int:
    keep = token_digest(secret_key, keep_token) if keep_token else None
    rows = session.exec(select(UserSession).where(UserSession.user_id == user.id, UserSession.revoked_at.is_(None))).all()
    count = 0
    for row in rows:
        if row.token_hash != keep:
            row.revoked_at = utcnow()
            count += 1
    if count:
        _end_streams(session, user.id)
    return count


def create_api_token(session: Session, secret_key: str, *, user: User, name: str = "") -> tuple[ApiToken, str]:
    token = new_token()
    row = ApiToken(user_id=user.id, name=(name or "API").strip()[:80], token_hash=token_digest(secret_key, token))
    session.add(row)
    session.flush()
    return row, token


# Built once: building it cost an API call more than running it (issue 37).
_API_LOGIN = (
    select(User, ApiToken)
    .join(ApiToken, ApiToken.user_id == User.id)
    .where(ApiToken.token_hash == bindparam("token_hash"), ApiToken.revoked_at.is_(None))
)


def user_for_api_token(session: Session, secret_key: str, token: str) -> tuple[User, ApiToken] | None:
    row = session.exec(_API_LOGIN, params={"token_hash": token_digest(secret_key, token)}).first()
    return (row[0], row[1]) if row else None


# Built once (issue 37: the Account page built it on each visit).
_LIVE_TOKENS = (
    select(ApiToken).where(ApiToken.user_id == bindparam("user_id"), ApiToken.revoked_at.is_(None)).order_by(ApiToken.id)
)


def list_api_tokens(session: Session, *, user: User) -> list[ApiToken]:
    return list(session.exec(_LIVE_TOKENS, params={"user_id": user.id}).all())


def revoke_api_token(session: Session, *, user: User, token_id: int) -> None:
    row = session.get(ApiToken, token_id)
    if row is None or row.user_id != user.id or row.revoked_at is not None:
        raise DomainError("token_not_found")
    row.revoked_at = utcnow()
    _end_streams(session, user.id)


def change_password(session: Session, *, user: User, current: str, new: str) -> int:
    """A new password also revokes every API token (they were made with the old one);
    returns how many were revoked. The page ends the other browser sessions."""
    if not verify_password(current, user.password_hash):
        raise DomainError("wrong_password")
    rules.check_password(new)
    user.password_hash = hash_password(new)
    session.add(user)
    result = session.execute(
        update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None)).values(revoked_at=utcnow())
    )
    _end_streams(session, user.id)
    return result.rowcount or 0


def set_locale(session: Session, *, user: User, locale: str) -> None:
    if locale not in LOCALES:
        raise DomainError("locale_unknown")
    user.locale = locale
    session.add(user)


def set_time_zone(session: Session, *, user: User, time_zone: str | None) -> None:
    """The reader's IANA time zone (issue 34); blank or None is UTC again."""
    time_zone = (time_zone or "").strip() or None
    if time_zone is not None and not valid_time_zone(time_zone):
        raise DomainError("time_zone_unknown")
    user.time_zone = time_zone
    session.add(user)

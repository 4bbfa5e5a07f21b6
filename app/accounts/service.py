"""Account use cases: registration, login with throttling, sessions, API tokens."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, or_
from sqlmodel import Session, select

from app.accounts import rules
from app.accounts.models import ApiToken, LoginFailure, User, UserSession
from app.core.db import utcnow
from app.core.errors import DomainError
from app.core.i18n import LOCALES
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


def authenticate(session: Session, settings: Settings, *, nickname: str, password: str, address: str) -> User:
    key = rules.nickname_key(nickname)[:64]
    since = utcnow() - timedelta(minutes=settings.login_window_minutes)
    by_nick, by_addr = session.exec(
        select(
            func.count().filter(LoginFailure.nickname_key == key),
            func.count().filter(LoginFailure.address == address),
        ).where(LoginFailure.at >= since, or_(LoginFailure.nickname_key == key, LoginFailure.address == address))
    ).one()
    if by_nick >= settings.login_max_failures or by_addr >= settings.login_max_failures_per_address:
        raise DomainError("login_throttled", minutes=settings.login_window_minutes)
    user = session.exec(select(User).where(User.nickname_key == key)).first()
    if not verify_password(password, user.password_hash if user else None):
        session.add(LoginFailure(nickname_key=key, address=address[:64]))
        raise DomainError("login_failed", persist=True)
    return user


def start_session(session: Session, secret_key: str, *, user: User) -> str:
    token = new_token()
    session.add(UserSession(user_id=user.id, token_hash=token_digest(secret_key, token)))
    return token


def user_for_session(session: Session, secret_key: str, token: str) -> User | None:
    return session.exec(
        select(User)
        .join(UserSession, UserSession.user_id == User.id)
        .where(UserSession.token_hash == token_digest(secret_key, token), UserSession.revoked_at.is_(None))
    ).first()


def end_session(session: Session, secret_key: str, token: str) -> None:
    row = session.exec(select(UserSession).where(UserSession.token_hash == token_digest(secret_key, token))).first()
    if row and row.revoked_at is None:
        row.revoked_at = utcnow()


def end_other_sessions(session: Session, secret_key: str, *, user: User, keep_token: str | None) -> int:
    keep = token_digest(secret_key, keep_token) if keep_token else None
    rows = session.exec(
        select(UserSession).where(UserSession.user_id == user.id, UserSession.revoked_at.is_(None))
    ).all()
    count = 0
    for row in rows:
        if row.token_hash != keep:
            row.revoked_at = utcnow()
            count += 1
    return count


def create_api_token(session: Session, secret_key: str, *, user: User, name: str = "") -> tuple[ApiToken, str]:
    token = new_token()
    row = ApiToken(user_id=user.id, name=(name or "API").strip()[:80], token_hash=token_digest(secret_key, token))
    session.add(row)
    session.flush()
    return row, token


def user_for_api_token(session: Session, secret_key: str, token: str) -> tuple[User, ApiToken] | None:
    row = session.exec(
        select(User, ApiToken)
        .join(ApiToken, ApiToken.user_id == User.id)
        .where(ApiToken.token_hash == token_digest(secret_key, token), ApiToken.revoked_at.is_(None))
    ).first()
    return (row[0], row[1]) if row else None


def list_api_tokens(session: Session, *, user: User) -> list[ApiToken]:
    return list(
        session.exec(
            select(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None)).order_by(ApiToken.id)
        ).all()
    )


def revoke_api_token(session: Session, *, user: User, token_id: int) -> None:
    row = session.get(ApiToken, token_id)
    if row is None or row.user_id != user.id or row.revoked_at is not None:
        raise DomainError("token_not_found")
    row.revoked_at = utcnow()


def change_password(session: Session, *, user: User, current: str, new: str) -> None:
    if not verify_password(current, user.password_hash):
        raise DomainError("wrong_password")
    rules.check_password(new)
    user.password_hash = hash_password(new)
    session.add(user)


def set_locale(session: Session, *, user: User, locale: str) -> None:
    if locale not in LOCALES:
        raise DomainError("locale_unknown")
    user.locale = locale
    session.add(user)

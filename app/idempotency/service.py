"""Claiming a request's key, keeping its answer, answering it again (SPEC R11.6).

Each step is its own short transaction, apart from the request's unit of work: the claim
commits before the request acts, so a second request with the same key — on another worker
too — finds it and waits for the answer instead of acting. Core statements, not the ORM
session: this bookkeeping is no campaign's change (app/versions counts session flushes)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from app.accounts.models import ApiToken, UserSession
from app.core.db import aware, table_of, utcnow
from app.core.security import token_digest
from app.idempotency.models import IdempotencyKey

KEEP = timedelta(hours=24)
# A claim whose request never answered (its server was killed) is taken over after this.
ABANDONED = timedelta(seconds=60)
T = table_of(IdempotencyKey)


@dataclass(frozen=True)
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(frozen=True)
class Claimed:
    id: int


REUSED = "reused"  # the key was first used for another request
BUSY = "busy"  # the first request is still acting


@dataclass(frozen=True)
class Identity:
    user_id: int
    session_id: int | None = None
    acts: int = 0


def _write(engine: Engine) -> Connection:
    return engine.connect().execution_options(hideout_write=True)


def api_identity(engine: Engine, secret_key: str, token: str) -> Identity | None:
    with engine.connect() as conn:
        user_id = conn.execute(
            select(col(ApiToken.user_id)).where(
                col(ApiToken.token_hash) == token_digest(secret_key, token), col(ApiToken.revoked_at).is_(None)
            )
        ).scalar()
    return Identity(user_id) if user_id is not None else None


def session_identity(engine: Engine, secret_key: str, token: str) -> Identity | None:
    with engine.connect() as conn:
        row = conn.execute(
            select(col(UserSession.user_id), col(UserSession.id), col(UserSession.acts)).where(
                col(UserSession.token_hash) == token_digest(secret_key, token), col(UserSession.revoked_at).is_(None)
            )
        ).first()
    return Identity(row[0], row[1], row[2]) if row else None


def claim(engine: Engine, user_id: int, key: str, request_hash: str, session_id: int | None = None) -> Claimed | Answer | str:
    """Claims `key` for this request, or tells what became of its first use. A page form's
    session moves on to its next key at once, so the forms this request draws (an htmx
    partial, a form shown again with its errors) already carry it; the key is the viewer's
    own count of acts, so no one else's action changes what their pages show."""
    now = utcnow()
    try:
        with _write(engine) as conn, conn.begin():
            conn.execute(delete(T).where(T.c.user_id == user_id, T.c.claimed_at < now - KEEP))
            claimed = Claimed(
                conn.execute(
                    insert(T).values(user_id=user_id, key=key, request_hash=request_hash, claimed_at=now).returning(T.c.id)
                ).scalar_one()
            )
            if session_id is not None:
                conn.execute(update(UserSession).where(col(UserSession.id) == session_id).values(acts=col(UserSession.acts) + 1))
            return claimed
    except IntegrityError:
        return look(engine, user_id, key, request_hash, session_id)


def look(engine: Engine, user_id: int, key: str, request_hash: str, session_id: int | None = None) -> Claimed | Answer | str:
    """What became of the key's first use (a read: waiting polls with it)."""
    with engine.connect() as conn:
        row = conn.execute(select(T).where(T.c.user_id == user_id, T.c.key == key)).first()
    if row is None:  # expired and deleted in between: a fresh claim
        return claim(engine, user_id, key, request_hash, session_id)
    return _first_use(engine, row, request_hash)


def _first_use(engine: Engine, row, request_hash: str) -> Answer | Claimed | str:
    if row.request_hash != request_hash:
        return REUSED
    if row.status is not None:
        return Answer(row.status, [tuple(h) for h in json.loads(row.headers or "[]")], row.body or b"")
    if aware(row.claimed_at) < utcnow() - ABANDONED:
        with _write(engine) as conn, conn.begin():
            taken = conn.execute(
                update(T)
                .where(T.c.id == row.id, T.c.status.is_(None), T.c.claimed_at == row.claimed_at)
                .values(claimed_at=utcnow())
            ).rowcount
        if taken == 1:
            return Claimed(row.id)
    return BUSY


def answer_of(engine: Engine, claim_id: int) -> Answer | None:
    with engine.connect() as conn:
        row = conn.execute(select(T.c.status, T.c.headers, T.c.body).where(T.c.id == claim_id)).first()
    if row is None or row.status is None:
        return None
    return Answer(row.status, [tuple(h) for h in json.loads(row.headers or "[]")], row.body or b"")


def keep(engine: Engine, claim_id: int, answer: Answer) -> None:
    """The first answer, kept for the key's later uses."""
    with _write(engine) as conn, conn.begin():
        conn.execute(
            update(T).where(T.c.id == claim_id).values(status=answer.status, headers=json.dumps(answer.headers), body=answer.body)
        )


def release(engine: Engine, claim_id: int) -> None:
    """The request failed on the server's side (5xx, an exception): a retry may act."""
    with _write(engine) as conn, conn.begin():
        conn.execute(delete(T).where(T.c.id == claim_id))

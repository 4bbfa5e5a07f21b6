"""Issue 37: `row_by_id` answers what `Session.get` answers — the session's own object when it
holds it loaded, the row read when it does not (or holds it expired), None for no row or a row
of another class — with its statement built once per class."""

from __future__ import annotations

from sqlalchemy import event
from sqlmodel import Session

from app.accounts.models import User
from app.core.rows import row_by_id
from app.maps.models import Place


def _user(engine, nickname: str) -> int:
    with Session(engine) as s:
        user = User(nickname=nickname, nickname_key=nickname, password_hash="x")
        s.add(user)
        s.commit()
        return user.id


def test_issue37_row_by_id_answers_as_session_get(engine):
    uid = _user(engine, "anna")
    with Session(engine) as s:
        got = row_by_id(s, User, uid)
        assert got is not None and got.nickname == "anna"
        assert row_by_id(s, User, uid) is got is s.get(User, uid)
        assert row_by_id(s, User, uid + 1000) is None
        assert row_by_id(s, Place, uid) is None  # no place with that id
        with Session(engine) as other:  # changed by another session
            row = other.get(User, uid)
            row.nickname = "anna2"
            other.commit()
        s.rollback()  # its transaction over, what it held is expired, as after a commit
        assert row_by_id(s, User, uid) is got and got.nickname == "anna2"


def test_issue37_row_by_id_reads_no_statement_for_a_row_held(engine):
    uid = _user(engine, "borys")
    ran: list[str] = []

    def seen(_conn, _cursor, statement, *_args) -> None:
        ran.append(statement)

    with Session(engine) as s:
        first = row_by_id(s, User, uid)
        event.listen(engine, "before_cursor_execute", seen)
        try:
            assert row_by_id(s, User, uid) is first
            s.expire(first)
            assert row_by_id(s, User, uid) is first
        finally:
            event.remove(engine, "before_cursor_execute", seen)
    assert len(ran) == 1  # the expired row read again, the held one not

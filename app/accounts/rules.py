"""Pure account rules."""
from __future__ import annotations

import re

from app.core.errors import DomainError

NICKNAME_RE = re.compile(r"^[A-Za-z0-9ĄĆĘŁŃÓŚŹŻąćęłńóśźż._-]{3,32}$")
PASSWORD_MIN = 8
PASSWORD_MAX = 256


def nickname_key(nickname: str) -> str:
    return nickname.strip().lower()


def check_nickname(nickname: str) -> str:
    nickname = nickname.strip()
    if not NICKNAME_RE.match(nickname):
        raise DomainError("nickname_invalid")
    return nickname


def check_password(password: str) -> None:
    if len(password) < PASSWORD_MIN:
        raise DomainError("password_too_short", min=PASSWORD_MIN)
    if len(password) > PASSWORD_MAX:
        raise DomainError("password_too_long", max=PASSWORD_MAX)

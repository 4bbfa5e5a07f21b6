from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field
from pydantic.json_schema import JsonDict

from app.core.i18n import LOCALES, Locale
from app.core.types import Name

# The service checks nicknames, passwords and languages with its own error codes; the
# schema documents the same limits so that clients (and schemathesis) know them.
NICKNAME_DOC: JsonDict = {"pattern": r"^[A-Za-z0-9ĄĆĘŁŃÓŚŹŻąćęłńóśźż._-]{3,32}$", "minLength": 3, "maxLength": 32}
PASSWORD_DOC: JsonDict = {"minLength": 8, "maxLength": 256}
LOCALE_DOC: JsonDict = {"enum": [*LOCALES, None]}
TIME_ZONE_DOC: JsonDict = {
    "description": "an IANA time zone (Europe/Warsaw); blank or null is UTC",
    "examples": ["Europe/Warsaw"],
}


class RegisterIn(BaseModel):
    nickname: str = Field(max_length=64, json_schema_extra=NICKNAME_DOC)
    password: str = Field(max_length=1024, json_schema_extra=PASSWORD_DOC)
    locale: str | None = Field(default=None, max_length=8, json_schema_extra=LOCALE_DOC)


class UserOut(BaseModel):
    id: int
    nickname: str


class TokenIn(BaseModel):
    nickname: str = Field(max_length=64)
    password: str = Field(max_length=1024)
    name: str | None = Field(default=None, max_length=80)


class TokenOut(BaseModel):
    token: str


class CampaignRef(BaseModel):
    id: int
    name: str
    role: str
    status: str
    round: int
    phase: str | None


class InvitationRef(BaseModel):
    campaign_id: int
    name: str
    gm_nickname: str


class MeOut(BaseModel):
    id: int
    nickname: str
    locale: str | None
    time_zone: str | None = None
    campaigns: list[CampaignRef]
    invitations: list[InvitationRef]


class MePatch(BaseModel):
    locale: str | None = Field(default=None, max_length=8, json_schema_extra=LOCALE_DOC)
    time_zone: str | None = Field(default=None, max_length=64, json_schema_extra=TIME_ZONE_DOC)


# --- page forms: the API's limits; the service's rules (nickname letters, password length)
# are checked after them, each problem next to its field -------------------------------


class LoginForm(BaseModel):
    """The login page: the API's TokenIn without the token's name."""

    nickname: Annotated[str, Name(64)]
    password: str = Field(min_length=1, max_length=1024)


class RegisterForm(RegisterIn):
    """The register page: the API's RegisterIn; a blank nickname is a missing one."""

    nickname: Annotated[str, Name(64)]


class PasswordChangeForm(BaseModel):
    current: str = Field(min_length=1, max_length=1024)
    new: str = Field(max_length=1024)


class TokenNameForm(BaseModel):
    """A new API token's name (the API's TokenIn.name); blank is "API"."""

    name: str | None = Field(default=None, max_length=80)


class LanguageForm(BaseModel):
    locale: Locale


class TimeZoneForm(BaseModel):
    time_zone: str | None = Field(default=None, max_length=64)

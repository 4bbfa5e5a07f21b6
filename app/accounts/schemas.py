from __future__ import annotations

from pydantic import BaseModel, Field


class RegisterIn(BaseModel):
    nickname: str = Field(max_length=64)
    password: str = Field(max_length=1024)
    locale: str | None = Field(default=None, max_length=8)


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
    campaigns: list[CampaignRef]
    invitations: list[InvitationRef]


class MePatch(BaseModel):
    locale: str | None = Field(default=None, max_length=8)

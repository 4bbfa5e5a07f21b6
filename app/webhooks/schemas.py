"""Webhooks over the API (API.md `webhooks`) and the Rules-tab form: the same input model."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints

Category = Literal["phase", "battles", "results", "captures", "guilds", "rounds", "deadlines", "events", "players", "news"]


class WebhookIn(BaseModel):
    """`url`: http(s), a public address (Discord webhook addresses get Discord messages);
    `secret`: signs each delivery the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
    `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the secret's
    UTF-8 bytes, or by the decoded base64 of a `whsec_…` secret) and, for older receivers,
    `X-Hideout-Signature: sha256=<hex HMAC-SHA256 of the body>`; made up by the server when
    left out (a Discord channel checks none);
    `kinds`: the categories to hear, none for all."""

    model_config = ConfigDict(extra="forbid")
    url: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000, pattern=r"^[^\s\x00-\x1f\x7f]+$")]
    secret: Annotated[str, StringConstraints(strip_whitespace=True, min_length=8, max_length=200)] | None = None
    kinds: list[Category] = []


class WebhookOut(BaseModel):
    id: int
    url: str
    kinds: list[Category]
    discord: bool
    created_at: datetime
    last_at: datetime | None
    last_status: int | None
    last_error: str | None
    pending: int
    failed: int

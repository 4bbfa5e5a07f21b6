"""The secrecy matrix over webhook payloads (issue 19, SPEC R11.2): the three planted worlds
of world.py are played with a plain JSON hook and a Discord hook on every campaign from its
first moment, every delivery is sent (to a fake transport: the bytes a receiver would get),
and no payload carries a marker of any secret — a webhook speaks to the public, so nothing
that any role is kept from may reach it."""

from __future__ import annotations

import json

import httpx
import pytest
from sqlmodel import Session, select

from app.chronicle.models import ChronicleEntry
from app.webhooks import sender
from app.webhooks.models import WebhookDelivery
from tests.secrecy import world as planted

PLAIN = "https://hooks.example.org/hideout"
DISCORD = "https://discord.com/api/webhooks/42/matrix"


@pytest.fixture
def hooked_cast(client, make_client, engine, app, monkeypatch):
    """world.build, with both hooks added by the GM right after each campaign is created."""
    monkeypatch.setattr(app.state.settings, "webhook_allow_private", True)  # no DNS in the test: nothing leaves it
    create = planted.create_campaign

    def create_with_hooks(client_, gm, **body):
        campaign = create(client_, gm, **body)
        for url in (PLAIN, DISCORD):
            r = client_.post(
                f"/api/v1/campaigns/{campaign['id']}/webhooks", json={"url": url, "secret": "matrix-hook"}, headers=gm
            )
            assert r.status_code == 201, r.text
        return campaign

    monkeypatch.setattr(planted, "create_campaign", create_with_hooks)
    return planted.build(client, make_client, engine)


def test_issue19_r11_2_no_webhook_payload_of_the_planted_worlds_carries_a_secret(hooked_cast, engine, app):
    sent: list[httpx.Request] = []

    def receive(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200)

    with httpx.Client(transport=httpx.MockTransport(receive)) as fake:
        while sender.deliver_due(engine, app.state.settings, client=fake):
            pass
    with Session(engine) as s:
        deliveries = list(s.exec(select(WebhookDelivery)).all())
        entries = list(s.exec(select(ChronicleEntry)).all())
    # Every public entry after the hooks came went to both of them, and nothing else did.
    news = [e for e in entries if e.kind != "campaign_created"]
    assert len(deliveries) == 2 * len(news) == len(sent) and {d.status for d in deliveries} == {"sent"}
    kinds = {d.kind for d in deliveries}
    assert {"phase_changed", "battle_announced_event", "battle_won", "guild_founded", "alliance_revealed", "event_added"} <= kinds

    bodies = [r.content.decode() for r in sent]
    assert {str(r.url) for r in sent} == {PLAIN, DISCORD}
    for request, body in zip(sent, bodies):
        payload = json.loads(body)
        assert set(payload) == (
            {"content", "allowed_mentions"}
            if str(request.url) == DISCORD
            else {"campaign_id", "kind", "category", "round", "phase", "text", "params", "created_at"}
        )
    leaks = [(m.text, m.kind, m.world) for m in hooked_cast.markers for body in bodies if m.found_in(body)]
    assert leaks == []
    # The revealed mission alliance (settlement world) is public news, by its members' names only.
    assert any("mx-owner with mx-ally" in body for body in bodies)
    # The orders world's sent warbands are secret until Battles: their names are nowhere.
    assert not any("SECRET-" in body for body in bodies)

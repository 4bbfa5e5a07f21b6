"""R11.4 live updates: the stream of `GET /api/v1/campaigns/{cid}/stream`, one test per kind of
update, and R11.2 for each secret it could carry (the other player's stream stays silent)."""
from __future__ import annotations

from tests.api.live_helpers import listen, stream_server  # noqa: F401
from tests.helpers import running_campaign, to_phase


def test_r11_4_phase_change_reaches_every_member(client, listen):
    gm, cid, players, places = running_campaign(client, 2)
    streams = [listen(cid, p["headers"]) for p in players]
    gm_stream = listen(cid, gm)
    to_phase(client, gm, cid, "orders")
    for s in streams:
        ev = s.until("phase")
        assert ev.data["phase"] == "orders" and ev.data["round"] == 1
        assert ev.data["message"] == "Round 1: Orders."
    # The GM made the change: their stream hears it without a message.
    ev = gm_stream.until("phase")
    assert ev.data["phase"] == "orders" and ev.data["message"] is None

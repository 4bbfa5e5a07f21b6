"""Pages follow the live stream (R11.4): the campaign layout connects to it with htmx's SSE
extension from the moment the page was drawn, so nothing between drawing and connecting is
lost; static/live.js refreshes the parts of the page that an event concerns."""
from __future__ import annotations

import time

from fastapi import APIRouter

from app.core.templating import add_context_hook

router = APIRouter()


def live_stream(context: dict) -> dict:
    """Template hook: a member's campaign pages get `live_url()`, the stream to connect to."""
    campaign, viewer, request = context.get("campaign"), context.get("viewer"), context.get("request")
    if campaign is None or request is None or not getattr(viewer, "is_member", False):
        return {}

    def live_url() -> str:
        return f"/api/v1/campaigns/{campaign.id}/stream?since={int(time.time() * 1000)}"

    return {"live_url": live_url}


add_context_hook(live_stream)

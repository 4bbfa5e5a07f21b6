"""The battle page's Share card (R12.2): the one-tap confirm link just made, as a QR code
drawn on the server (SVG, segno) and its address for the phone's share sheet."""

from __future__ import annotations

import segno
from fastapi import Request
from markupsafe import Markup
from sqlmodel import Session

from app.battles import links
from app.battles.api import link_url
from app.core.errors import DomainError


def _qr(url: str) -> Markup:
    """The link as an SVG QR code, drawn here (no script, no third party)."""
    svg = segno.make(url, error="m").svg_inline(scale=5, border=2, dark="#111", light="#fff", omitsize=True)
    return Markup(svg.replace("<svg ", '<svg aria-hidden="true" focusable="false" ', 1))


def share_part(request: Request, session: Session, view, token: str | None) -> dict | None:
    """The Share card of a battle page just given a link (?link=…): its QR code and address;
    nothing for a token that is not this battle's open link."""
    if not token:
        return None
    try:
        opened = links.open_link(session, token)
    except DomainError:
        return None
    if opened.link.battle_id != view.battle.id:
        return None
    url = link_url(request, token)
    return {"url": url, "qr": _qr(url), "expires_at": links.expires(session, opened.campaign)}

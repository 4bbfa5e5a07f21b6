"""R12.5, R12.7: the links that open a campaign without a login — the club screen's (made and
revoked by the GM) and each member's calendar feed (a new one revokes the old). A link is a
random token shown once; only its SHA-256 is kept, so a revoked, forged or guessed token finds
nothing (404, like a campaign that is not there)."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.archive.models import CalendarLink, ScreenLink
from app.campaigns.models import Campaign
from app.core.db import utcnow
from app.core.errors import DomainError
from app.visibility import Viewer, campaign_row, gm_viewer, require_gm, viewer_for

TOKEN_BYTES = 32
MAX_TOKEN = 100  # a longer one is never ours (tokens are 43 characters)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_screen_link(session: Session, *, actor: User, campaign_id: int) -> tuple[ScreenLink, str]:
    """The GM's new club screen link and its token (shown once)."""
    viewer = gm_viewer(session, actor, campaign_id)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    link = ScreenLink(campaign_id=viewer.campaign_id, token_hash=digest(token))
    session.add(link)
    session.flush()
    return link, token


_LIVE_SCREEN_LINKS = (
    select(ScreenLink)
    .where(ScreenLink.campaign_id == bindparam("campaign_id"), col(ScreenLink.revoked_at).is_(None))
    .order_by(col(ScreenLink.id))
)


def screen_links_for(session: Session, viewer: Viewer) -> list[ScreenLink]:
    """The GM's live club screen links (for the standings page), for the viewer its login seated
    (issue 37: not read a second time), with its statement built once."""
    require_gm(viewer)
    return list(session.exec(_LIVE_SCREEN_LINKS, params={"campaign_id": viewer.campaign_id}).all())


def revoke_screen_link(session: Session, *, actor: User, campaign_id: int, link_id: int) -> ScreenLink:
    """Revoked at once, also in a finished campaign; revoking one already revoked changes nothing."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    link = campaign_row(session, ScreenLink, link_id, viewer.campaign_id)
    if link.revoked_at is None:
        link.revoked_at = utcnow()
        session.add(link)
        session.flush()
    return link


def _live_link(session: Session, model: type[ScreenLink] | type[CalendarLink], token: str):
    """The unrevoked link of `model` this token opens (kept as its digest); else not found."""
    if not token or len(token) > MAX_TOKEN:
        raise DomainError("not_found")
    link = session.exec(select(model).where(model.token_hash == digest(token))).first()
    if link is None or link.revoked_at is not None:
        raise DomainError("not_found")
    return link


def campaign_of_screen(session: Session, token: str) -> Campaign:
    """The campaign a live club screen token opens; anything else is not found."""
    link = _live_link(session, ScreenLink, token)
    campaign = session.get(Campaign, link.campaign_id)
    if campaign is None:
        raise DomainError("not_found")
    return campaign


def new_calendar_link(session: Session, *, actor: User, campaign_id: int) -> str:
    """A member's private calendar token; their previous link stops working."""
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    if not viewer.is_member:
        raise DomainError("not_found")
    now = utcnow()
    for old in session.exec(
        select(CalendarLink).where(
            CalendarLink.campaign_id == viewer.campaign_id, CalendarLink.user_id == actor.id, CalendarLink.revoked_at.is_(None)
        )
    ).all():
        old.revoked_at = now
        session.add(old)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    session.add(CalendarLink(campaign_id=viewer.campaign_id, user_id=actor.id, token_hash=digest(token)))
    session.flush()
    return token


def calendar_of(session: Session, token: str) -> tuple[Campaign, User]:
    """The campaign and member a live calendar token belongs to — while they are still a
    member (a seat handed over or a GM removed loses the feed); else not found."""
    link = _live_link(session, CalendarLink, token)
    user = session.get(User, link.user_id)
    if user is None:
        raise DomainError("not_found")
    viewer = viewer_for(session, user, link.campaign_id)
    if not viewer.is_member:
        raise DomainError("not_found")
    return viewer.campaign, user

"""One-tap confirm links (R12.2): the side that entered a result shares a link (a QR code on
the phone, or a message) with which a player of another side confirms or disputes it
without logging in.

The token is random and only its sha256 is kept. A link is for one battle and the side that
made it, works once, and only while the campaign stays in the round and phase it was made in
(so it ends with the phase; `expires_at` is that phase's deadline where the GM set one).
Whoever opens it says which of the other sides' players they are (the link is the proof that
a player of the reporting side handed it over at the table); the confirmation or dispute is
then that player's, through the same use case as a logged-in tap (results.py), so every rule
of R6.8 holds and a refusal changes nothing — the link stays unused."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from app.accounts.models import User
from app.battles import results, rules
from app.battles.models import Battle, ConfirmLink
from app.battles.reading import PLAYER_RESULT_PHASES, BattleView, battles_of
from app.campaigns.models import Campaign, Player
from app.core.db import utcnow
from app.core.errors import DomainError
from app.season.models import PhaseDeadline

ACTIONS = ("confirm", "dispute")


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class MadeLink:
    token: str
    link: ConfirmLink
    expires_at: datetime | None


@dataclass
class OpenLink:
    """What the link's page shows: the battle, its result, who may say what."""

    link: ConfirmLink
    campaign: Campaign
    view: BattleView
    confirmers: list[int]
    disputers: list[int]


def expires(session: Session, campaign: Campaign) -> datetime | None:
    found = session.exec(select(PhaseDeadline).where(PhaseDeadline.campaign_id == campaign.id)).first()
    if found and found.round == campaign.round and found.phase == campaign.phase:
        return found.ends_at
    return None


def make(session: Session, *, actor: User, campaign_id: int, battle_id: int) -> MadeLink:
    """A new link for the other sides; only a player of the side that entered the result makes
    one, while that result waits for them (in Battles)."""
    viewer, view = results.locked(session, actor, campaign_id, battle_id)
    player_id = results.participant(viewer, view)
    results.result_phase(viewer.campaign)
    battle_ = view.battle
    if battle_.status != "reported":
        raise DomainError("battle_nothing_to_confirm")
    side = view.side_of[player_id]
    if side != view.side_of.get(battle_.reported_by_player_id):
        raise DomainError("confirm_link_reporter_only")
    token = secrets.token_urlsafe(32)
    link = ConfirmLink(
        battle_id=battle_.id,
        campaign_id=viewer.campaign_id,
        token_hash=digest(token),
        made_by_player_id=player_id,
        side=side,
        round=viewer.campaign.round,
        phase=viewer.campaign.phase or "",
    )
    session.add(link)
    session.flush()
    return MadeLink(token, link, expires(session, viewer.campaign))


def _found(session: Session, token: str, lock: bool = False) -> tuple[ConfirmLink, Campaign]:
    """The unused link of this token while its phase lasts, or not_found: a forged, used or
    expired link shows nothing."""
    query = select(ConfirmLink).where(ConfirmLink.token_hash == digest(token))
    if lock:
        query = query.with_for_update()
    link = session.exec(query).first() if 0 < len(token) <= 100 else None
    if link is None or link.used_at is not None:
        raise DomainError("not_found")
    campaign = session.get(Campaign, link.campaign_id)
    if campaign is None or not rules.link_open(campaign.status, campaign.round, campaign.phase, link.round, link.phase):
        raise DomainError("not_found")
    return link, campaign


def open_link(session: Session, token: str) -> OpenLink:
    link, campaign = _found(session, token)
    found = battles_of(session, campaign, battle_ids=[link.battle_id])
    if not found:
        raise DomainError("not_found")
    view = found[0]
    may = view.battle.status == "reported" and campaign.phase in PLAYER_RESULT_PHASES
    asked = view.asked_to_confirm()
    confirmers = rules.link_players(view.side_of, link.side, asked, "confirm") if may else []
    disputers = rules.link_players(view.side_of, link.side, asked, "dispute") if may else []
    return OpenLink(link, campaign, view, confirmers, disputers)


def use(session: Session, *, token: str, player_id: int | None, action: str, reason: str = "") -> Battle:
    """Confirms or disputes as `player_id`, one of the other sides' players, and uses the link up."""
    link, _campaign = _found(session, token, lock=True)
    opened = open_link(session, token)
    allowed = opened.confirmers if action == "confirm" else opened.disputers
    if player_id not in allowed:
        raise DomainError("confirm_link_player_unknown")
    user = session.exec(select(User).join(Player, Player.user_id == User.id).where(Player.id == player_id)).one()
    if action == "confirm":
        battle_ = results.confirm(session, actor=user, campaign_id=link.campaign_id, battle_id=link.battle_id)
    else:
        battle_ = results.dispute(session, actor=user, campaign_id=link.campaign_id, battle_id=link.battle_id, reason=reason)
    link.used_at = utcnow()
    session.add(link)
    return battle_

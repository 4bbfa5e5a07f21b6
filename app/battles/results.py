"""A battle's result (R6.8): the participants report, confirm or dispute it in Battles; the
GM resolves or corrects it in Battles and Settlement; the chronicle tells the decided ones."""

from __future__ import annotations

from sqlalchemy import bindparam
from sqlmodel import Session, select

from app.accounts.models import User
from app.audit import service as audit
from app.battles import rules
from app.battles.models import Battle, BattleConfirmation
from app.battles.reading import GM_RESULT_PHASES, PLAYER_RESULT_PHASES, BattleView, battles_of
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.chronicle import service as chronicle
from app.core.db import utcnow
from app.core.errors import DomainError
from app.core.rows import row_by_id
from app.live import service as live
from app.maps.models import Place
from app.visibility import Viewer, require_gm, require_writable, viewer_for

# Built once (issue 37: every result, confirmation and dispute asked it, built anew).
_BATTLE_LOCKED = select(Battle.id).where(Battle.id == bindparam("battle_id")).with_for_update()


def locked(session: Session, actor: User, campaign_id: int, battle_id: int) -> tuple[Viewer, BattleView]:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    session.exec(_BATTLE_LOCKED, params={"battle_id": battle_id}).first()
    found = battles_of(session, viewer.campaign, battle_ids=[battle_id])
    if not found:
        raise DomainError("not_found")
    return viewer, found[0]


def participant(viewer: Viewer, view: BattleView) -> int:
    if viewer.player is None or viewer.player.id not in view.participants:
        raise DomainError("battle_not_participant")
    return viewer.player.id


def _check_winners(view: BattleView, winners: list[int]) -> list[int]:
    winners = sorted(set(winners))
    if any(w not in view.participants for w in winners):
        raise DomainError("battle_winner_unknown")
    if len(view.warbands) == 2 and len(winners) > 1:
        raise DomainError("battle_one_winner")
    if winners and len(winners) == len(view.participants):
        raise DomainError("battle_everyone_won")
    return winners


def result_phase(campaign: Campaign, phases: tuple[str, ...] = PLAYER_RESULT_PHASES) -> None:
    if campaign.status == "running" and campaign.phase in phases:
        return
    if campaign.status == "running" and campaign.phase in GM_RESULT_PHASES:
        raise DomainError("results_gm_now")
    raise DomainError("results_closed")


def report(session: Session, *, actor: User, campaign_id: int, battle_id: int, winners: list[int]) -> Battle:
    viewer, view = locked(session, actor, campaign_id, battle_id)
    player_id = participant(viewer, view)
    result_phase(viewer.campaign)
    if view.battle.status != "announced":
        raise DomainError("battle_reported_already")
    battle_ = view.battle
    battle_.winners, battle_.status, battle_.reported_by_player_id = _check_winners(view, winners), "reported", player_id
    session.add(battle_)
    _tell(session, actor, battle_)
    return battle_


def confirm(session: Session, *, actor: User, campaign_id: int, battle_id: int) -> Battle:
    viewer, view = locked(session, actor, campaign_id, battle_id)
    player_id = participant(viewer, view)
    result_phase(viewer.campaign)
    battle_ = view.battle
    if battle_.status != "reported":
        raise DomainError("battle_nothing_to_confirm")
    # R6.8: one confirmation from each side but the reporter's decides it.
    refused = rules.confirm_refusal(player_id, view.side_of, battle_.reported_by_player_id, view.confirmations)
    if refused:
        raise DomainError(refused)
    session.add(BattleConfirmation(battle_id=battle_.id, player_id=player_id))
    if not rules.sides_to_confirm(view.side_of, battle_.reported_by_player_id, view.confirmations | {player_id}):
        _decide(session, viewer.campaign, battle_, "confirmed")
    _tell(session, actor, battle_)
    return battle_


def dispute(session: Session, *, actor: User, campaign_id: int, battle_id: int, reason: str) -> Battle:
    viewer, view = locked(session, actor, campaign_id, battle_id)
    participant(viewer, view)
    result_phase(viewer.campaign)
    battle_ = view.battle
    if battle_.status not in ("announced", "reported"):
        raise DomainError("battle_decided")
    if not reason.strip():
        raise DomainError("reason_required")
    battle_.status, battle_.dispute_reason = "disputed", reason.strip()[:2000]
    session.add(battle_)
    _tell(session, actor, battle_)
    return battle_


def resolve(session: Session, *, actor: User, campaign_id: int, battle_id: int, winners: list[int]) -> Battle:
    """The GM's word on a dispute, or an entry or correction of any result."""
    viewer, view = locked(session, actor, campaign_id, battle_id)
    require_gm(viewer)
    result_phase(viewer.campaign, GM_RESULT_PHASES)
    battle_ = view.battle
    before = {"status": battle_.status, "winners": list(battle_.winners or [])}
    battle_.winners = _check_winners(view, winners)
    _decide(session, viewer.campaign, battle_, "resolved")
    audit.record(
        session,
        viewer.campaign,
        actor,
        "result_decided",
        f"battle:{battle_.id}",
        before=before,
        after={"winners": battle_.winners},
    )
    _tell(session, actor, battle_)
    return battle_


def _tell(session: Session, actor: User, battle_: Battle) -> None:
    """R11.4: the other side's phone offers "Confirm" (or shows the dispute, the decision)."""
    live.publish(session, battle_.campaign_id, "result", subject_id=battle_.id, actor_user_id=actor.id, status=battle_.status)


def _decide(session: Session, campaign: Campaign, battle_: Battle, status: str) -> None:
    battle_.status, battle_.decided_at = status, utcnow()
    session.add(battle_)
    names = campaigns.nicknames(session, campaign.id)
    place = row_by_id(session, Place, battle_.place_id)
    if battle_.winners:
        winners = ", ".join(names.get(w, "?") for w in battle_.winners)
        chronicle.record(session, campaign, "battle_won", place=place.name, winners=winners, battle_id=battle_.id)
    else:
        chronicle.record(session, campaign, "battle_drawn", place=place.name, battle_id=battle_.id)

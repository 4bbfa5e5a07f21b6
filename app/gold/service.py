"""The only place where gold moves (R3.8): each change updates the balance and writes a
ledger entry in the same transaction. The balance changes by a single conditional UPDATE,
so concurrent requests can neither overspend nor lose a change."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, update
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.core.errors import DomainError
from app.gold.models import LedgerEntry
from app.core.types import MAX_AMOUNT
from app.gold.rules import KINDS
from app.visibility import campaign_row, gm_viewer, private_owner, secret_ledger_filter, viewer_for
from app.core.pagination import paginate


def change(session: Session, *, campaign: Campaign, player_id: int, amount: int, kind: str, note: str = "",
           params: dict | None = None) -> LedgerEntry:
    """Adds `amount` (negative to take) to a player's gold; refuses to go below zero."""
    if kind not in KINDS:
        raise ValueError(f"unknown ledger kind {kind}")
    if amount == 0:
        balance = session.exec(select(Player.gold).where(Player.id == player_id)).one()
    else:
        statement = (
            update(Player)
            .where(Player.id == player_id, Player.campaign_id == campaign.id, Player.gold + amount >= 0)
            .values(gold=Player.gold + amount)
            .returning(Player.gold)
        )
        balance = session.execute(statement).scalar_one_or_none()
        if balance is None:
            have = session.exec(select(Player.gold).where(Player.id == player_id)).first()
            if have is None:
                raise DomainError("not_found")
            raise DomainError("not_enough_gold", needed=-amount, have=have)
    entry = LedgerEntry(
        campaign_id=campaign.id, player_id=player_id, amount=amount, kind=kind,
        round=campaign.round, balance_after=balance, note=note[:500], params=params or {},
    )
    session.add(entry)
    session.flush()
    # Rows loaded earlier in this request must not show a stale balance.
    for obj in session.identity_map.values():
        if isinstance(obj, Player) and obj.id == player_id:
            session.expire(obj, ["gold"])
    return entry


def pay(session: Session, *, campaign: Campaign, player_id: int, amount: int, kind: str, note: str = "",
        params: dict | None = None) -> LedgerEntry:
    if amount < 0:
        raise ValueError("pay takes a positive amount")
    return change(session, campaign=campaign, player_id=player_id, amount=-amount, kind=kind, note=note, params=params)


def credit(session: Session, *, campaign: Campaign, player_id: int, amount: int, kind: str, note: str = "",
           params: dict | None = None) -> LedgerEntry:
    if amount < 0:
        raise ValueError("credit takes a positive amount")
    return change(session, campaign=campaign, player_id=player_id, amount=amount, kind=kind, note=note, params=params)


def adjust(session: Session, *, actor: User, campaign_id: int, player_id: int, amount: int, reason: str) -> LedgerEntry:
    """The GM's correction, with a reason that the player sees in their ledger."""
    viewer = gm_viewer(session, actor, campaign_id)
    if not reason.strip():
        raise DomainError("reason_required")
    if amount == 0:
        raise DomainError("amount_zero")
    if abs(amount) > MAX_AMOUNT:
        raise DomainError("field_too_large", max=MAX_AMOUNT)
    _player_in(session, campaign_id, player_id)
    return change(session, campaign=viewer.campaign, player_id=player_id, amount=amount, kind="gm_adjustment", note=reason.strip())


def _player_in(session: Session, campaign_id: int, player_id: int) -> Player:
    return campaign_row(session, Player, player_id, campaign_id)




@dataclass
class LedgerPage:
    player_id: int
    balance: int
    items: list[LedgerEntry]
    page: int
    pages: int
    total: int


def ledger(session: Session, *, actor: User, campaign_id: int, player_id: int | None, page: int = 1, per_page: int = 50) -> LedgerPage:
    viewer = viewer_for(session, actor, campaign_id)
    pid = private_owner(viewer, player_id)
    player = _player_in(session, campaign_id, pid)
    query = select(LedgerEntry).where(LedgerEntry.player_id == pid)
    hidden = secret_ledger_filter(viewer, pid)
    if hidden is not None:
        query = query.where(hidden)
    found = paginate(session, query.order_by(LedgerEntry.id.desc()), page=page, per_page=per_page)
    return LedgerPage(pid, player.gold, found.items, found.page, found.pages, found.total)




def balance_matches_ledger(session: Session, player_id: int) -> bool:
    """The invariant of R3.8, for tests and audits."""
    total = session.exec(select(func.coalesce(func.sum(LedgerEntry.amount), 0)).where(LedgerEntry.player_id == player_id)).one()
    return total == session.exec(select(Player.gold).where(Player.id == player_id)).one()

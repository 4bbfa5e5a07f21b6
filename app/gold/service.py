"""The only place where gold moves (R3.8): each change updates the balance and writes a
ledger entry in the same transaction. The balance changes by a single conditional UPDATE,
so concurrent requests can neither overspend nor lose a change."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Integer, bindparam, func, update
from sqlmodel import Session, select

from app.accounts.models import User
from app.audit import service as audit
from app.campaigns.models import Campaign, Player
from app.campaigns.terms import require_module
from app.core.errors import N_, DomainError
from app.core.pagination import Listing, paginate
from app.core.types import MAX_AMOUNT
from app.gold.models import LedgerEntry, Transfer
from app.gold.rules import KINDS, gms_see_balances, seen_by_owner_alone
from app.live import service as live
from app.versions.audience import declared
from app.visibility import (
    Viewer,
    acting_player,
    campaign_row,
    gm_viewer,
    hidden_entries_of,
    private_owner,
    secret_ledger_filter,
    viewer_for,
)


def _gms_see(campaign: Campaign, kind: str) -> bool:
    return gms_see_balances(campaign) and not seen_by_owner_alone(campaign, kind, campaign.round)


# Every gold change writes these, built once (issue 37: built on each purchase, sale, fee and
# transfer). The balance is expired by hand after the change (below), so the ORM need not
# work out which loaded rows the update matched.
_GOLD_OF = select(Player.gold).where(Player.id == bindparam("player_id"))
_AMOUNT = bindparam("amount", type_=Integer)
_ADD_GOLD = (
    update(Player)
    .where(Player.id == bindparam("player_id"), Player.campaign_id == bindparam("in_campaign"), Player.gold + _AMOUNT >= 0)
    .values(gold=Player.gold + _AMOUNT)
    .returning(Player.gold)
    .execution_options(synchronize_session=False)
)


def change(
    session: Session, *, campaign: Campaign, player_id: int, amount: int, kind: str, note: str = "", params: dict | None = None
) -> LedgerEntry:
    """Adds `amount` (negative to take) to a player's gold; refuses to go below zero."""
    if kind not in KINDS:
        raise ValueError(f"unknown ledger kind {kind}")
    if amount == 0:
        balance = session.exec(_GOLD_OF, params={"player_id": player_id}).one()
    else:
        balance = session.execute(
            _ADD_GOLD,
            {"player_id": player_id, "in_campaign": campaign.id, "amount": amount},
            # Who sees the balance change (R11.2): its owner, and the GMs unless gold transfers are
            # on or the entry is one they do not see.
            execution_options=declared(campaign.id, (player_id,), gms=_gms_see(campaign, kind)),
        ).scalar_one_or_none()
        if balance is None:
            have = session.exec(_GOLD_OF, params={"player_id": player_id}).first()
            if have is None:
                raise DomainError("not_found")
            raise DomainError("not_enough_gold", needed=-amount, have=have)
    entry = LedgerEntry(
        campaign_id=campaign.id,
        player_id=player_id,
        amount=amount,
        kind=kind,
        round=campaign.round,
        balance_after=balance,
        note=note[:500],
        params=params or {},
    )
    session.add(entry)
    session.flush()
    # Rows loaded earlier in this request must not show a stale balance.
    for obj in session.identity_map.values():
        if isinstance(obj, Player) and obj.id == player_id:
            session.expire(obj, ["gold"])
    return entry


def pay(
    session: Session, *, campaign: Campaign, player_id: int, amount: int, kind: str, note: str = "", params: dict | None = None
) -> LedgerEntry:
    if amount < 0:
        raise ValueError("pay takes a positive amount")
    return change(session, campaign=campaign, player_id=player_id, amount=-amount, kind=kind, note=note, params=params)


def credit(
    session: Session, *, campaign: Campaign, player_id: int, amount: int, kind: str, note: str = "", params: dict | None = None
) -> LedgerEntry:
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
    player = _player_in(session, campaign_id, player_id)
    # R12.9: the amount and the reason only (with transfers on, no balance is the GM's to see).
    audit.record(
        session,
        viewer.campaign,
        actor,
        "gold_adjusted",
        f"player:{player_id}",
        after={"amount": amount, "reason": reason.strip()},
    )
    if not viewer.sees_balance_of(player_id):
        return _blind_adjustment(session, viewer, player_id, amount, reason.strip())
    # The GM's figures leave out what only the player sees (transfers, R8.11): the GM can take
    # no more than the gold the GM is shown, and is answered with the balance the GM is shown.
    hidden = sum(amount for _id, amount in hidden_entries_of(session, viewer, player_id))
    shown = player.gold - hidden
    if amount < 0 and shown + amount < 0:
        raise DomainError("not_enough_gold", needed=-amount, have=max(shown, 0))
    try:
        entry = change(
            session, campaign=viewer.campaign, player_id=player_id, amount=amount, kind="gm_adjustment", note=reason.strip()
        )
    except DomainError as exc:
        if exc.code == "not_enough_gold":
            raise DomainError("not_enough_gold", needed=-amount, have=max(shown, 0)) from None
        raise
    if hidden:
        session.expunge(entry)  # written already; the shown figure must never be written back
        entry.balance_after -= hidden
    return entry


def _blind_adjustment(session: Session, viewer: Viewer, player_id: int, amount: int, reason: str) -> LedgerEntry:
    """R11.2: with gold transfers on the GM is shown no balance, so neither the refusal of a
    deduction the player cannot cover nor the entry written says one."""
    try:
        entry = change(session, campaign=viewer.campaign, player_id=player_id, amount=amount, kind="gm_adjustment", note=reason)
    except DomainError as exc:
        if exc.code == "not_enough_gold":
            raise DomainError("gm_deduction_uncovered") from None
        raise
    session.expunge(entry)  # written already; the figure hidden from the GM must not be written back
    entry.balance_after = None
    return entry


def _player_in(session: Session, campaign_id: int, player_id: int) -> Player:
    return campaign_row(session, Player, player_id, campaign_id)


@dataclass
class LedgerPage:
    player_id: int
    balance: int | None  # None: a balance this viewer is not shown (the GM with transfers on, R11.2)
    items: list[LedgerEntry]
    page: int
    pages: int
    total: int


def ledger(
    session: Session, *, actor: User, campaign_id: int, player_id: int | None, page: int = 1, per_page: int = 50
) -> LedgerPage:
    return ledger_for(session, viewer_for(session, actor, campaign_id), player_id, page=page, per_page=per_page)


# A player's own ledger, built once (issue 37: built on each visit, the list and its count cost
# more than running them). Anyone else's leaves out what only its owner sees, asked as it stands.
_OWN_LEDGER = Listing(select(LedgerEntry).where(LedgerEntry.player_id == bindparam("player_id")).order_by(LedgerEntry.id.desc()))


def ledger_for(session: Session, viewer: Viewer, player_id: int | None, *, page: int = 1, per_page: int = 50) -> LedgerPage:
    """`ledger` for a viewer already seated: a page's, read with its login (issue 37)."""
    pid = private_owner(viewer, player_id)
    player = _player_in(session, viewer.campaign.id, pid)
    hidden = secret_ledger_filter(viewer, pid)
    if hidden is None:  # the owner's, whole
        found = paginate(session, _OWN_LEDGER, page=page, per_page=per_page, params={"player_id": pid})
    else:
        query = select(LedgerEntry).where(LedgerEntry.player_id == pid, hidden).order_by(LedgerEntry.id.desc())
        found = paginate(session, query, page=page, per_page=per_page)
    if not viewer.sees_balance_of(pid):
        for entry in found.items:  # detached first: the figures not shown are never written back
            session.expunge(entry)
            entry.balance_after = None
        return LedgerPage(pid, None, found.items, found.page, found.pages, found.total)
    secret = hidden_entries_of(session, viewer, pid)
    balance = player.gold - sum(amount for _id, amount in secret)
    if secret:
        # Each shown balance leaves out what is hidden before it. The rows are detached first,
        # so the shown figures can never be written back.
        for entry in found.items:
            session.expunge(entry)
            entry.balance_after -= sum(amount for entry_id, amount in secret if entry_id <= entry.id)
    return LedgerPage(pid, balance, found.items, found.page, found.pages, found.total)


def balance_matches_ledger(session: Session, player_id: int) -> bool:
    """The invariant of R3.8, for tests and audits."""
    total = session.exec(select(func.coalesce(func.sum(LedgerEntry.amount), 0)).where(LedgerEntry.player_id == player_id)).one()
    return total == session.exec(select(Player.gold).where(Player.id == player_id)).one()


# --- gold transfers (R8.11, R9.5) --------------------------------------------------------------

TRANSFERS = "gold_transfers"


def send_gold(session: Session, *, actor: User, campaign_id: int, to_player_id: int, amount: int, note: str = "") -> Transfer:
    """A player sends gold to another playing player: the sender's debit, the recipient's
    credit and the transfer are one transaction; the sender's row is locked and the debit is
    conditional, so concurrent transfers never overdraw. Nobody else is told (R8.11)."""
    viewer = acting_player(session, actor, campaign_id, lock_player=True)
    campaign = viewer.campaign
    require_module(campaign, TRANSFERS)
    if campaign.status != "running":
        raise DomainError("not_running")
    if amount <= 0:
        raise DomainError("transfer_amount")
    if abs(amount) > MAX_AMOUNT:
        raise DomainError("field_too_large", max=MAX_AMOUNT)
    if to_player_id == viewer.player.id:
        raise DomainError("transfer_to_self")
    recipient = _player_in(session, campaign_id, to_player_id)
    names = dict(session.exec(_NICKNAMES_OF, params={"ids": [viewer.player.id, recipient.id]}).all())
    note = note.strip()
    transfer = Transfer(
        campaign_id=campaign.id,
        from_player_id=viewer.player.id,
        to_player_id=recipient.id,
        amount=amount,
        note=note,
        round=campaign.round,
    )
    session.add(transfer)
    session.flush()
    pay(
        session,
        campaign=campaign,
        player_id=viewer.player.id,
        amount=amount,
        kind="transfer",
        note=N_("To %(player)s") if not note else N_("To %(player)s: %(note)s"),
        params={"player": names[recipient.id], "note": note},
    )
    credit(
        session,
        campaign=campaign,
        player_id=recipient.id,
        amount=amount,
        kind="transfer",
        note=N_("From %(player)s") if not note else N_("From %(player)s: %(note)s"),
        params={"player": names[viewer.player.id], "note": note},
    )
    live.publish(session, campaign.id, "transfer", subject_id=transfer.id, actor_user_id=viewer.user.id)
    return transfer


# The sender's and the recipient's names, built once (issue 37).
_NICKNAMES_OF = (
    select(Player.id, User.nickname).join(User, User.id == Player.user_id).where(Player.id.in_(bindparam("ids", expanding=True)))
)
# A player's own transfers, built once (issue 37: built on each visit of the transfer form).
_ME = bindparam("player_id")
_OWN_TRANSFERS = Listing(
    select(Transfer)
    .where(Transfer.campaign_id == bindparam("campaign_id"))
    .where((Transfer.from_player_id == _ME) | (Transfer.to_player_id == _ME))
    .order_by(Transfer.id.desc())
)


def transfers(session: Session, viewer: Viewer, *, page: int = 1, per_page: int = 50):
    """The viewer's own transfers, sent and received (R8.11): nobody else's, the GM's none."""
    require_module(viewer.campaign, TRANSFERS)
    if viewer.player is None:
        raise DomainError("not_a_player")
    params = {"campaign_id": viewer.campaign.id, "player_id": viewer.player.id}
    return paginate(session, _OWN_TRANSFERS, page=page, per_page=per_page, params=params)

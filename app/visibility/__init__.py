"""Who may see what (SPEC R11.2): the one place where membership and secrecy are decided.

Every service that reads a campaign goes through `viewer_for`; secret things (orders,
alliances, transfers, letters, companies) will be filtered here as they arrive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import product
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Integer, and_, bindparam, func, or_
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from app.accounts.models import User
from app.accounts.service import login_reading
from app.alliances.models import Alliance, AllianceMember
from app.campaigns.models import Campaign, Invitation, Player
from app.campaigns.rules import orders_public
from app.core.db import columns_except, read_rows, saved_id
from app.core.errors import DomainError
from app.core.rows import row_by_id
from app.gold.models import LedgerEntry
from app.gold.rules import OWNERS_ALONE, OWNERS_BEFORE_BATTLES, gms_see_balances
from app.people.models import GameMaster
from app.settlement.models import Ransom, Settlement
from app.warbands.models import Order, Warband

T = TypeVar("T")


@dataclass
class Viewer:
    user: User
    campaign: Campaign
    player: Player | None
    invited: bool = False
    co_gm: bool = False  # R12.8: a game master the GM added, with the GM's rights and limits

    @property
    def campaign_id(self) -> int:
        return saved_id(self.campaign.id)

    @property
    def is_gm(self) -> bool:  # the one place "is this viewer a game master" is decided (R12.8)
        return self.co_gm or self.campaign.gm_user_id == self.user.id

    @property
    def is_member(self) -> bool:
        return self.is_gm or self.player is not None

    def may_see_gold_of(self, player_id: int) -> bool:
        return self.is_gm or (self.player is not None and self.player.id == player_id)

    def sees_balance_of(self, player_id: int) -> bool:
        """R11.2: a player's balance, and each ledger entry's balance after it — its owner's;
        the GM's too unless the gold transfers module is on, for then any figure would be
        worked out from transfers the GM may not see (the module is fixed once running)."""
        if not self.may_see_gold_of(player_id):
            return False
        own = self.player is not None and self.player.id == player_id
        return own or not self.is_gm or gms_see_balances(self.campaign)


_VIEWER = (
    select(Campaign, Player, GameMaster.id)
    .outerjoin(Player, and_(col(Player.campaign_id) == Campaign.id, col(Player.user_id) == bindparam("user_id")))
    .outerjoin(GameMaster, and_(col(GameMaster.campaign_id) == Campaign.id, col(GameMaster.user_id) == bindparam("user_id")))
    .where(Campaign.id == bindparam("campaign_id"))
)
_VIEWER_LOCKED = _VIEWER.with_for_update(of=Campaign)
# A campaign page's login and its viewer in one round trip (issue 37): the login's statement
# reading the campaign of the path and the user's seats in it as `_VIEWER` does.
CAMPAIGN_PAGE_LOGIN = (
    login_reading(Campaign, Player, GameMaster.id)
    .outerjoin(Campaign, col(Campaign.id) == bindparam("campaign_id"))
    .outerjoin(Player, and_(col(Player.campaign_id) == Campaign.id, col(Player.user_id) == User.id))
    .outerjoin(GameMaster, and_(col(GameMaster.campaign_id) == Campaign.id, col(GameMaster.user_id) == User.id))
)


def kept(viewer: Viewer, name: str, compute: Callable[[], T]) -> T:
    """What a page asks more than once while it is drawn (the deadline, the round's to-do, the
    unread letters), worked out once per request: kept on this request's viewer as `name`."""
    if name not in viewer.__dict__:
        viewer.__dict__[name] = compute()
    return viewer.__dict__[name]


def viewer_for(session: Session, user: User, campaign_id: int, *, lock: bool = False, invitee_ok: bool = False) -> Viewer:
    """The campaign as this user may see it. Outsiders get 404, never 403: they are not
    told that a campaign exists."""
    # One statement for the campaign and the user's player in it (issue 17: the fixed cost of
    # every request), built once (issue 37); a lock takes the campaign row only.
    query = _VIEWER_LOCKED if lock else _VIEWER
    row = session.exec(query, params={"user_id": user.id, "campaign_id": campaign_id}).first()
    return seated(session, user, campaign_id, tuple(row) if row else (None, None, None), invitee_ok=invitee_ok)


def seated(session: Session, user: User, campaign_id: int, row: tuple, *, invitee_ok: bool = False) -> Viewer:
    """The viewer from a read of the campaign and the user's seats in it (campaign, player, co-GM
    id; the campaign None where there is none): `viewer_for`'s, or the campaign page login's."""
    campaign, player, co_gm = row
    if campaign is None:
        raise DomainError("not_found")
    viewer = Viewer(user=user, campaign=campaign, player=player, co_gm=co_gm is not None)
    if viewer.is_member:
        return viewer
    if invitee_ok:
        pending = session.exec(
            select(Invitation.id).where(
                Invitation.campaign_id == campaign_id,
                Invitation.user_id == user.id,
                Invitation.status == "pending",
            )
        ).first()
        if pending is not None:
            viewer.invited = True
            return viewer
    raise DomainError("not_found")


def require_gm(viewer: Viewer) -> None:
    if not viewer.is_gm:
        raise DomainError("gm_only")


def require_writable(viewer: Viewer) -> None:
    if viewer.campaign.status == "finished":
        raise DomainError("campaign_read_only")


# A round's orders and settlements, all of them or one player's: built once, as pages read them
# on every visit (issue 37: a statement built anew costs about 80 µs a request). The orders' are
# the warbands' reads too (`current_orders`: the GM's or the player's own).
_OF_ROUND = (Order.campaign_id == bindparam("campaign_id"), Order.round == bindparam("round"))
ROUND_ORDERS = select(Order).where(*_OF_ROUND).order_by(col(Order.id))
OWN_ROUND_ORDERS = ROUND_ORDERS.where(Order.player_id == bindparam("player_id"))
# As rows, without the time each was sent: no page shows it, and SQLite keeps it as text,
# parsed row by row (issue 37); with each one's warband's name, which the page shows (a
# statement of forty ids fewer).
_ROUND_ORDER_ROWS = (
    select(*[*columns_except(Order, "created_at"), col(Warband.name).label("warband_name")])
    .outerjoin(Warband, col(Warband.id) == Order.warband_id)
    .where(*_OF_ROUND)
    .order_by(col(Order.id))
)
_OWN_ROUND_ORDER_ROWS = _ROUND_ORDER_ROWS.where(Order.player_id == bindparam("player_id"))
_ROUND_SETTLEMENTS = (
    select(Settlement)
    .where(Settlement.campaign_id == bindparam("campaign_id"), Settlement.round == bindparam("round"))
    .order_by(col(Settlement.id))
)
_OWN_ROUND_SETTLEMENTS = _ROUND_SETTLEMENTS.where(Settlement.player_id == bindparam("player_id"))


def visible_orders(session: Session, viewer: Viewer, round_: int, *, rows: bool = False):
    """The orders of a round that this viewer may see: all of them for the GM or once
    public, otherwise the viewer's own (none for anybody else). `rows`: plain rows with the
    same attributes, for a page that only shows them (issue 37: forty Order objects cost the
    orders page twice what their statement does), each with its warband's name
    (`warband_name`, None for a warband no longer there)."""
    params = {"campaign_id": viewer.campaign.id, "round": round_}
    if viewer.is_gm or orders_public(viewer.campaign, round_):
        statement = _ROUND_ORDER_ROWS if rows else ROUND_ORDERS
    elif viewer.player is None:
        return []
    else:
        statement = _OWN_ROUND_ORDER_ROWS if rows else OWN_ROUND_ORDERS
        params = {**params, "player_id": viewer.player.id}
    return list((read_rows(session, statement, params) if rows else session.exec(statement, params=params)).all())


def may_see_settlement(viewer: Viewer, owner_player_id: int) -> bool:
    """R11.2 (issue 12): a settlement — its injuries, rolls and ransom — is seen by the
    warband's owner and the GM; anybody else is told it does not exist."""
    return viewer.is_gm or (viewer.player is not None and viewer.player.id == owner_player_id)


def visible_settlements(session: Session, viewer: Viewer, round_: int):
    """The settlements of a round that this viewer may see: all for the GM, own for a player."""
    params = {"campaign_id": viewer.campaign.id, "round": round_}
    if viewer.is_gm:
        return list(session.exec(_ROUND_SETTLEMENTS, params=params).all())
    if viewer.player is None:
        return []
    return list(session.exec(_OWN_ROUND_SETTLEMENTS, params={**params, "player_id": viewer.player.id}).all())


def _ransoms_of(gm: bool, by_id: bool, lock: bool) -> SelectOfScalar:
    query = select(Ransom).where(Ransom.campaign_id == bindparam("campaign_id"))
    if by_id:
        query = query.where(Ransom.id == bindparam("ransom_id"))
    if not gm:
        mine = bindparam("player_id", type_=Integer())
        query = query.where(or_(col(Ransom.owner_player_id) == mine, col(Ransom.captor_player_id) == mine))
    return (query.with_for_update() if lock else query).order_by(col(Ransom.id))


_RANSOMS = {key: _ransoms_of(*key) for key in product((False, True), repeat=3)}  # built once (issue 37)


def visible_ransoms(session: Session, viewer: Viewer, *, lock: bool = False, ransom_id: int | None = None):
    """Ransoms are seen by the prisoner's owner, its captor and the GM (V12, R11.2)."""
    if not viewer.is_gm and viewer.player is None:
        return []
    mine = viewer.player.id if viewer.player is not None else None
    params = {"campaign_id": viewer.campaign.id, "ransom_id": ransom_id, "player_id": mine}
    return list(session.exec(_RANSOMS[(viewer.is_gm, ransom_id is not None, lock)], params=params).all())


def private_owner(viewer: Viewer, player_id: int | None) -> int:
    """Whose company, gold or ledger this viewer asks for (R11.2): their own, or — for the GM
    only — any player's. Anybody else is told nothing (404)."""
    if player_id is None:
        if viewer.player is None:
            raise DomainError("player_id_required" if viewer.is_gm else "not_found")
        return saved_id(viewer.player.id)
    if not viewer.may_see_gold_of(player_id):
        raise DomainError("not_found")
    return player_id


_PLAYER_LOCKED = select(Player.id).where(Player.id == bindparam("player_id")).with_for_update()


def acting_player(session: Session, user: User, campaign_id: int, *, lock_player: bool = False) -> Viewer:
    """The campaign, locked, for a change a player makes to their own things while it is not
    finished; with `lock_player`, that player's row too, so their changes queue (PostgreSQL)."""
    viewer = viewer_for(session, user, campaign_id, lock=True)
    require_writable(viewer)
    if viewer.player is None:
        raise DomainError("not_a_player")
    if lock_player:
        session.exec(_PLAYER_LOCKED, params={"player_id": viewer.player.id}).one()
    return viewer


def gm_viewer(session: Session, user: User, campaign_id: int) -> Viewer:
    """The campaign, locked for a change that only its GM may make while it is not finished."""
    viewer = viewer_for(session, user, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    return viewer


def outsider_viewer(campaign: Campaign) -> Viewer:
    """R12.5: the club screen's viewer — nobody's seat and no game master, so it is shown only
    what every member sees: orders, alliances and results from Battles on; no gold, company,
    letter, transfer, settlement or ransom."""
    return Viewer(user=User(id=0, nickname="", nickname_key="", password_hash=""), campaign=campaign, player=None)


def campaign_row(session: Session, cls, row_id: int, campaign_id: int):
    """A row of this campaign; anything else is simply not found."""
    row = row_by_id(session, cls, row_id)
    if row is None or row.campaign_id != campaign_id:
        raise DomainError("not_found")
    return row


# Built once: a player's dashboard reads the alliances on every page (issue 37).
_ALLIANCES = select(Alliance).where(Alliance.campaign_id == bindparam("campaign_id")).order_by(col(Alliance.id).desc())
_ALLIANCES_OF_ROUND = _ALLIANCES.where(Alliance.round == bindparam("round"))
_ALLIANCES_OF_PLAYER = select(AllianceMember.alliance_id).where(
    AllianceMember.campaign_id == bindparam("campaign_id"),
    AllianceMember.player_id == bindparam("player_id"),
    col(AllianceMember.status).in_(("invited", "member")),
)
_JOINED_BY_TWO = (  # the alliances someone joined besides their initiator
    select(AllianceMember.alliance_id)
    .where(col(AllianceMember.alliance_id).in_(bindparam("ids", expanding=True)), AllianceMember.status == "member")
    .group_by(col(AllianceMember.alliance_id))
    .having(func.count() >= 2)
)


def visible_alliances(session: Session, viewer: Viewer, *, round_: int | None = None):
    """R8.8: a mission alliance is seen by its members and invitees until its round's Battles
    — not by the GM, not by other players — and by every member of the campaign from then on
    (the live ones: not one its initiator ended, not one nobody joined)."""
    campaign = viewer.campaign
    if round_ is None:
        rows = list(session.exec(_ALLIANCES, params={"campaign_id": campaign.id}).all())
    else:
        rows = list(session.exec(_ALLIANCES_OF_ROUND, params={"campaign_id": campaign.id, "round": round_}).all())
    me = viewer.player.id if viewer.player else None
    mine: set[int] = set()
    # Read whether or not others made alliances: a read only then would tell, by the time it
    # takes, that someone did (R11.2).
    if me is not None:
        mine = set(session.exec(_ALLIANCES_OF_PLAYER, params={"campaign_id": campaign.id, "player_id": me}).all())
    public = {a.id for a in rows if orders_public(campaign, a.round) and a.status != "ended"}
    if public:
        public &= set(session.exec(_JOINED_BY_TWO, params={"ids": list(public)}).all())
    return [a for a in rows if a.id in mine or a.id in public]


def _hidden_when(before_battles: bool, round_: Any) -> ColumnElement[bool]:
    """Ledger entries nobody but their owner sees (R11.2): gold transfers, always (R8.11), and
    the mission-alliance fees of the round `round_` while its Battles have not begun (R8.8)."""
    hidden = col(LedgerEntry.kind) == OWNERS_ALONE
    if before_battles:
        hidden = hidden | ((col(LedgerEntry.kind) == OWNERS_BEFORE_BATTLES) & (col(LedgerEntry.round) == round_))
    return hidden


def _hidden_entries(campaign: Campaign) -> ColumnElement[bool]:
    return _hidden_when(not orders_public(campaign, campaign.round), campaign.round)


# The hidden sums (of every player, or of one) and entries, built once for either state of the
# round (issue 37: built on each call, they cost the GM's pages more than running them).
_HIDDEN = {before: _hidden_when(before, bindparam("round", type_=Integer())) for before in (False, True)}
_OF_ONE = LedgerEntry.player_id == bindparam("player_id")
_GOLD = select(LedgerEntry.player_id, func.sum(LedgerEntry.amount)).where(LedgerEntry.campaign_id == bindparam("campaign_id"))
_HIDDEN_GOLD = {
    (before, one): _GOLD.where(_HIDDEN[before], *([_OF_ONE] if one else [])).group_by(col(LedgerEntry.player_id))
    for before, one in product((False, True), repeat=2)
}
_HIDDEN_OF = {
    b: select(LedgerEntry.id, LedgerEntry.amount).where(_OF_ONE, _HIDDEN[b]).order_by(col(LedgerEntry.id)) for b in (False, True)
}


def _hidden_params(viewer: Viewer, player_id: int | None) -> tuple[bool, dict[str, Any]]:
    campaign = viewer.campaign
    return not orders_public(campaign, campaign.round), {
        "campaign_id": campaign.id,
        "round": campaign.round,
        "player_id": player_id,
    }


def secret_ledger_filter(viewer: Viewer, player_id: int) -> ColumnElement[bool] | None:
    """A player's ledger as seen by somebody else (the GM): the condition that leaves out what
    only its owner may see, or None for the owner."""
    if viewer.player is not None and viewer.player.id == player_id:
        return None
    return ~_hidden_entries(viewer.campaign)


def hidden_gold(session: Session, viewer: Viewer, player_id: int | None = None) -> dict[int, int]:
    """Per player, the sum of the entries this viewer may not see, so that the gold they are
    shown is the sum of the entries they are shown (the GM's figures add up without transfers,
    R8.11). Empty for anybody who sees no one's gold but their own. One statement."""
    if not viewer.is_gm:
        return {}
    before, params = _hidden_params(viewer, player_id)
    own = viewer.player.id if viewer.player else None
    rows = session.exec(_HIDDEN_GOLD[(before, player_id is not None)], params=params).all()
    return {pid: int(total) for pid, total in rows if pid != own and total}


def hidden_entries_of(session: Session, viewer: Viewer, player_id: int) -> list[tuple[int, int]]:
    """(entry id, amount) of a player's entries this viewer may not see, oldest first — to
    show each visible entry's balance as the sum of the visible ones."""
    if secret_ledger_filter(viewer, player_id) is None:
        return []
    before, params = _hidden_params(viewer, player_id)
    return [(saved_id(i), a) for i, a in session.exec(_HIDDEN_OF[before], params=params).all()]


# Who sees which letters: app/visibility/letters.py, read through here as before.
from app.visibility.letters import is_letter_recipient as is_letter_recipient  # noqa: E402
from app.visibility.letters import letter_party as letter_party  # noqa: E402
from app.visibility.letters import may_read_letter as may_read_letter  # noqa: E402
from app.visibility.letters import readable_letters as readable_letters  # noqa: E402
from app.visibility.letters import unread_letters_count as unread_letters_count  # noqa: E402
from app.visibility.letters import visible_box as visible_box  # noqa: E402
from app.visibility.letters import visible_letters as visible_letters  # noqa: E402

"""Who sees each change (issue 37, SPEC R11.2): the counters a page's cheap revalidation is
keyed by (app/core/page_cache.py). Each committed transaction moves, for every campaign it
touched, the row of every member (seat 0) when anything a member may see changed, and
otherwise only the rows of the seats that may see what it changed (a player's, the game
masters'): an order before Battles moves its owner's and the GMs' rows, a letter or a gold
transfer its two parties' rows, a mission alliance before Battles its members' rows. So a viewer's key moves exactly when
something they may see changed, and the timing of their revalidation cannot tell them that
someone acted out of their sight.

Too many bumps cost a drawing; too few would answer 304 to a changed page. So what is not
known to be secret moves every member's row, and what cannot be placed in one campaign moves
row (0, 0), which every key carries. The test suite checks the second half: with
`Settings.revalidation_check`, a page drawn again for the same request and the same key must
be the same page (app/core/page_cache.py). The secrecy tests check the first."""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import Select, bindparam, event, inspect, select, text
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, SQLModel

from app.campaigns.models import Campaign
from app.campaigns.rules import orders_public
from app.core import commit_steps
from app.core.rows import row_by_id
from app.gold.rules import gms_see_balances, seen_by_owner_alone
from app.versions.models import AudienceVersion
from app.versions.rules import (
    ALLIANCES,
    CASCADES,
    GMS_ONLY,
    IGNORED,
    IN_ALLIANCE,
    OWNED,
    READ,
    ROW_PARENTS,
    WARBAND_OWN,
    WARBAND_PUBLIC,
)
from app.versions.service import EVERYWHERE, _campaign_in, _changed_columns

EVERYONE = 0  # the seats of app/versions/models.py's AudienceVersion
GAME_MASTERS = -1


def user_seat(user_id):
    """A user's own seat in a campaign, whatever else they are in it (an invitee, a calendar's
    holder). Of an id, or of a column: the key's statement names the same seat in SQL."""
    return -1 - user_id


KEY = "audiences_touched"
CAMPAIGNS = "audiences_campaigns"


@dataclass
class Seen:
    """Who may see what one transaction changed in one campaign."""

    everyone: bool = False
    players: set[int] = field(default_factory=set)
    users: set[int] = field(default_factory=set)
    gms: bool = False

    def owned(self, players, gms: bool) -> None:
        self.players.update(p for p in players if p is not None)
        self.gms = self.gms or gms


@dataclass
class Touched:
    facts: list[tuple[str, dict, frozenset | None]] = field(default_factory=list)
    declared: dict[int, Seen] = field(default_factory=lambda: defaultdict(Seen))
    everywhere: bool = False


def _touched(session: Session) -> Touched:
    return session.info.setdefault(KEY, Touched())


def _fact(session: Session, table: str | None, row: dict, changed: frozenset | None) -> None:
    if table is None or table in IGNORED:
        return
    _touched(session).facts.append((table, row, changed))


def _row_of(obj) -> dict:
    """The columns READ names that the row holds loaded: never a load (a deleted row's expired
    column would raise), and what is missing counts as unknown (a wider audience)."""
    loaded = inspect(obj).dict
    return {name: loaded[name] for name in READ if name in loaded}


@event.listens_for(Session, "before_flush")
def _cascades(session, _context, _instances) -> None:
    for obj in session.deleted:
        for child, column in CASCADES.get(getattr(obj, "__tablename__", ""), ()):
            with session.no_autoflush:
                for row in _rows(session, child, column, {obj.id}):
                    _fact(session, child, dict(row), None)


@event.listens_for(Session, "after_flush")
def _after_flush(session, _context) -> None:
    for obj in (*session.new, *session.deleted):
        _fact(session, getattr(obj, "__tablename__", None), _row_of(obj), None)
    for obj in session.dirty:
        changed = frozenset(_changed_columns(obj))
        if changed:
            _fact(session, getattr(obj, "__tablename__", None), _row_of(obj), changed)


def declared(campaign_id: int, players=(), gms: bool = False) -> dict:
    """The execution option of a bulk statement on a secret table: who may see its change."""
    return {"audience": (campaign_id, tuple(players), gms)}


@event.listens_for(Session, "do_orm_execute")
def _bulk(state) -> None:
    if not (state.is_update or state.is_delete or state.is_insert):
        return
    name = getattr(getattr(state.statement, "table", None), "name", None)
    if name is None or name in IGNORED:
        return
    said = state.execution_options.get("audience")
    touched = _touched(state.session)
    if said is not None:
        touched.declared[said[0]].owned(said[1], said[2])
        return
    if state.is_insert:
        rows = state.parameters if isinstance(state.parameters, list) else [state.parameters or {}]
        for row in rows:
            _fact(state.session, name, dict(row), None)
        return
    campaign = _campaign_in(getattr(state.statement, "whereclause", None))
    if campaign is None:
        touched.everywhere = True
    elif name in GMS_ONLY:
        touched.declared[campaign].gms = True
    else:
        touched.declared[campaign].everyone = True


# PostgreSQL and SQLite write an upsert alike (as app/versions/service.py's).
_BUMP = text(
    f"INSERT INTO {AudienceVersion.__tablename__} (campaign_id, seat, version) VALUES (:campaign_id, :seat, 1) "
    f"ON CONFLICT (campaign_id, seat) DO UPDATE SET version = {AudienceVersion.__tablename__}.version + 1"
)


def _rows(session: Session, table: str, column: str, ids) -> list:
    return list(session.execute(_rows_of(table, column), {"ids": sorted(ids)}).mappings())


@functools.cache
def _rows_of(table: str, column: str) -> Select:
    """A table's rows by a column's values, built once per table and column (issue 37: every
    write asked it, built anew)."""
    rows = SQLModel.metadata.tables[table]
    return select(rows).where(rows.c[column].in_(bindparam("ids", expanding=True)))


def _held(session: Session, table: str, ids: set) -> list[dict]:
    """The rows of `table` the session holds, loaded and unexpired, as dicts of their columns."""
    model = _MODELS.get(table)
    if model is None:
        _MODELS.update({getattr(m.local_table, "name", ""): m.class_ for m in SQLModel._sa_registry.mappers})
        model = _MODELS.get(table)
    held: list[dict] = []
    for id_ in ids:
        obj = session.identity_map.get(identity_key(model, id_)) if model is not None else None
        if obj is not None and not inspect(obj).expired_attributes & {"id", "campaign_id", "player_id"}:
            held.append({"id": obj.id, "campaign_id": obj.campaign_id, "player_id": getattr(obj, "player_id", None)})
    return held


_MODELS: dict[str, type] = {}


def _with_parents(session: Session, facts: list) -> list:
    """Each fact of a row placed through its parent, with the parent's campaign and player
    (read, or taken from the same transaction's facts where the parent is gone)."""
    wanted: dict[str, set] = defaultdict(set)
    for table, row, _changed in facts:
        if table in ROW_PARENTS and row.get("campaign_id") is None and row.get(ROW_PARENTS[table][0]) is not None:
            wanted[ROW_PARENTS[table][1]].add(row[ROW_PARENTS[table][0]])
    if not wanted:
        return facts
    parents = {(table, row["id"]): row for table, row, _changed in facts if "id" in row}
    for parent, ids in wanted.items():
        held = _held(session, parent, ids)  # the use case's own rows, as it left them: no read
        parents.update({(parent, row["id"]): row for row in held})
        missing = ids - {row["id"] for row in held}
        if missing:
            parents.update({(parent, row["id"]): row for row in _rows(session, parent, "id", missing)})
    placed = []
    for table, row, changed in facts:
        if table in ROW_PARENTS and row.get("campaign_id") is None:
            column, parent = ROW_PARENTS[table]
            found = parents.get((parent, row.get(column)), {})
            row = {**row, "campaign_id": found.get("campaign_id"), "owner_player_id": found.get("player_id")}
        placed.append((table, row, changed))
    return placed


def _alliances(session: Session, ids: set, facts_rows: dict, seen: dict) -> None:
    """A mission alliance before its round's Battles: its members and invitees; from then on,
    everyone (R8.8)."""
    found = {row["id"]: row for row in _rows(session, "mission_alliance", "id", ids)}
    members: dict[int, set] = defaultdict(set)
    for row in _rows(session, "mission_alliance_member", "alliance_id", ids):
        if row["status"] in IN_ALLIANCE:
            members[row["alliance_id"]].add(row["player_id"])
    for alliance_id in ids:
        row = found.get(alliance_id) or facts_rows.get(alliance_id)
        if row is None:
            continue  # gone with its campaign: that change moved everyone's row
        campaign = _campaign(session, row["campaign_id"])
        if campaign is None or row.get("round") is None or orders_public(campaign, row["round"]):
            seen[row["campaign_id"]].everyone = True
        else:
            seen[row["campaign_id"]].owned({row.get("initiator_player_id"), *members[alliance_id]}, False)


def _warbands(session: Session, rows: dict, seen: dict) -> None:
    """A warband's own change: everyone's once it is public (WARBAND_PUBLIC's comment), else
    its owner's."""
    public = set()
    for table in ("warband_order", "arrival"):
        public |= {row["warband_id"] for row in _rows(session, table, "warband_id", rows)}
    for warband_id, row in rows.items():
        if warband_id in public:
            seen[row["campaign_id"]].everyone = True
        else:
            seen[row["campaign_id"]].owned((row.get("player_id"),), False)


def _guild_requests(session: Session, rows: dict, seen: dict) -> None:
    """A request to join a guild, pending: its asker and the guild's founder (app/guilds)."""
    founders = {row["id"]: row["founder_player_id"] for row in _rows(session, "guild", "id", set(rows) - {None})}
    for guild_id, asks in rows.items():
        for row in asks:
            seen[row["campaign_id"]].owned((row.get("player_id"), founders.get(guild_id)), False)


def _campaign(session: Session, campaign_id: int) -> Campaign | None:
    """Read once a commit (a page's writes may have read it past the ORM)."""
    known = session.info.setdefault(CAMPAIGNS, {})
    if campaign_id not in known:
        with session.no_autoflush:
            known[campaign_id] = row_by_id(session, Campaign, campaign_id)
    return known[campaign_id]


def _place(session: Session, table: str, row: dict, changed, seen: Seen, later: dict) -> None:
    """Who may see this change of one row (R11.2); `later` collects what a read must decide."""
    # Read only where the rule needs it (a purchase's ledger entry does not).
    needed = table in ("player", "warband_order", "warband") or (table == "ledger_entry" and row.get("kind") == "alliance_fee")
    campaign = _campaign(session, row["campaign_id"]) if needed else None
    if table in GMS_ONLY:
        seen.gms = True
    elif table in OWNED:
        seen.owned((row.get(column) for column in OWNED[table][0]), OWNED[table][1])
    elif table == "letter":
        # A letter's parties; a party missing is the game master (R8.12).
        parties = (row.get("from_player_id"), row.get("to_player_id"))
        seen.owned(parties, None in parties)
    elif table == "settlement" and row.get("status") == "draft" and (changed is None or "status" not in changed):
        seen.owned((row.get("player_id"),), True)  # a draft, saved or begun: the Twilight gate lists who has not closed
    elif table == "ledger_entry":
        kind = row.get("kind", "")
        alone = (needed and campaign is None) or seen_by_owner_alone(campaign, kind, row.get("round", 0))
        seen.owned((row.get("player_id"),), not alone)
    elif table == "player" and changed is not None and changed <= {"gold"}:
        seen.owned((row["id"],), campaign is not None and gms_see_balances(campaign))
    elif table == "warband_order":
        if campaign is None or row.get("round") is None or orders_public(campaign, row["round"]):
            seen.everyone = True
        else:
            seen.owned((row.get("player_id"),), True)
    elif table == "warband" and changed is not None and changed <= WARBAND_OWN:
        seen.owned((row.get("player_id"),), False)  # nobody else sees a warband's mercenary as it stands
    elif table == "warband" and campaign is not None and not (campaign.modules or {}).get("movement"):
        if changed is not None and changed & WARBAND_PUBLIC:
            seen.everyone = True
        else:
            later["warband"][row["id"]] = row
    elif table in ("warband_member", "company_model", "company_item"):
        seen.owned((row.get("owner_player_id"),), table != "warband_member")
    elif table == "guild_request" and row.get("status") != "accepted":
        later["guild_request"].setdefault(row.get("guild_id"), []).append(row)
    elif table in ("calendar_link", "invitation") and row.get("user_id") is not None:
        seen.users.add(row["user_id"])  # a calendar's holder; an invitee (not a member yet) and the GMs who invited
        seen.gms = seen.gms or table == "invitation"
    else:
        seen.everyone = True


def _seen(session: Session, touched: Touched) -> dict[int, Seen]:
    seen = touched.declared
    alliances: set = set()
    alliance_rows: dict = {}
    later: dict[str, dict] = {"warband": {}, "guild_request": {}}
    for table, row, changed in _with_parents(session, touched.facts):
        campaign_id = row.get("id") if table == "campaign" else row.get("campaign_id")
        if campaign_id is None:
            touched.everywhere = True
        elif table in ALLIANCES:
            alliances.add(row.get(ALLIANCES[table]))
            if table == "mission_alliance":
                alliance_rows[row.get("id")] = row
            seen[campaign_id].owned((row.get("player_id"),), False)
        else:
            _place(session, table, row, changed, seen[campaign_id], later)
    alliances.discard(None)
    if alliances:
        _alliances(session, alliances, alliance_rows, seen)
    if later["warband"]:
        _warbands(session, later["warband"], seen)
    if later["guild_request"]:
        _guild_requests(session, later["guild_request"], seen)
    return seen


def _seats(seen: dict[int, Seen]) -> set[tuple[int, int]]:
    """The rows to move: (campaign, every member) where everyone may see the change, else the
    seats of those who may: their players', the game masters', a user's own (an invitee's)."""
    rows = {(c, EVERYONE) for c, s in seen.items() if s.everyone}
    private = {c: s for c, s in seen.items() if not s.everyone}
    rows |= {(c, p) for c, s in private.items() for p in s.players}
    rows |= {(c, GAME_MASTERS) for c, s in private.items() if s.gms}
    rows |= {(c, user_seat(u)) for c, s in private.items() for u in s.users}
    return rows


@commit_steps.before_commit(commit_steps.AUDIENCES)
def _bump(session: Session) -> None:
    """As the transaction's last statements, in one order (so that, on PostgreSQL, the row
    locks they take wait for nobody who waits for them)."""
    session.flush()
    touched = session.info.pop(KEY, None)
    if touched is None or not (touched.facts or touched.declared or touched.everywhere):
        return
    rows = _seats(_seen(session, touched))
    if touched.everywhere:
        rows.add((EVERYWHERE, EVERYONE))
    if rows:
        session.execute(_BUMP, [{"campaign_id": c, "seat": seat} for c, seat in sorted(rows)])
    session.info.pop(CAMPAIGNS, None)


@event.listens_for(Session, "after_rollback")
def _forget(session) -> None:
    if not session.in_nested_transaction():  # a savepoint rolled back leaves the rest to count
        session.info.pop(KEY, None)
        session.info.pop(CAMPAIGNS, None)

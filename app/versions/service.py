"""Counting the changes of each campaign (issue 17): the key of server-side caches (the map's
drawing, app/maps/map_pages.py). Never sent to anyone: a counter moves with every secret
action, so an ETag made of it told a viewer when others acted (issue 27 item 7; page ETags
are digests of the page drawn, app/core/page_cache.py). Every flush and every bulk
statement of a transaction is looked at; at commit the counters of the campaigns it touched
go up by one, in id order and as the transaction's last statements (so that, on PostgreSQL,
the row locks they take wait for nobody who waits for them). What cannot be placed in one
campaign bumps row 0, which every cache key also carries: too many bumps cost only a
re-render, too few would show a stale page."""

from __future__ import annotations

import functools

from sqlalchemy import Select, bindparam, event, inspect, select, text
from sqlalchemy.sql import operators, visitors
from sqlalchemy.sql.elements import BinaryExpression, BindParameter, ColumnClause
from sqlmodel import Session, SQLModel

from app.core import commit_steps
from app.core.db import read_rows
from app.versions.models import CampaignVersion
from app.versions.rules import IGNORED, PARENTS

EVERYWHERE = 0
# The tables the map is drawn from (app/maps/map_pages.py), and for those whose rows hidden acts
# change too, the only columns the map shows: a purchase (a player's gold), a letter or an order
# leaves the map's drawing as it was, so it must not cost the map's next viewer a drawing —
# the map's timing would tell them that someone acted in secret (R11.2). Row -c counts the
# changes of campaign c's map.
MAP_TABLES = {"campaign", "place", "path", "hideout", "event", "place_round", "warband", "player"}
MAP_COLUMNS = {"player": {"user_id", "campaign_id"}, "warband": {"location_place_id", "player_id", "campaign_id"}}
KEY = "versions_touched"


def _touched(session: Session) -> dict:
    return session.info.setdefault(KEY, {"campaigns": set(), "parents": {}, "maps": set()})


def _on_map(table: str, changed: set[str] | None) -> bool:
    """Whether a change of `table` (of the columns `changed`; None: a row added or deleted, or
    columns unknown) changes what the map draws."""
    return table in MAP_TABLES and (changed is None or table not in MAP_COLUMNS or bool(changed & MAP_COLUMNS[table]))


def _place(session: Session, obj, changed: set[str] | None = None) -> None:
    table = getattr(obj, "__tablename__", None)
    if table is None or table in IGNORED:
        return
    touched = _touched(session)
    campaign = obj.id if table == "campaign" else getattr(obj, "campaign_id", None)
    if campaign is not None:
        touched["campaigns"].add(campaign)
        # A warband the map cannot show (standing nowhere: the movement module is off) added or
        # disbanded leaves the map's drawing as it was, and must not cost its next viewer one.
        unplaced = table == "warband" and changed is None and getattr(obj, "location_place_id", None) is None
        if _on_map(table, changed) and not unplaced:
            touched["maps"].add(campaign)
    elif table in PARENTS and getattr(obj, PARENTS[table][0], None) is not None:
        touched["parents"].setdefault(table, set()).add(getattr(obj, PARENTS[table][0]))
    else:
        touched["campaigns"].add(EVERYWHERE)


def _changed_columns(obj) -> set[str]:
    return {a.key for a in inspect(obj).attrs if a.history.has_changes()}


@event.listens_for(Session, "after_flush")
def _after_flush(session, _context) -> None:
    # After a flush the session's lists and the attributes' histories still show what it wrote.
    for obj in (*session.new, *session.deleted):
        _place(session, obj)
    for obj in session.dirty:
        _place(session, obj, _changed_columns(obj))


def _campaign_in(whereclause) -> int | None:
    """`campaign_id = <value>` in a bulk statement's WHERE, when it says so."""
    if whereclause is None:
        return None
    for node in visitors.iterate(whereclause):
        if (
            isinstance(node, BinaryExpression)
            and node.operator is operators.eq
            and isinstance(node.left, ColumnClause)
            and node.left.key == "campaign_id"
            and isinstance(node.right, BindParameter)
        ):
            return node.right.effective_value
    return None


@event.listens_for(Session, "do_orm_execute")
def _bulk(state) -> None:
    if not (state.is_update or state.is_delete or state.is_insert):
        return
    table = getattr(state.statement, "table", None)
    name = getattr(table, "name", None)
    if name is None or name in IGNORED:
        return
    touched = _touched(state.session)
    if state.is_insert:
        # Bulk inserts of plain rows (announcing): their campaign, or their parent, is in each row.
        rows = state.parameters if isinstance(state.parameters, list) else [state.parameters or {}]
        if rows and all("campaign_id" in r for r in rows):
            touched["campaigns"].update(r["campaign_id"] for r in rows)
            if _on_map(name, None):
                touched["maps"].update(r["campaign_id"] for r in rows)
            return
        if name in PARENTS and rows and all(PARENTS[name][0] in r for r in rows):
            touched["parents"].setdefault(name, set()).update(r[PARENTS[name][0]] for r in rows)
            return
        touched["campaigns"].add(EVERYWHERE)
        return
    campaign = _campaign_in(getattr(state.statement, "whereclause", None))
    touched["campaigns"].add(campaign if campaign is not None else EVERYWHERE)
    if campaign is not None and _on_map(name, None if state.is_delete else _set_columns(state.statement)):
        touched["maps"].add(campaign)


def _set_columns(statement) -> set[str] | None:
    """The columns a bulk UPDATE sets (None where it does not say)."""
    values = getattr(statement, "_values", None)
    if not values:
        return None
    return {getattr(column, "key", None) or str(column) for column in values}


# PostgreSQL and SQLite write an upsert alike: one statement for both, and a SQLite server loads
# no PostgreSQL dialect for it (2 MB of each worker, issue 37).
_BUMP = text(
    f"INSERT INTO {CampaignVersion.__tablename__} (campaign_id, version) VALUES (:campaign_id, 1) "
    f"ON CONFLICT (campaign_id) DO UPDATE SET version = {CampaignVersion.__tablename__}.version + 1"
)


@functools.cache
def _campaigns_of(table: str) -> Select:
    """The campaigns of a parent table's rows, built once per table (issue 37: every write of a
    child row asked it, built anew)."""
    rows = SQLModel.metadata.tables[table]
    return select(rows.c.campaign_id).where(rows.c.id.in_(bindparam("ids", expanding=True)))


@commit_steps.before_commit(commit_steps.COUNTERS)
def _bump(session: Session) -> None:
    session.flush()  # before_commit comes before commit's own flush: count what it would write
    touched = session.info.pop(KEY, None)
    if not touched:
        return
    campaigns = set(touched["campaigns"]) | {-c for c in touched["maps"] if c != EVERYWHERE}
    for table, ids in touched["parents"].items():
        campaigns |= set(session.execute(_campaigns_of(PARENTS[table][1]), {"ids": sorted(ids)}).scalars())
    if not campaigns:
        return
    for campaign_id in sorted(campaigns):
        session.execute(_BUMP, {"campaign_id": campaign_id})
    session.info.pop(KEY, None)


@event.listens_for(Session, "after_rollback")
def _forget(session) -> None:
    if not session.in_nested_transaction():  # a savepoint rolled back leaves the rest to count
        session.info.pop(KEY, None)


_VERSIONS = select(CampaignVersion.campaign_id, CampaignVersion.version).where(
    CampaignVersion.campaign_id.in_((bindparam("campaign_id"), EVERYWHERE))
)


def versions(session: Session, campaign_id: int) -> tuple[int, int]:
    """(this campaign's count, the count of changes placed nowhere), by a statement built once."""
    rows = dict(read_rows(session, _VERSIONS, {"campaign_id": campaign_id}).all())
    return rows.get(campaign_id, 0), rows.get(EVERYWHERE, 0)


def map_version(session: Session, campaign_id: int) -> tuple[int, int]:
    """(the count of changes of this campaign's map, the count of changes placed nowhere)."""
    return versions(session, -campaign_id)

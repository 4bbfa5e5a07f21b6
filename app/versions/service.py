"""Counting the changes of each campaign (issue 17, page ETags). Every flush and every bulk
statement of a transaction is looked at; at commit the counters of the campaigns it touched
go up by one, in id order and as the transaction's last statements (so that, on PostgreSQL,
the row locks they take wait for nobody who waits for them). What cannot be placed in one
campaign bumps row 0, which every page's ETag also carries: too many bumps cost only a
re-render, too few would show a stale page."""
from __future__ import annotations

from sqlalchemy import event, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql import operators, visitors
from sqlalchemy.sql.elements import BinaryExpression, BindParameter, ColumnClause
from sqlmodel import Session, SQLModel

from app.versions.models import CampaignVersion

EVERYWHERE = 0
# Tables whose rows no campaign page shows (logins, sessions, tokens) or that are this
# bookkeeping itself.
IGNORED = {"user_account", "user_session", "api_token", "login_failure", "live_event", "campaign_version", "digest_subscription"}
# Rows without a campaign id, placed through their parent: table -> (column, parent table).
PARENTS = {"battle_warband": ("battle_id", "battle"), "battle_confirmation": ("battle_id", "battle"),
           "company_model": ("company_id", "company"), "company_item": ("company_id", "company"),
           "warband_member": ("warband_id", "warband")}
KEY = "versions_touched"


def _touched(session: Session) -> dict:
    return session.info.setdefault(KEY, {"campaigns": set(), "parents": {}})


def _place(session: Session, obj) -> None:
    table = getattr(obj, "__tablename__", None)
    if table is None or table in IGNORED:
        return
    touched = _touched(session)
    if table == "campaign":
        touched["campaigns"].add(obj.id)
    elif getattr(obj, "campaign_id", None) is not None:
        touched["campaigns"].add(obj.campaign_id)
    elif table in PARENTS and getattr(obj, PARENTS[table][0], None) is not None:
        touched["parents"].setdefault(table, set()).add(getattr(obj, PARENTS[table][0]))
    else:
        touched["campaigns"].add(EVERYWHERE)


@event.listens_for(Session, "after_flush")
def _after_flush(session, _context) -> None:
    for obj in (*session.new, *session.dirty, *session.deleted):
        _place(session, obj)


def _campaign_in(whereclause) -> int | None:
    """`campaign_id = <value>` in a bulk statement's WHERE, when it says so."""
    if whereclause is None:
        return None
    for node in visitors.iterate(whereclause):
        if isinstance(node, BinaryExpression) and node.operator is operators.eq and isinstance(node.left, ColumnClause) \
                and node.left.key == "campaign_id" and isinstance(node.right, BindParameter):
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
            return
        if name in PARENTS and rows and all(PARENTS[name][0] in r for r in rows):
            touched["parents"].setdefault(name, set()).update(r[PARENTS[name][0]] for r in rows)
            return
        touched["campaigns"].add(EVERYWHERE)
        return
    campaign = _campaign_in(getattr(state.statement, "whereclause", None))
    touched["campaigns"].add(campaign if campaign is not None else EVERYWHERE)


@event.listens_for(Session, "before_commit")
def _bump(session: Session) -> None:
    session.flush()  # before_commit comes before commit's own flush: count what it would write
    touched = session.info.pop(KEY, None)
    if not touched:
        return
    campaigns = set(touched["campaigns"])
    for table, ids in touched["parents"].items():
        rows = SQLModel.metadata.tables[PARENTS[table][1]]
        campaigns |= set(session.execute(select(rows.c.campaign_id).where(rows.c.id.in_(sorted(ids)))).scalars())
    if not campaigns:
        return
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    for campaign_id in sorted(campaigns):
        statement = insert(CampaignVersion).values(campaign_id=campaign_id, version=1)
        session.execute(statement.on_conflict_do_update(index_elements=["campaign_id"],
                                                        set_={"version": CampaignVersion.version + 1}))
    session.info.pop(KEY, None)


@event.listens_for(Session, "after_rollback")
def _forget(session) -> None:
    session.info.pop(KEY, None)


def versions(session: Session, campaign_id: int) -> tuple[int, int]:
    """(this campaign's count, the count of changes placed nowhere)."""
    rows = dict(session.execute(select(CampaignVersion.campaign_id, CampaignVersion.version)
                                .where(CampaignVersion.campaign_id.in_((campaign_id, EVERYWHERE)))).all())
    return rows.get(campaign_id, 0), rows.get(EVERYWHERE, 0)

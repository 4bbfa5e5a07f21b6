"""Issue 37: a page of a list and the count of the whole list come in one statement
(app.core.pagination.paginate: a window count on each row of the slice). Same answers as a
count and a slice: for a list of entities, of columns and of several entities, for the last
page, an empty list and a page past the end (counted alone)."""

from sqlmodel import Session, col, select

from app.accounts.models import User
from app.audit.models import AuditEntry
from app.chronicle.models import ChronicleEntry
from app.core.pagination import paginate
from tests.builders.campaigns import running_campaign


def _count_and_slice(session, query, page, per_page):
    """What paginate answered before: the count, then the slice, two statements."""
    everything = list(session.exec(query).all())
    return len(everything), everything[(page - 1) * per_page : page * per_page]


def test_issue37_a_page_and_its_total_in_one_statement(client, engine, count_statements):
    _gm, cid, _players, _ = running_campaign(client)
    entries = select(ChronicleEntry).where(ChronicleEntry.campaign_id == cid).order_by(col(ChronicleEntry.id).desc())
    ids = select(ChronicleEntry.id).where(ChronicleEntry.campaign_id == cid).order_by(ChronicleEntry.id)
    pairs = (
        select(AuditEntry, User.nickname)
        .outerjoin(User, col(User.id) == AuditEntry.actor_user_id)
        .where(AuditEntry.campaign_id == cid)
        .order_by(col(AuditEntry.id).desc())
    )
    with Session(engine) as session:
        for query in (entries, ids, pairs):
            total, _ = _count_and_slice(session, query, 1, 2)
            assert total > 2, query  # more than one page
            last = -(-total // 2)
            for number in (1, 2, last):
                with count_statements() as counted:
                    found = paginate(session, query, page=number, per_page=2)
                assert counted.count == 1
                expected_total, expected = _count_and_slice(session, query, number, 2)
                assert found.total == expected_total and found.pages == last and found.page == number
                assert [tuple(i) if isinstance(i, tuple) else i for i in found.items] == [
                    tuple(e) if query is pairs else e for e in expected
                ]
            # A page past the end has no row to carry the count: counted alone, still right.
            with count_statements() as counted:
                beyond = paginate(session, query, page=last + 1, per_page=2)
            assert beyond.items == [] and beyond.total == total and counted.count == 2
        # An empty list: one statement, nothing counted.
        nothing = select(ChronicleEntry).where(ChronicleEntry.campaign_id == cid + 1000)
        with count_statements() as counted:
            empty = paginate(session, nothing, page=1, per_page=3)
        assert (empty.items, empty.total, empty.pages, counted.count) == ([], 0, 1, 1)


def test_issue37_the_chronicle_page_reads_its_entries_in_one_statement(client, make_client, count_statements):
    from tests.builders.pages import login

    _gm, cid, _players, _ = running_campaign(client)
    anna = make_client()
    login(anna, "player0")
    anna.get(f"/campaigns/{cid}/chronicle")
    with count_statements() as counted:
        assert anna.get(f"/campaigns/{cid}/chronicle").status_code == 200
    assert sum("chronicle_entry" in s for s in counted.statements) == 1, counted.statements


def test_issue37_a_listing_built_once_pages_as_its_select_does(client, engine, count_statements):
    # A module's list built once with bind parameters (Listing) answers what the same select
    # with the values written in answers, page for page, past the end included.
    from sqlalchemy import bindparam

    from app.core.pagination import Listing

    _gm, cid, _players, _ = running_campaign(client)
    listing = Listing(
        select(ChronicleEntry)
        .where(ChronicleEntry.campaign_id == bindparam("campaign_id"))
        .order_by(col(ChronicleEntry.id).desc())
    )
    written = select(ChronicleEntry).where(ChronicleEntry.campaign_id == cid).order_by(col(ChronicleEntry.id).desc())
    with Session(engine) as session:
        total, _ = _count_and_slice(session, written, 1, 2)
        assert total > 2
        for number in (1, 2, -(-total // 2), -(-total // 2) + 1):
            with count_statements() as counted:
                kept = paginate(session, listing, page=number, per_page=2, params={"campaign_id": cid})
            assert counted.count == (1 if number <= -(-total // 2) else 2)
            plain = paginate(session, written, page=number, per_page=2)
            assert (kept.items, kept.total, kept.pages, kept.page) == (plain.items, plain.total, plain.pages, plain.page)
        other = paginate(session, listing, page=1, per_page=2, params={"campaign_id": cid + 1000})
        assert (other.items, other.total) == ([], 0)

"""A page of a long list (issue 37): the first 50 entries of a chronicle of `--entries` (50,000)
and their total, read as `core.pagination.paginate` reads them (one statement, the count as an
uncorrelated subquery), as two statements (a count, then the slice: what it did before), and
with a window count (`count() over ()`, the one-statement form it does not use: the database
holds every row of the list to count them before it takes the slice). Medians of 15, side by
side in one run; read the ratios.

Run: `python -m bench.pagination [--entries 50000]`; `BENCH_DATABASE_URL` for PostgreSQL (an
empty database: the bench migrates it and analyses the table).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, insert, text
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.chronicle.models import ChronicleEntry
from app.core.db import make_engine
from app.core.migrate import upgrade
from app.core.pagination import paginate

PER_PAGE = 50


def _chronicle(engine, entries: int) -> int:
    with Session(engine) as s:
        gm = User(nickname="bench", nickname_key="bench", password_hash="-")
        s.add(gm)
        s.flush()
        campaign = Campaign(gm_user_id=gm.id, name="Long chronicle")
        s.add(campaign)
        s.flush()
        params = {"round": 1, "from_phase": "preparation", "to_phase": "orders"}
        s.execute(insert(ChronicleEntry), [dict(campaign_id=campaign.id, round=1, kind="phase_changed", params=params)] * entries)
        s.commit()
        if engine.dialect.name == "postgresql":
            s.execute(text("ANALYZE chronicle_entry"))
            s.commit()
        assert campaign.id is not None
        return campaign.id


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=50_000)
    args = parser.parse_args(argv)
    url = os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{Path(tempfile.mkdtemp()) / 'pages.sqlite3'}")
    upgrade(url)
    engine = make_engine(url)
    cid = _chronicle(engine, args.entries)
    query = select(ChronicleEntry).where(ChronicleEntry.campaign_id == cid).order_by(col(ChronicleEntry.id).desc())

    def one_statement(s):
        return paginate(s, query, page=1, per_page=PER_PAGE)

    def two_statements(s):
        total = s.exec(select(func.count()).select_from(query.order_by(None).subquery())).one()
        return list(s.exec(query.limit(PER_PAGE)).all()), total

    def window_count(s):
        return s.execute(query.add_columns(func.count().over()).limit(PER_PAGE)).all()

    ways = (one_statement, two_statements, window_count)
    times: dict[str, list[float]] = {way.__name__: [] for way in ways}
    with Session(engine) as s:
        for _ in range(15):
            for way in ways:
                start = time.perf_counter()
                way(s)
                times[way.__name__].append((time.perf_counter() - start) * 1000)
                s.expunge_all()
    base = statistics.median(times["two_statements"])
    print(f"first {PER_PAGE} of {args.entries:,} entries ({engine.dialect.name})   ms   ÷ two statements")
    for name, values in times.items():
        print(f"{name:<44} {statistics.median(values):6.2f}  {statistics.median(values) / base:5.2f}")


if __name__ == "__main__":
    main()

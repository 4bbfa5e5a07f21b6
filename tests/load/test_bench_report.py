"""`make bench` runs outside the suite's pass/fail (its timings are noisy), but its quick form
runs here so the bench cannot rot (issue 17): every measure is taken and printed."""

import asyncio
import gc

import fastapi.routing
import pytest
from sqlalchemy.engine import Connection

from app.accounts import service as accounts
from app.core import commit_steps, lean_routes, template_output, templating
from app.core.template_output import OutputTemplate
from app.versions import audience
from bench import (
    collector,
    page_parts,
    page_statements,
    prepared_routes,
    report,
    request_cpu,
    request_split,
    season_reads,
    write_cost,
)
from tests.load.fault_helpers import sqlite_run_only

pytestmark = sqlite_run_only  # the bench makes its own SQLite database (BENCH_DATABASE_URL aside)


@pytest.fixture(autouse=True)
def _collected_again():
    """A bench sets the heap aside as the server does (app/core/memory.py `settle`); the tests
    after it in this process get theirs collected as before."""
    yield
    gc.unfreeze()


def test_bench_report_quick_form_prints_every_measure(capsys):
    rows = report.main(quick=True)
    labels = [label for label, _value, _detail in rows]
    for page in ("dashboard", "battles", "players", "chronicle", "orders", "map"):
        assert f"{page} ÷ bare route (in process)" in labels
        assert f"{page}, unchanged (304) ÷ bare route" in labels
        assert f"{page}, loaded again unchanged ÷ bare route" in labels  # issue 37
    assert "a campaign page's login alone ÷ bare route" in labels  # the floor under them (issue 37)
    assert "dashboard: first load / repeat visit" in labels and "map: first load / repeat visit" in labels
    assert any(label.startswith("announce 100 / 200 warbands") for label in labels)
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].startswith("measure") and len(printed.splitlines()) == len(rows) + 1


def test_bench_write_cost_counts_the_audiences_of_real_writes_and_puts_its_timers_back(capsys):
    share = write_cost.main(["--pairs", "2"])
    assert 0 < share < 1
    assert "counting its audiences" in capsys.readouterr().out
    assert not any(step is not audience._bump and step.__name__ == "timed" for _rank, step in commit_steps._STEPS)
    assert any(step is audience._bump for _rank, step in commit_steps._STEPS)


def test_bench_request_cpu_quick_form_measures_every_page(capsys):
    """bench/request_cpu.py (issue 37): each page answered 200 and was given a figure."""
    request_cpu.main(["--requests", "2", "--rounds", "1"])
    printed = capsys.readouterr().out.splitlines()
    rows = {line[:44].strip(): line[44:].split(" / ") for line in printed[1:]}
    assert set(rows) == {"a route alone", "a synchronous route", "behind the page login", "map", "dashboard", "chronicle"}
    assert all(float(low) > 0 for low, _median in rows.values())
    request_cpu.main(["--requests", "1", "--rounds", "1", "--gm"])  # bench.report's campaign, as its GM
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("CPU per request, as the GM") and len(printed) == 7
    assert all(float(line[44:].split(" / ")[0]) > 0 for line in printed[1:])
    request_cpu.main(["--requests", "1", "--rounds", "1", "--api"])  # its GM's API reads
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("CPU per request, the GM's API") and len(printed) == 8
    assert all(float(line[44:].split(" / ")[0]) > 0 for line in printed[1:])


def test_bench_page_statements_counts_every_page(capsys):
    """bench/page_statements.py (issue 37): every page answered 200 and ran statements, and the
    campaign head's values are one of them (app/core/page_head.py)."""
    found = asyncio.run(page_statements.count())
    assert set(found) == set(page_statements.PAGES)
    for name, statements in found.items():
        assert statements, name
        assert sum("letters_unread" in s for s in statements) == 1, name
    page_statements.main()
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == len(page_statements.PAGES) + 1 and printed[1].split()[-1].isdigit()


def test_bench_season_reads_times_a_rounds_reads_before_and_after_the_host_grows(capsys):
    """bench/season_reads.py (issue 37): the GM's pages' reads of a round's battles and orders,
    each timed before and after other campaigns' rows and earlier rounds were added."""
    rows = season_reads.main(quick=True)
    assert {name.split(":")[0] for name, _was, _now in rows} >= {"battle", "warband_order"}
    assert all(was > 0 and now > 0 for _name, was, now in rows)
    assert len(capsys.readouterr().out.splitlines()) == len(rows) + 1


def test_bench_prepared_routes_draws_the_dashboard_both_ways(capsys):
    """bench/prepared_routes.py (issue 37): the same dashboard behind a route FastAPI solves the
    context of and one that makes it itself, each answered and timed."""
    medians = prepared_routes.main(["--requests", "2"])
    assert set(medians) == {"solved by FastAPI", "prepared by the route"} and all(m > 0 for m in medians.values())
    assert capsys.readouterr().out.splitlines()[-1].startswith("prepared ÷ solved")


def test_bench_collector_sets_the_apps_objects_aside(capsys):
    """bench/collector.py (issue 37): once settled, a full pass walks none of the app's objects."""
    collector.main(["--requests", "3"])
    printed = capsys.readouterr().out.splitlines()
    walked, settled = (line[44:].split() for line in printed[1:])
    assert printed[1].startswith("walked by every full pass") and printed[2].startswith("set aside (settle)")
    assert int(walked[0].replace(",", "")) > 10 * int(settled[0].replace(",", ""))


def test_bench_request_split_quick_form_gives_every_part_and_puts_the_wrappers_back(capsys):
    """bench/request_split.py (issue 37): every part of a page request is given a figure, the
    whole request the largest, and what it wrapped to time is as it was afterwards."""
    before = (Connection.execute, OutputTemplate.render, accounts.lookup_session, fastapi.routing.solve_dependencies)
    lines = request_split.main(["--requests", "2", "--page", "dashboard", "--page", "map"])
    assert capsys.readouterr().out.splitlines() == lines
    assert lines[0].split()[-2:] == ["dashboard", "map"]
    figures = {line[:48].strip(): [float(x) for x in line[48:].split()] for line in lines[1:]}
    assert set(figures) == {"the whole request (every thread)"} | {label.strip() for label, _key in request_split.PARTS}
    whole = figures.pop("the whole request (every thread)")
    assert all(w > 0 for w in whole)
    for label in ("the event loop's thread", "the route's worker thread", "the login", "drawing the template"):
        assert all(0 < part < w for part, w in zip(figures[label], whole, strict=True)), label
    assert (Connection.execute, OutputTemplate.render, accounts.lookup_session, fastapi.routing.solve_dependencies) == before


def test_bench_page_parts_quick_form_gives_every_part_and_puts_what_it_patched_back(capsys):
    """bench/page_parts.py (issue 37): each page's drawings and parts are given a figure, the
    page after a change costs more than its login alone, and the login, the template drawing
    and the template loader, the lean handler's reading of ids and the template's joining are as
    they were afterwards."""
    before = (accounts.lookup_session, OutputTemplate.render, templating.env.loader, lean_routes._id, template_output._joined)
    lines = page_parts.main(["--requests", "3"])
    assert capsys.readouterr().out.splitlines() == lines
    assert lines[0].split()[-6:] == ["dashboard", "battles", "players", "chronicle", "orders", "map"]
    figures = {line[:50].strip(): [float(x) for x in line[50:].split()] for line in lines[1:]}
    cold, seated, sync = (
        figures[k]
        for k in (
            "drawn after a change (nothing remembered)",
            "a campaign page's login and viewer alone",
            "a synchronous route through the app",
        )
    )
    assert all(c > s > 0 for c, s in zip(cold, seated, strict=True)) and all(s > q > 0 for s, q in zip(seated, sync, strict=True))
    assert (
        accounts.lookup_session,
        OutputTemplate.render,
        templating.env.loader,
        lean_routes._id,
        template_output._joined,
    ) == before
    assert (
        "spared by the lean handler (FastAPI's, less it)" in figures
        and "spared by the joined pieces (unjoined, less it)" in figures
    )

"""Issue 31: `make test` runs lint, then two lanes of suites at once (tools/suites.py). A failing
suite fails the run, stops its own lane and leaves the other lane running; lint failing runs no
suite; each suite's output is printed whole, with its seconds."""

from __future__ import annotations

import itertools
import re
import shutil

import pytest

from tools import suites

# Each suite appends its name to ran.txt with the time it started and ended; the ones named in
# FAIL exit 1.
MAKEFILE = """
FAIL ?=
%:
\t@echo "$@ $$(date +%s.%N) start" >> ran.txt; echo "output of $@"; sleep $(if $(filter test-postgres test-sqlite,$@),1,0)
\t@echo "$@ $$(date +%s.%N) end" >> ran.txt
\t@! echo " $(FAIL) " | grep -q " $@ "
"""


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    (tmp_path / "Makefile").write_text(MAKEFILE)
    monkeypatch.setattr(suites, "ARTIFACTS", tmp_path / "test-artifacts")
    monkeypatch.setenv("MAKEFLAGS", "")  # not the flags of a `make test` running this test
    return tmp_path


def _ran(checkout) -> dict[str, tuple[float, float]]:
    times: dict[str, dict[str, float]] = {}
    for line in (checkout / "ran.txt").read_text().splitlines():
        name, at, what = line.split()
        times.setdefault(name, {})[what] = float(at)
    return {name: (t["start"], t["end"]) for name, t in times.items()}


def test_issue31_the_two_lanes_run_at_once_after_lint_and_all_pass(checkout, capsys):
    assert suites.main([]) == 0
    ran = _ran(checkout)
    assert set(ran) == {"lint", "test-sqlite", "test-e2e", "test-postgres", "test-fuzz", "test-package"}
    assert ran["test-sqlite"][0] >= ran["lint"][1] and ran["test-postgres"][0] >= ran["lint"][1]
    # side by side: each database suite starts before the other ends
    assert ran["test-postgres"][0] < ran["test-sqlite"][1] and ran["test-sqlite"][0] < ran["test-postgres"][1]
    assert ran["test-e2e"][0] >= ran["test-sqlite"][1] and ran["test-fuzz"][0] >= ran["test-postgres"][1]
    out = capsys.readouterr().out
    for suite in ("test-sqlite", "test-e2e", "test-postgres", "test-fuzz"):
        assert f"output of {suite}" in out and f"== {suite} took" in out
        assert (checkout / "test-artifacts" / f"{suite}.log").read_text().strip() == f"output of {suite}"
    assert "All suites passed" in out
    # the club's install, beside the rest, counts its own seconds, not the wait for the lanes
    summary = next(line for line in out.splitlines() if line.startswith("== seconds:"))
    assert re.search(r"test-package (\d+)[,;]", summary).group(1) == "0", summary


def test_issue31_a_failing_suite_stops_its_lane_and_fails_the_run_while_the_other_lane_runs(checkout, monkeypatch, capsys):
    monkeypatch.setenv("MAKEFLAGS", "FAIL=test-sqlite")
    assert suites.main([]) == 1
    ran = _ran(checkout)
    assert "test-e2e" not in ran, "the lane went on after its suite failed"
    assert "test-postgres" in ran and "test-fuzz" in ran, "the other lane did not run on"
    out = capsys.readouterr().out
    assert "== test-sqlite FAILED after" in out and "FAILED: test-sqlite" in out
    assert "All suites passed" not in out


def test_issue31_lint_failing_runs_no_suite(checkout, monkeypatch, capsys):
    monkeypatch.setenv("MAKEFLAGS", "FAIL=lint")
    assert suites.main([]) == 1
    assert set(_ran(checkout)) == {"lint", "test-package"}
    assert "FAILED: lint" in capsys.readouterr().out


def test_issue31_one_lane_runs_the_suites_one_after_another(checkout):
    assert suites.main(["--lanes", "1"]) == 0
    ran = _ran(checkout)
    order = sorted(("test-sqlite", "test-postgres", "test-e2e", "test-fuzz"), key=lambda s: ran[s][0])
    assert order == ["test-sqlite", "test-postgres", "test-e2e", "test-fuzz"]
    for before, after in itertools.pairwise(order):
        assert ran[after][0] >= ran[before][1]

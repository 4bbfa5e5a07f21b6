"""`make test`: lint, then the suites in two lanes at once, the club's install beside them.

Issue 31. One after another, the suites left 12-20 % of this machine's two cores idle, each in
places of its own: the load tests wait on the servers they start, kill and stop, the browser
tests on Chromium and their server, the fuzzer on its two servers. Side by side, one suite's
work fills another's waits: the SQLite and PostgreSQL suites at once took 489 s against 258 +
289 s one after the other, and every test passed (each suite has its own databases, servers on
free ports and temporary directories). So, after lint:

    lane 1: SQLite, then the browser tests
    lane 2: PostgreSQL, then the API fuzzing

Each suite's output goes to test-artifacts/<suite>.log and is printed whole when the suite
ends, with its seconds. A lane stops at its first failure; the other lane runs on, so that one
run shows every suite that fails. `--lanes 1` runs the suites one after another, their output
as it comes (for chasing a test that only fails on a busy machine).

    python tools/suites.py [--lanes 1|2]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"  # in the checkout, where make runs
FIRST = "lint"
LANES = (("test-sqlite", "test-e2e"), ("test-postgres", "test-fuzz"))
ONE_LANE = (("test-sqlite", "test-postgres", "test-e2e", "test-fuzz"),)  # the order they had before
BESIDE = "test-package"  # mostly one core waiting on pip: beside everything else

_print = threading.Lock()
_running: set[subprocess.Popen] = set()


def _say(text: str) -> None:
    with _print:
        print(text, flush=True)


def _start(suite: str, log: Path | None) -> subprocess.Popen:
    out = log.open("wb") if log else None
    # A session of its own: an interrupted run stops the suite's workers, servers and browsers.
    proc = subprocess.Popen(
        ["make", "--no-print-directory", suite],
        cwd=ARTIFACTS.parent,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    if out:
        out.close()
    _running.add(proc)
    return proc


def run(suite: str, *, buffered: bool) -> tuple[bool, int]:
    """Run one suite; (passed, seconds). Buffered, its whole output is printed when it ends."""
    log = ARTIFACTS / f"{suite}.log" if buffered else None
    begun = time.monotonic()
    proc = _start(suite, log)
    code = proc.wait()
    _running.discard(proc)
    seconds = round(time.monotonic() - begun)
    verdict = "took" if code == 0 else "FAILED after"
    with _print:
        if log:
            sys.stdout.write(log.read_text(errors="replace"))
        print(f"== {suite} {verdict} {seconds} s", flush=True)
    return code == 0, seconds


def lane(suites: tuple[str, ...], times: dict[str, int], failed: list[str], buffered: bool) -> None:
    for suite in suites:
        passed, times[suite] = run(suite, buffered=buffered)
        if not passed:
            failed.append(suite)
            return


def _stop_all(*_args) -> None:
    for proc in list(_running):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    raise SystemExit(130)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, choices=(1, 2), default=2)
    args = parser.parse_args(argv)
    ARTIFACTS.mkdir(exist_ok=True)
    handlers = {sig: signal.signal(sig, _stop_all) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return _run_all(args.lanes)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def _run_all(lanes_at_once: int) -> int:
    start = time.monotonic()
    times: dict[str, int] = {}
    failed: list[str] = []

    # A lane of its own, so that its seconds are its own, not the wait for the others.
    beside = threading.Thread(target=lane, args=((BESIDE,), times, failed, True))
    beside.start()
    passed, times[FIRST] = run(FIRST, buffered=False)
    lanes = LANES if lanes_at_once == 2 else ONE_LANE
    if not passed:
        failed.append(FIRST)
    else:
        threads = [threading.Thread(target=lane, args=(suites, times, failed, len(lanes) > 1)) for suites in lanes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    beside.join()
    total = round(time.monotonic() - start)
    _say("== seconds: " + ", ".join(f"{suite} {s}" for suite, s in times.items()) + f"; all of them {total}")
    if failed:
        _say("FAILED: " + ", ".join(failed))
        return 1
    _say("All suites passed: lint and layers, SQLite, PostgreSQL, browser, API fuzzing, the club's install.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

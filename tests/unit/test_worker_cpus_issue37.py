"""Issue 37: a worker's threads on a CPU of its own when HIDEOUT_WORKER_CPUS asks for it
(app/core/affinity.py): which CPUs the setting names, a claim no two workers share, and every
thread of the worker pinned (in a child process: pinning the suite's would slow it)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from pydantic import ValidationError

from app.core import affinity
from app.core.settings import Settings

LINUX = hasattr(os, "sched_setaffinity") and os.path.isdir("/proc/self/task")
CLAIMS = pytest.mark.skipif(affinity.fcntl is None, reason="claims are file locks where the system has them (POSIX)")
# Pinned or not is only seen where the process may run on more than one CPU.
PINNING = pytest.mark.skipif(
    not LINUX or len(os.sched_getaffinity(0)) < 2, reason="pinning is seen on Linux with two CPUs or more"
)


@pytest.fixture
def held():
    """The claims a test makes, let go of afterwards (a claim lasts while its file is open)."""
    before = len(affinity._HELD)
    yield
    while len(affinity._HELD) > before:
        os.close(affinity._HELD.pop())


def test_the_setting_names_none_every_or_listed_cpus_of_those_allowed():
    assert affinity.wanted("", {0, 1}) == []
    assert affinity.wanted("off", {0, 1}) == []
    assert affinity.wanted(" Auto ", {3, 1}) == [1, 3]
    assert affinity.wanted("2, 0,2", {0, 1, 2}) == [2, 0]  # in the order given, each once
    assert affinity.wanted("5", {0, 1}) == []  # a CPU the process may not run on is not claimed


@pytest.mark.parametrize("value", ["yes", "0,", "-1", "auto,1", "1;2", "all"])
def test_a_setting_it_does_not_take_stops_the_server_at_start(value):
    with pytest.raises(ValidationError):
        Settings(worker_cpus=value)


def test_off_unless_asked():
    assert Settings().worker_cpus == ""
    assert affinity.wanted(Settings().worker_cpus, {0, 1}) == []


@CLAIMS
def test_no_two_claims_share_a_cpu_and_a_freed_one_is_taken_again(tmp_path, held):
    folder = tmp_path / "claims"
    first = affinity.claim(folder, [4, 7])
    second = affinity.claim(folder, [4, 7])
    assert (first, second) == (4, 7)
    assert affinity.claim(folder, [4, 7]) is None  # every CPU held: the worker runs unpinned
    os.close(affinity._HELD.pop(0))  # the first worker ends: its lock goes with it
    assert affinity.claim(folder, [4, 7]) == 4
    assert oct(folder.stat().st_mode & 0o777) == "0o700"


@CLAIMS
def test_another_process_claim_is_respected(tmp_path, held):
    folder = tmp_path / "claims"
    assert affinity.claim(folder, [0]) == 0
    child = f"from app.core import affinity; from pathlib import Path; print(affinity.claim(Path({str(folder)!r}), [0, 1]))"
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "1"


@PINNING
def test_every_thread_of_the_worker_is_pinned_and_later_threads_too(tmp_path):
    script = textwrap.dedent(
        f"""
        import os, threading
        from pathlib import Path
        from app.core import affinity
        started = threading.Event()
        stop = threading.Event()
        def earlier():
            started.set()
            stop.wait()
        before = threading.Thread(target=earlier)
        before.start()
        started.wait()
        cpu = affinity.pin_worker("auto", Path({str(tmp_path)!r}))
        later = []
        after = threading.Thread(target=lambda: later.append(os.sched_getaffinity(0)))
        after.start()
        after.join()
        seen = {{tuple(sorted(os.sched_getaffinity(int(t)))) for t in os.listdir("/proc/self/task")}}
        stop.set()
        print(cpu, sorted(seen), sorted(later[0]))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split("\n")[-2]
    cpu = int(out.split()[0])
    assert cpu == min(os.sched_getaffinity(0))
    assert out == f"{cpu} [({cpu},)] [{cpu}]"


@pytest.mark.skipif(not LINUX, reason="threads are pinned where the system lets a process pin them (Linux)")
def test_unasked_the_worker_is_left_where_the_system_runs_it(tmp_path):
    script = f"from app.core import affinity; from pathlib import Path; import os; print(affinity.pin_worker('', Path({str(tmp_path)!r})), sorted(os.sched_getaffinity(0)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split("\n")[-2]
    assert out == f"None {sorted(os.sched_getaffinity(0))}"
    assert not (tmp_path / "cpu-claims").exists()


@pytest.mark.skipif(not LINUX, reason="threads are pinned where the system lets a process pin them (Linux)")
def test_a_var_folder_that_takes_no_claim_leaves_the_worker_unpinned_not_stopped(tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")  # the claims' folder cannot be made under a file
    script = f"from app.core import affinity; from pathlib import Path; import os; print(affinity.pin_worker('auto', Path({str(blocked)!r})), sorted(os.sched_getaffinity(0)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split("\n")[-2]
    assert out == f"None {sorted(os.sched_getaffinity(0))}"


@PINNING
def test_a_process_forked_from_a_pinned_worker_holds_no_claim_and_runs_unpinned(tmp_path):
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from app.core import affinity
        allowed = sorted(os.sched_getaffinity(0))
        cpu = affinity.pin_worker("auto", Path({str(tmp_path)!r}))
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            unpinned = sorted(os.sched_getaffinity(0)) == allowed
            os.write(write, ("unpinned" if unpinned else "pinned").encode() + b"," + str(len(affinity._HELD)).encode())
            os._exit(0)
        os.waitpid(child, 0)
        print(cpu, sorted(os.sched_getaffinity(0)), os.read(read, 100).decode())
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split("\n")[-2]
    cpu = min(os.sched_getaffinity(0))
    assert out == f"{cpu} [{cpu}] unpinned,0"


@PINNING
def test_with_every_cpu_claimed_the_worker_starts_unpinned_and_takes_the_first_one_freed(tmp_path, held):
    """A graceful restart starts the new worker while the old one still holds its CPU."""
    cpu = min(os.sched_getaffinity(0))
    assert affinity.claim(tmp_path / "cpu-claims", [cpu]) == cpu  # the old worker
    script = textwrap.dedent(
        f"""
        import os, sys, time
        from pathlib import Path
        from app.core import affinity
        affinity.ASK_EVERY = 0.05
        print("started", affinity.pin_worker("{cpu}", Path({str(tmp_path)!r})), sorted(os.sched_getaffinity(0)), flush=True)
        sys.stdin.readline()  # the old worker has stopped
        deadline = time.monotonic() + 10
        while os.sched_getaffinity(0) != {{{cpu}}} and time.monotonic() < deadline:
            time.sleep(0.02)
        print("then", sorted(os.sched_getaffinity(0)), flush=True)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    started = next(line for line in child.stdout if line.startswith("started"))
    assert started.strip() == f"started None {sorted(os.sched_getaffinity(0))}"
    os.close(affinity._HELD.pop())  # the old worker stops: its CPU is freed
    child.stdin.write("stopped\n")
    child.stdin.flush()
    then = next(line for line in child.stdout if line.startswith("then"))
    child.wait(timeout=10)
    assert then.strip() == f"then [{cpu}]"

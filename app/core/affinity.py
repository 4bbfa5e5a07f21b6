"""A worker's threads kept on one CPU, when the admin asks for it (`HIDEOUT_WORKER_CPUS`, issue 37).

A worker hands each request from its event loop's thread to a worker thread and back. Python
runs one thread of a process at a time, and on a host with several CPUs the kernel wakes the
other thread on another CPU: the interpreter lock, and the request's memory with it, cross
between CPUs twice a request. On the 2-CPU virtual machine this was measured on, that crossing
was a fifth of a page's CPU: the same server with its threads on one CPU drew 15–23 % more
dashboards a second under wrk, for 15–22 % less CPU a request, on SQLite and on PostgreSQL
(`python -m bench.pinning`). One worker only ever uses one CPU's worth of Python anyway.

Off by default: servers that cannot see each other's claims (containers with their own
temporary folders, two installs with their own var folders) would each take the first CPU
and share it. "auto" claims, for each worker of this server, a CPU of those the process may run
on that no other worker of the server holds; a list ("2,3") claims among those CPUs only, for
a host that runs several servers. A claim is a lock on a file in the var folder, held while the
worker lives (a worker that dies frees it, and the one started in its place takes it). With
every CPU claimed, the worker starts as it would without and keeps asking for a minute (a
graceful restart starts each new worker before it stops the old one, whose CPU is then freed);
where the system cannot pin threads, the worker runs as it would without.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import structlog

from app.core.files import private_dir

try:
    import fcntl
except ImportError:  # Windows: no claims, no pinning
    fcntl = None  # type: ignore[assignment]

log = structlog.get_logger()

_CLAIMS = "cpu-claims"
# With every CPU claimed: how long, and how often, a worker asks again.
ASK_FOR = 60.0
ASK_EVERY = 1.0
# The open claim of this process: its lock lasts as long as the file stays open.
_HELD: list[int] = []


# What the setting takes (app/core/settings.py refuses anything else when the server starts).
SETTING_PATTERN = r"^\s*((?i:auto|off)|\d+(\s*,\s*\d+)*)?\s*$"


def _asked(setting: str) -> str | None:
    """The setting as it asks ("auto" or a list), or None for off ("" or "off")."""
    text = setting.strip().lower()
    return None if text in ("", "off") else text


def wanted(setting: str, allowed: set[int]) -> list[int]:
    """The CPUs a worker may claim, in order: none ("" or "off"), every allowed one ("auto"), or
    those of a comma-separated list (as SETTING_PATTERN takes it) that the process may run on."""
    text = _asked(setting)
    if text is None:
        return []
    if text == "auto":
        return sorted(allowed)
    return [cpu for cpu in dict.fromkeys(int(part) for part in text.split(",")) if cpu in allowed]


def claim(folder: Path, cpus: list[int]) -> int | None:
    """The first of `cpus` no other process holds a claim on in `folder`, claimed for this
    process's life; None when each is held."""
    private_dir(folder)
    for cpu in cpus:
        try:
            fd = os.open(folder / f"cpu-{cpu}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            continue  # a file this process may not open (another user's, a link): not its CPU
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by another worker (or no locks there at all)
            os.close(fd)
            continue
        _HELD.append(fd)
        return cpu
    return None


def pin_threads(cpu: int) -> None:
    """Every thread of this process on `cpu`; threads started later inherit it."""
    for task in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(task), {cpu})
        except OSError:
            continue  # a thread that ended meanwhile, or one the system keeps where it is


def pin_worker(setting: str, var_dir: Path) -> int | None:
    """This worker's threads on a CPU of its own, as `setting` asks; the CPU, or None."""
    if fcntl is None or not hasattr(os, "sched_setaffinity") or not Path("/proc/self/task").is_dir():
        if _asked(setting) is not None:
            log.info("worker_cpus_unsupported")
        return None
    allowed = os.sched_getaffinity(0)
    cpus = wanted(setting, allowed)
    if not cpus:
        return None
    try:
        cpu = claim(var_dir / _CLAIMS, cpus)
    except OSError as exc:  # a var folder that takes no new file (read-only): no claims at all
        log.warning("worker_cpus_unclaimed", error=str(exc))
        return None
    if cpu is None:
        log.info("worker_cpus_all_claimed", cpus=cpus)
        threading.Thread(target=_ask_again, args=(var_dir / _CLAIMS, cpus, allowed), daemon=True).start()
        return None
    _pinned(cpu, allowed)
    return cpu


def _pinned(cpu: int, allowed: set[int]) -> None:
    pin_threads(cpu)
    # A process forked from this one (gunicorn's workers of a preloaded app) is not this worker:
    # it holds no claim and runs where the system puts it.
    os.register_at_fork(after_in_child=lambda: _unpinned(allowed))
    log.info("worker_pinned", cpu=cpu)


def _ask_again(folder: Path, cpus: list[int], allowed: set[int]) -> None:
    """Every CPU was claimed when this worker started: it asks again for a while, and takes the
    first one freed (a graceful restart's old worker stopping)."""
    deadline = time.monotonic() + ASK_FOR
    while time.monotonic() < deadline:
        time.sleep(ASK_EVERY)
        try:
            cpu = claim(folder, cpus)
        except OSError:  # the folder went away meanwhile: the worker stays as it is
            return
        if cpu is not None:
            _pinned(cpu, allowed)
            return


def _unpinned(allowed: set[int]) -> None:
    while _HELD:
        os.close(_HELD.pop())  # the parent's claim stays the parent's
    os.sched_setaffinity(0, allowed)

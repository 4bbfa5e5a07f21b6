"""A worker's threads kept on one CPU, when the admin asks for it (`HIDEOUT_WORKER_CPUS`, issue 37).

A worker hands each request from its event loop's thread to a worker thread and back. Python
runs one thread of a process at a time, and on a host with several CPUs the kernel wakes the
other thread on another CPU: the interpreter lock, and the request's memory with it, cross
between CPUs twice a request. On the 2-CPU virtual machine this was measured on, that crossing
was a fifth of a page's CPU: the same server with its threads on one CPU drew 15–23 % more
dashboards a second under wrk, for 15–22 % less CPU a request, on SQLite and on PostgreSQL
(`python -m bench.wrk --pinning`). One worker only ever uses one CPU's worth of Python anyway.

Off by default: servers that cannot see each other's claims (containers with their own
temporary folders, two installs with their own var folders) would each take the first CPU
and share it. "auto" claims, for each worker of this server, a CPU of those the process may run
on that no other worker of the server holds; a list ("2,3") claims among those CPUs only, for
a host that runs several servers. A claim is a lock on a file in the var folder, held while the
worker lives (a worker that dies frees it, and the one started in its place takes it). With
every CPU claimed, or where the system cannot pin threads, the worker runs as it would without.
"""

from __future__ import annotations

import os
from pathlib import Path

import structlog

from app.core.files import private_dir

try:
    import fcntl
except ImportError:  # Windows: no claims, no pinning
    fcntl = None  # type: ignore[assignment]

log = structlog.get_logger()

_CLAIMS = "cpu-claims"
# The open claim of this process: its lock lasts as long as the file stays open.
_HELD: list[int] = []


# What the setting takes (app/core/settings.py refuses anything else when the server starts).
SETTING_PATTERN = r"^\s*((?i:auto|off)|\d+(\s*,\s*\d+)*)?\s*$"


def wanted(setting: str, allowed: set[int]) -> list[int]:
    """The CPUs a worker may claim, in order: none ("" or "off"), every allowed one ("auto"), or
    those of a comma-separated list (as SETTING_PATTERN takes it) that the process may run on."""
    text = setting.strip().lower()
    if text in ("", "off"):
        return []
    if text == "auto":
        return sorted(allowed)
    return [cpu for cpu in dict.fromkeys(int(part) for part in text.split(",")) if cpu in allowed]


def claim(folder: Path, cpus: list[int]) -> int | None:
    """The first of `cpus` no other process holds a claim on in `folder`, claimed for this
    process's life; None when each is held."""
    private_dir(folder)
    for cpu in cpus:
        fd = os.open(folder / f"cpu-{cpu}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
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
        if wanted(setting, {0}):
            log.info("worker_cpus_unsupported")
        return None
    cpus = wanted(setting, os.sched_getaffinity(0))
    if not cpus:
        return None
    try:
        cpu = claim(var_dir / _CLAIMS, cpus)
    except OSError as exc:  # a var folder that takes no new file or no lock (read-only, some network mounts)
        log.warning("worker_cpus_unclaimed", error=str(exc))
        return None
    if cpu is None:
        log.info("worker_cpus_all_claimed", cpus=cpus)
        return None
    allowed = os.sched_getaffinity(0)
    pin_threads(cpu)
    # A process forked from this one (gunicorn's workers of a preloaded app, a command the server
    # runs) is not this worker: it holds no claim and runs where the system puts it.
    os.register_at_fork(after_in_child=lambda: _unpinned(allowed))
    log.info("worker_pinned", cpu=cpu)
    return cpu


def _unpinned(allowed: set[int]) -> None:
    while _HELD:
        os.close(_HELD.pop())  # the parent's claim stays the parent's
    os.sched_setaffinity(0, allowed)

"""A worker's resident memory (issue 37: one worker after a 200-member club night), and the
objects it holds for good, which the garbage collector need not walk again.

glibc's malloc gives each thread that allocates an arena of its own, up to eight per core,
and an arena's freed pages are seldom given back: a worker's forty threadpool threads left
tens of MB resident that no request used any more. Two arenas are enough for one event loop
and its threads (they wait on the database far more than they allocate). Set before the app
starts its threads; elsewhere than glibc (musl, macOS) nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

M_ARENA_MAX = -8  # glibc's malloc.h
ARENAS = 2


def fewer_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Whether glibc took the limit (False: not glibc, nothing changed)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))


def settle() -> int:
    """Once the app is built: what is alive then (the modules, classes, routes, schemas and
    mappers, some 250,000 objects) is set aside from the cyclic garbage collector's passes, and
    the count set aside is returned. Python walks every object it tracks in each full pass; the
    app's own are never garbage, and walking them took 60 to 86 ms, every thousand requests or
    so, from whichever request was running (`python -m bench.collector`, issue 37). What
    requests make is still collected. Garbage already there is collected first."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
